"""C back-end: one wrapper per C procedure, from the skeleton and the task snippets."""
from .kinds import CRenderer
from .snippets import add_hooks, context_of, task_loader
from .tasks import HOOKS


def render_hooks(env, plan, language="c", names=HOOKS):
    hooks = {hook: [] for hook in names}
    for use in plan.tasks:
        module = env.get_template(f"{use.name}.{language}.j2").module
        add_hooks(module, context_of(plan, use), names, hooks)
    return {hook: "\n".join(parts) for hook, parts in hooks.items()}


def removed_callback_typedefs(proc, c, removed_callbacks):
    """typedefs of the removed callback types a removed procedure's parameters
    use (MPI_Handler_function), which the library's mpi.h may omit."""
    return [f"typedef {c.prototype(removed_callbacks[p.func_type], parenthesize=True)};"
            for p in proc.params_for("c") if p.func_type in removed_callbacks]


def wrapper_record(env, plan, c, removed_callbacks=None):
    proc = plan.proc
    params = proc.params_for("c")
    return {
        "typedefs": removed_callback_typedefs(proc, c, removed_callbacks or {}),
        "name": proc.name,
        "group": plan.group,
        "role": plan.role,
        "prototype": c.prototype(proc),
        # a removed procedure's declarations, which the library's mpi.h may omit
        "removed": bool(proc.removed), "removed_in": proc.removed,
        "pprototype": c.prototype(proc, name="P" + proc.name),
        "return_type": c.return_type(proc),
        "call_args": ", ".join(p.name for p in params if p.kind != "VARARGS"),
        "hooks": render_hooks(env, plan),
        "tasks": [u.name for u in plan.tasks],
    }


def plan_c_wrappers(spec, catalogue):
    """Every C procedure the catalogue does not exclude, with its plan."""
    plans, excluded = [], []
    for proc in spec.callable_procedures():
        if not proc.has_binding("c"):
            continue
        why = catalogue.excluded(proc.name)
        if why:
            excluded.append((proc.name, why))
            continue
        plans.append(catalogue.plan(proc, "c"))
    return plans, excluded


def render_c_adapter(env, spec, kinds, catalogue, output, write):
    c = CRenderer(kinds)
    plans, excluded = plan_c_wrappers(spec, catalogue)
    env_tasks = env.overlay(loader=task_loader(env, catalogue))
    removed_callbacks = {p.name: p for p in spec if p.is_callback and p.removed}
    records = [wrapper_record(env_tasks, plan, c, removed_callbacks) for plan in plans]
    files = {}
    for plan, record in zip(plans, records):
        files.setdefault(plan.file, []).append(record)
    out = output / "mpi" / "c"
    groups = catalogue.groups
    write(out / "scorep_mpi_tables.h", env.get_template("c/tables.h.j2").render(
        wrappers=records, groups=groups["all"], default_groups=groups["default"]))
    write(out / "scorep_mpi_tables.c", env.get_template("c/tables.c.j2").render(
        wrappers=records, groups=groups["all"], default_groups=groups["default"]))
    for name in sorted(files):
        write(out / f"wrap_{name}.c", env.get_template("c/wrappers.c.j2").render(
            chapter=name, wrappers=files[name]))
    write(out / "meson.build", env.get_template("c/meson.build.j2").render(
        files=["scorep_mpi_tables.c"] + [f"wrap_{name}.c" for name in sorted(files)]))
    write(output / "mpi" / "probes" / "c-procedures.txt",
          "".join(f"{r['name']}\n" for r in records))
    write(output / "mpi" / "c" / "excluded.txt",
          "".join(f"{name}: {why}\n" for name, why in excluded))
    only_enter_exit = sorted(r["name"] for r in records if not r["tasks"])
    return records, excluded, only_enter_exit
