"""`regenerate`: every file under generated/, rendered from specs/, tasks/, templates/."""
import pathlib

GENERATED_DIR = pathlib.Path(__file__).resolve().parent.parent / "generated"


def regenerate(output=GENERATED_DIR, quiet=False, specs_dir=None, catalogue_path=None):
    """specs_dir and catalogue_path default to the project's specs/ and tasks/scorep.json."""
    from .kinds import load_kinds
    from .render import render_all
    from .specs import SPECS_DIR, load_spec
    from .tasks import TASKS_DIR, Catalogue
    kinds = load_kinds()
    spec = load_spec(specs_dir or SPECS_DIR, kinds=kinds)
    catalogue = Catalogue(catalogue_path or TASKS_DIR / "scorep.json")
    written = render_all(spec, kinds, pathlib.Path(output), quiet=quiet, catalogue=catalogue)
    # the Coarray Fortran adapter: libcaf.h + tasks/caf.json (generator/caf_backend.py)
    from .caf_backend import render_caf_adapter
    from .render import write_if_changed
    wrapped, excluded = render_caf_adapter(pathlib.Path(output),
                                           lambda path, text: write_if_changed(path, text, written))
    if not quiet:
        print(f"CAF adapter: {len(wrapped)} wrappers, {len(excluded)} functions excluded "
              f"(generated/caf/excluded.txt)")
    # the system adapters: the C library's headers + tasks/posix_io.json, ...
    # (generator/system_backend.py)
    from .system_backend import render_system_adapters
    adapters = render_system_adapters(pathlib.Path(output),
                                      lambda path, text: write_if_changed(path, text, written))
    if not quiet:
        for name, symbols in adapters.items():
            print(f"system adapter {name}: {len(symbols)} wrappers")
    return written
