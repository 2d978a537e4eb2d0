"""`regenerate`: every file under generated/, rendered from specs/, tasks/, templates/."""
import pathlib

GENERATED_DIR = pathlib.Path(__file__).resolve().parent.parent / "generated"


def regenerate(output=GENERATED_DIR, quiet=False):
    from .kinds import load_kinds
    from .render import render_all
    from .specs import load_spec
    kinds = load_kinds()
    spec = load_spec(kinds=kinds)
    return render_all(spec, kinds, pathlib.Path(output), quiet=quiet)
