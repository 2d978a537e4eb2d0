"""Command line: `python3 -m generator <command>`; see --help."""
import argparse
import sys
import time

from .errors import SpecError


def cmd_extract_spec(args):
    from .extract.extract import extract, write_spec
    entries = extract(args.header)
    write_spec(entries, args.output)
    print(f"wrote {args.output}: {len(entries)} entries from {args.header}")


def cmd_specs(args):
    from .specs import load_spec
    from .summary import spec_summary
    spec = load_spec(args.specs_dir)
    print(spec_summary(spec), end="")


def cmd_regenerate(args):
    from .regenerate import regenerate
    started = time.perf_counter()
    written = regenerate(args.output, quiet=args.quiet, specs_dir=args.specs_dir,
                         catalogue_path=args.tasks)
    if not args.quiet:
        print(f"regenerated {len(written)} files in {args.output}/ "
              f"({time.perf_counter() - started:.2f} s)")


def main(argv=None):
    from .extract.extract import DEFAULT_HEADER
    from .regenerate import GENERATED_DIR
    from .specs import SPECS_DIR

    parser = argparse.ArgumentParser(prog="python3 -m generator",
                                     description="scorep-wrapgen's wrapper generator")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("regenerate", help="render every generated file from specs/, tasks/, templates/")
    p.add_argument("--output", default=str(GENERATED_DIR), help="output directory (default: generated/)")
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--specs-dir", default=str(SPECS_DIR), help="MPI specs (default: specs/)")
    p.add_argument("--tasks", default=None,
                   help="task catalogue; its snippets are beside it (default: tasks/scorep.json)")
    p.set_defaults(func=cmd_regenerate)

    p = sub.add_parser("specs", help="load and validate the MPI specs")
    p.add_argument("--summary", action="store_true", help="print counts per binding and version")
    p.add_argument("--specs-dir", default=str(SPECS_DIR))
    p.set_defaults(func=cmd_specs)

    p = sub.add_parser("extract-spec", help="maintainer: derive specs/mpi-4.0.apis.json from mpi.h")
    p.add_argument("--header", default=DEFAULT_HEADER, help=f"mpi.h to read (default: {DEFAULT_HEADER})")
    p.add_argument("--output", default=str(SPECS_DIR / "mpi-4.0.apis.json"))
    p.set_defaults(func=cmd_extract_spec)

    args = parser.parse_args(argv)
    try:
        args.func(args)
    except SpecError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
