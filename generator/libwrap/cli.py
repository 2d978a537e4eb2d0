"""scorep-libwrap-init and scorep-libwrap <step>: the commands of library
wrapping. The installed launchers (tools/scorep-libwrap*.in) pass where the
installation is; everything else is here."""
import argparse
import json
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass

from ..errors import SpecError
from ..render import TEMPLATES_DIR
from .installed import wrapper_share
from .workflow import LibwrapError, Settings, parse_mapping, write_atomically

SETTINGS_BEGIN = "# ---- settings: `scorep-libwrap-init --update` rewrites this block only ----"
SETTINGS_END = "# ---- end of settings ----"
LIBRARY_FILES = ("lib{lt}.so", "lib{lt}.a", "lib{rt}.so", "lib{rt}.a")


@dataclass
class Installation:
    """Where scorep-wrapgen is installed (from the launcher's own location)."""
    prefix: pathlib.Path
    bindir: pathlib.Path
    libdir: pathlib.Path
    includedir: pathlib.Path


def workdir_environment():
    import jinja2
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES_DIR / "libwrap" / "workdir")),
                              undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
                              trim_blocks=True, lstrip_blocks=True)


def fail(message):
    raise LibwrapError(message)


VALUE_OPTIONS = ("--cppflags", "--ldflags", "--libs", "--ellipsis-mapping", "--variadic-is-void",
                 "--dependency-dirs", "--address-compared",
                 "--display-name", "--cc")


def joined_values(argv):
    """`--libs -lz` as `--libs=-lz`: flag values start with '-', which
    argparse would take for options."""
    out, it = [], iter(argv)
    for word in it:
        if word in VALUE_OPTIONS:
            value = next(it, None)
            out.append(word if value is None else f"{word}={value}")
        else:
            out.append(word)
    return out


# ---- scorep-libwrap-init ----------------------------------------------------------

def init_parser():
    p = argparse.ArgumentParser(
        prog="scorep-libwrap-init",
        description="Create a working directory that wraps a C or C++ library for measurement. "
                    "Then: cd DIR; edit libwrap.h and main.c; make; make check; make install; "
                    "make installcheck.")
    p.add_argument("--name", required=True, help="wrapper name (letters, digits, _): scorep --libwrap=NAME")
    p.add_argument("--display-name", help="name for people (default: NAME)")
    p.add_argument("-x", dest="language", required=True, choices=("c", "c++"), help="language of the headers")
    p.add_argument("--cppflags", default="", help="preprocessor flags for the library's headers (-I, -D)")
    p.add_argument("--ldflags", default="", help="linker flags (-L, -Wl,...)")
    p.add_argument("--libs", required=True, help="the libraries to wrap (-lNAME or paths)")
    p.add_argument("--cc", help="compiler (default: gcc for C, g++ for C++)")
    p.add_argument("--header", action="append", default=[],
                   help="a header to include from libwrap.h (repeatable; else edit libwrap.h)")
    p.add_argument("--prefix", help="where make install puts the wrapper (default: this installation)")
    p.add_argument("--update", action="store_true",
                   help="DIR exists: rewrite the Makefile's settings, keep everything else")
    p.add_argument("directory")
    return p


def probe_flags(cc, language, cppflags, ldflags, libs, headers):
    """Compiles and links a trivial program with the flags: a clear error now
    beats a confusing one in the middle of make."""
    with tempfile.TemporaryDirectory(prefix="scorep-libwrap-init-") as tmp:
        src = pathlib.Path(tmp) / ("probe.cc" if language == "c++" else "probe.c")
        src.write_text("".join(f"#include <{h}>\n" for h in headers) + "int main(void) { return 0; }\n")
        cmd = [cc, *cppflags, str(src), "-o", str(pathlib.Path(tmp) / "probe"), *ldflags, *libs]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True)
        except FileNotFoundError:
            fail(f"the compiler '{cc}' was not found (--cc)")
        if proc.returncode != 0:
            fail("a trivial program does not compile and link with these flags:\n  "
                 + shlex.join(cmd) + "\n" + proc.stderr.strip()
                 + "\n  (check --cppflags, --ldflags and --libs)")


