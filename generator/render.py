"""Back-end driver: Jinja2 templates + the procedure model -> files in generated/."""
import json
import pathlib

import jinja2

from .kinds import CRenderer

TEMPLATES_DIR = pathlib.Path(__file__).resolve().parent.parent / "templates"


def environment():
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES_DIR)),
        undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
        keep_trailing_newline=True)


def procedure_record(proc):
    """The merged model of one procedure as plain data (generated/mpi/procedures.json)."""
    return {
        "name": proc.name, "since": proc.since, "removed": proc.removed,
        "return_kind": proc.return_kind, "large_count": proc.large_count,
        "bindings": [b for b in ("c", "f90", "f08") if proc.has_binding(b)],
        "callback": proc.is_callback, "origin": proc.origin,
        "parameters": [{"name": p.name, "kind": p.kind, "direction": p.direction,
                        "length": list(p.length) if isinstance(p.length, tuple) else p.length}
                       for p in proc.params_for("c") + [q for q in proc.parameters
                                                        if not q.in_binding("c")]],
    }


def write_if_changed(path, text, written):
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
    written.append(path)


def render_all(spec, kinds, output, quiet=False, catalogue=None):
    from .tasks import Catalogue
    catalogue = catalogue or Catalogue()
    env = environment()
    c = CRenderer(kinds)
    written = []
    procedures = list(spec.callable_procedures())
    records = [procedure_record(p) for p in procedures]
    # One procedure per line: a spec change shows as a readable diff.
    lines = ",\n".join(json.dumps(r, sort_keys=True) for r in records)
    write_if_changed(output / "mpi" / "procedures.json", f"[\n{lines}\n]\n", written)
    c_procs = [p for p in procedures if p.has_binding("c")]
    removed_callbacks = {p.name: p for p in spec if p.is_callback and p.removed}
    text = env.get_template("c/prototypes.h.j2").render(
        typedefs=[f"typedef {c.prototype(p, parenthesize=True)};" for p in removed_callbacks.values()],
        procedures=[{"proc": p, "prototype": c.prototype(p, parenthesize=True),
                     "pprototype": c.prototype(p, name="P" + p.name, parenthesize=True)}
                    for p in c_procs])
    write_if_changed(output / "mpi" / "c" / "prototypes.h", text, written)
    from .c_backend import render_c_adapter
    records, excluded, only_enter_exit = render_c_adapter(
        env, spec, kinds, catalogue, output, lambda path, text: write_if_changed(path, text, written))
    if not quiet:
        print(f"C adapter: {len(records)} wrappers, {len(excluded)} procedures excluded "
              f"(generated/mpi/c/excluded.txt says why)")
        print(f"C wrappers with enter/exit only (no task): {len(only_enter_exit)}")
        print("  " + " ".join(only_enter_exit))
    from .f08_backend import render_f08_adapter
    f08_records, f08_excluded, f08_missing = render_f08_adapter(
        env, spec, kinds, catalogue, output, lambda path, text: write_if_changed(path, text, written))
    if not quiet:
        print(f"F08 adapter: {len(f08_records)} wrappers, {len(f08_excluded)} procedures excluded "
              f"(generated/mpi/f08/excluded.txt), tasks without an F08 snippet: "
              f"{' '.join(f08_missing) or 'none'}")
    from .fortran_backend import render_fortran_adapter
    f_records, f_excluded = render_fortran_adapter(
        env, spec, kinds, catalogue, output, lambda path, text: write_if_changed(path, text, written))
    if not quiet:
        print(f"Fortran (mpif.h / use mpi) adapter: {len(f_records)} wrappers, {len(f_excluded)} "
              f"procedures excluded (generated/mpi/fortran/excluded.txt)")
    return written