def settings_block(values):
    text = workdir_environment().get_template("Makefile.j2").render(s=values)
    begin, end = text.index(SETTINGS_BEGIN), text.index(SETTINGS_END) + len(SETTINGS_END)
    return text, text[begin:end]


def init_main(argv, installation):
    from .library_search import find_libraries
    args = init_parser().parse_args(joined_values(argv))
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", args.name):
        fail(f"--name '{args.name}': use letters, digits and _ (it becomes part of library names)")
    target = pathlib.Path(args.directory).resolve()
    if target.exists() and not target.is_dir():
        fail(f"{args.directory}: exists and is not a directory")
    existing = target.is_dir() and any(target.iterdir())
    if existing and not args.update:
        fail(f"{args.directory}: exists and is not empty (use --update to rewrite its settings "
             f"and keep your files)")
    if args.update and not (target / "Makefile").exists():
        fail(f"{args.directory}: no Makefile to update (run without --update to create the directory)")
    cc = args.cc or ("g++" if args.language == "c++" else "gcc")
    cppflags, ldflags, libs = (shlex.split(args.cppflags), shlex.split(args.ldflags),
                               shlex.split(args.libs))
    if not libs:
        fail("--libs: name at least one library (-lNAME or a path)")
    probe_flags(cc, args.language, cppflags, ldflags, libs, args.header)
    found = find_libraries(libs, ldflags, cc)
    values = {
        "name": args.name, "display_name": args.display_name or args.name, "language": args.language,
        "cc": cc, "cppflags": args.cppflags, "ldflags": args.ldflags, "libs": args.libs,
        "libwrap_prefix": args.prefix or str(installation.prefix), "bindir": str(installation.bindir),
        "libdir": str(installation.libdir), "includedir": str(installation.includedir),
        "headers": args.header,
    }
    makefile, block = settings_block(values)
    if args.update:
        old = (target / "Makefile").read_text()
        if SETTINGS_BEGIN not in old or SETTINGS_END not in old:
            fail(f"{target / 'Makefile'}: the settings markers are gone; cannot update "
                 f"(restore the lines '{SETTINGS_BEGIN}' and '{SETTINGS_END}')")
        begin, end = old.index(SETTINGS_BEGIN), old.index(SETTINGS_END) + len(SETTINGS_END)
        write_atomically(target / "Makefile", old[:begin] + block + old[end:])
        print(f"scorep-libwrap-init: updated the settings in {target / 'Makefile'}; run make again")
    else:
        env = workdir_environment()
        suffix = ".cc" if args.language == "c++" else ".c"
        files = {
            "Makefile": makefile,
            "libwrap.h": env.get_template("libwrap.h.j2").render(s=values),
            f"main{suffix}": env.get_template("main.c.j2").render(s=values),
            f"{args.name}.filter": env.get_template("filter.j2").render(s=values),
            f"{args.name}.params": env.get_template("params.j2").render(s=values),
            # docs/LIBWRAP.md explains every step, variable and message
            "README.md": (TEMPLATES_DIR.parent / "docs" / "LIBWRAP.md").read_text(),
        }
        # written beside the target and renamed into place: nothing half-written
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = pathlib.Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
        for name, text in files.items():
            (staging / name).write_text(text)
        if target.exists():
            target.rmdir()
        os.replace(staging, target)
        print(f"scorep-libwrap-init: created {target}")
    for lib in found:
        kinds = [k for k, path in (("shared", lib.shared_path), ("static", lib.static_path)) if path]
        print(f"  library {lib.name}: " + ", ".join(
            f"{k} {path}" for k, path in (("shared", lib.shared_path), ("static", lib.static_path)) if path))
        if "shared" not in kinds:
            print(f"  warning: no shared version of {lib.name}: run-time wrapping (LD_PRELOAD, "
                  f"scorep-exec) needs one; link-time wrapping works")
    print("next steps:\n"
          f"  cd {args.directory}\n"
          "  edit libwrap.h (the headers to wrap) and main" + (".cc" if args.language == "c++" else ".c") +
          " (an example calling the library)\n"
          "  make              # wrappers and libraries; lists what it leaves out\n"
          "  make check        # functions missing from the library, or linking without it\n"
          "  make install      # into LIBWRAP_PREFIX\n"
          "  make installcheck # every mode measures the example's calls\n"
          f"  then: scorep --libwrap={args.name} <link command>, or scorep-exec --libwrap={args.name} -- ./app")
    return 0


# ---- scorep-libwrap <step> ---------------------------------------------------------

def step_parser():
    p = argparse.ArgumentParser(prog="scorep-libwrap",
                                description="the steps of a libwrap working directory's Makefile")
    p.add_argument("step", choices=("generate", "check", "install", "installcheck"))
    p.add_argument("--name", required=True)
    p.add_argument("--display-name", default="")
    p.add_argument("-x", dest="language", required=True, choices=("c", "c++"))
    p.add_argument("--cc", required=True)
    p.add_argument("--cppflags", default="")
    p.add_argument("--ldflags", default="")
    p.add_argument("--libs", default="")
    p.add_argument("--ellipsis-mapping", default="")
    p.add_argument("--variadic-is-void", default="")
    p.add_argument("--dependency-dirs", default="")
    p.add_argument("--address-compared", default="")
    p.add_argument("--prefix", default="")
    p.add_argument("--directory", default=".")
    return p


def settings_from(args, installation):
    return Settings(
        name=args.name, display_name=args.display_name or args.name, language=args.language,
        cc=args.cc, cppflags=shlex.split(args.cppflags), ldflags=shlex.split(args.ldflags),
        libs=shlex.split(args.libs), workdir=pathlib.Path(args.directory).resolve(),
        filter_tool=str(installation.bindir / "scorep-filter"),
        ellipsis_mapping=parse_mapping(args.ellipsis_mapping.split()),
        variadic_is_void=set(args.variadic_is_void.split()),
        dependency_dirs=shlex.split(args.dependency_dirs),
        address_compared=args.address_compared.split())


def library_names(name):
    lt, rt = f"scorep_libwrap_{name}_linktime", f"scorep_libwrap_{name}_runtime"
    return [f.format(lt=lt, rt=rt) for f in LIBRARY_FILES]


def install(settings, prefix, say=print):
    """Libraries into PREFIX/lib, the description (N.libwrap.json) and the
    link-time flags into PREFIX/share/scorep-wrapgen/libwrap/."""
    prefix = pathlib.Path(prefix)
    libdir, share = prefix / "lib", wrapper_share(prefix)
    metadata_path = settings.path(".libwrap.json")
    if not metadata_path.exists():
        fail(f"{metadata_path.name}: missing (run make first)")
    metadata = json.loads(metadata_path.read_text())
    libdir.mkdir(parents=True, exist_ok=True)
    share.mkdir(parents=True, exist_ok=True)
    for name in library_names(settings.name):
        source = settings.workdir / name
        if not source.exists():
            fail(f"{name}: missing (run make first)")
        shutil.copy2(source, libdir / (name + ".tmp"))
        os.replace(libdir / (name + ".tmp"), libdir / name)
    flags = share / f"{settings.name}.linktime.flags"
    shutil.copy2(settings.path(".linktime.flags"), flags)
    shutil.copy2(settings.path(".wrap"), share / f"{settings.name}.wrap")
    # paths relative to the description, so a moved prefix keeps working
    metadata["libdir"] = os.path.relpath(libdir, share)
    metadata["linktime_flags"] = flags.name
    metadata["function_list"] = f"{settings.name}.wrap"
    write_atomically(share / f"{settings.name}.libwrap.json", json.dumps(metadata, indent=2) + "\n")
    say(f"scorep-libwrap: installed wrapper '{settings.name}' ({metadata['functions']} functions) "
        f"into {prefix}: {libdir}, {share}")


def step_main(argv, installation):
    args = step_parser().parse_args(joined_values(argv))
    settings = settings_from(args, installation)
    if args.step == "generate":
        from .workflow import generate
        generate(settings, installation.includedir)
    elif args.step == "check":
        from .workflow import check
        check(settings)
    elif args.step == "install":
        install(settings, args.prefix or installation.prefix)
    elif args.step == "installcheck":
        from .installcheck import installcheck
        return installcheck(settings, pathlib.Path(args.prefix or installation.prefix), installation)
    return 0


def run(main, argv, installation):
    try:
        return main(argv, installation)
    except SpecError as e:
        prog = "scorep-libwrap-init" if main is init_main else "scorep-libwrap"
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 1
