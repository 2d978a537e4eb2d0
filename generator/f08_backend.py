"""Fortran 2008 (`use mpi_f08`) back-end: one wrapper subroutine per procedure.

Each wrapper has the dummy arguments of the mpi_f08 procedure and calls the
PMPI_ generic of the mpi_f08 module with the user's own arguments. Its name is
a macro (SCOREP_F08_NAME_<proc>) that the configure probe sets to the specific
the library exports (mpi_send_f08_, mpi_send_f08ts_, ...), so the wrapper
overrides the library's own specific; no probe hit, no wrapper.

Task snippets are tasks/<task>.f08.j2 with the hook macros of the C snippets,
plus three optional ones: `contains(w)` adds internal procedures to the
wrapper, `imports(w)` names mpi_f08 entities the snippet uses,
`substitute(w)` lines `parameter=expression` replacing a call argument (the
way a C snippet reassigns a status pointer to lend MPI a status of its own).
"""
import re

from .snippets import add_hooks, context_of, task_loader
from .errors import SpecError
from .tasks import HOOKS, base_name

MPI_NAME = re.compile(r"\bMPI_[A-Za-z0-9_]+\b")
# Entities every wrapper may mention (names of the hook code in the skeleton).
BASE_IMPORTS = ("MPI_SUCCESS",)


def f08_type(kinds, param, large):
    entry = kinds[param.kind]
    text = (large and entry.get("f08_large")) or entry["f08"]
    return text.format(func_type=param.func_type) if text else ""


def dummy_declaration(kinds, param, large):
    """The dummy argument's declaration, without intent: a wrapper passes every
    argument through, and the library's own interface already checked the
    user's call (an intent here could only refuse what the PMPI_ generic accepts)."""
    text = f08_type(kinds, param, large)
    entry = kinds[param.kind]
    if param.name == "ierror":
        return f"integer, optional :: {param.name}"
    if entry.get("class") == "choice":
        return None      # decided by the probe: see choice_declaration
    attrs = [text]
    if param.is_array and entry.get("class") not in ("string", "string_array"):
        if isinstance(param.length, tuple):
            attrs.append(f"dimension({','.join(str(n) for n in param.length[1:])},*)")
        else:
            attrs.append("dimension(*)")
    if entry.get("class") == "status" or param.is_array and entry.get("class") not in ("string", "string_array"):
        attrs.append("target")       # tasks take its address (statuses, count arrays)
    if param.asynchronous:
        attrs.append("asynchronous")
    return f"{', '.join(attrs)} :: {param.name}"


def choice_declaration(name, param):
    """TS 29113 `type(*), dimension(..)` where the library exports a `ts`
    specific; otherwise the ignore-TKR form the library's module uses."""
    asyn = ", asynchronous" if param.asynchronous else ""
    return (f"#if SCOREP_F08_TS_{name}\n"
            f"    type(*), dimension(..){asyn} :: {param.name}\n"
            f"#else\n"
            f"    !GCC$ ATTRIBUTES NO_ARG_CHECK :: {param.name}\n"
            f"    type(*), dimension(*){asyn} :: {param.name}\n"
            f"#endif")


def f08_params(kinds, proc):
    """Parameters of the mpi_f08 binding (C-only ones like argc/argv have no F08 type)."""
    return [p for p in proc.params_for("f08") if f08_type(kinds, p, proc.large_count)]


# Fortran-only hooks: internal procedures of the wrapper (after `contains`),
# and begin/end: a task's variant of the skeleton's begin or end call that
# folds its own first or last work into the same call into C. At most one
# task per wrapper replaces each; a snippet that sets `folds` to the names of
# other tasks (space-separated) does their replacement's work too, so its
# variant takes the place of theirs (send's begin also names the
# communicator, comm_id's begin).
REPLACING_HOOKS = ("begin", "end")
F08_HOOKS = HOOKS + ("contains",) + REPLACING_HOOKS


def render_hooks(env, plan):
    hooks = {hook: [] for hook in F08_HOOKS}
    imports, substitutes, missing = set(), {}, []
    replacing = {h: [] for h in REPLACING_HOOKS}     # hook -> [(task, text, tasks it folds)]
    for use in plan.tasks:
        try:
            module = env.get_template(f"{use.name}.f08.j2").module
        except Exception as e:           # jinja2.TemplateNotFound
            if type(e).__name__ != "TemplateNotFound":
                raise
            missing.append(use.name)
            continue
        context = context_of(plan, use)
        own = {hook: [] for hook in F08_HOOKS}
        add_hooks(module, context, F08_HOOKS, own)
        folds = set(str(getattr(module, "folds", "")).split())
        for h in F08_HOOKS:
            if h in REPLACING_HOOKS:
                if own[h]:
                    replacing[h].append((use.name, "\n".join(own[h]), folds))
            else:
                hooks[h] += own[h]
        if getattr(module, "imports", None) is not None:
            imports.update(str(module.imports(context)).split())
        if getattr(module, "substitute", None) is not None:
            for line in str(module.substitute(context)).split():
                param, expr = line.split("=", 1)
                substitutes[param] = expr
    for h, variants in replacing.items():
        folded = set().union(*(folds for _, _, folds in variants))
        kept = [(task, text) for task, text, _ in variants if task not in folded]
        if len(kept) > 1:
            raise SpecError(f"tasks '{kept[0][0]}' and '{kept[1][0]}' both replace the F08 "
                            f"wrapper's {h} call", entry=plan.proc.name)
        hooks[h] = [text for _, text in kept]
    return {h: "\n".join(parts) for h, parts in hooks.items()}, imports, substitutes, missing


def wrapper_record(env, kinds, plan, index):
    proc = plan.proc
    if proc.return_kind not in ("ERROR_CODE", "NOTHING"):
        raise SpecError("the F08 back-end wraps subroutines only (exclude functions in the "
                        "task catalogue)", entry=proc.name)
    params = f08_params(kinds, proc)
    hooks, imports, substitutes, missing = render_hooks(env, plan)
    decls, types = [], set()
    for p in params:
        decl = dummy_declaration(kinds, p, proc.large_count)
        if decl is None:
            decls.append(choice_declaration(proc.name, p))
        else:
            decls.append("    " + decl)
            types.update(MPI_NAME.findall(f08_type(kinds, p, proc.large_count)))
    has_ierror = any(p.name == "ierror" for p in params)
    plain = [p.name for p in params if p.name != "ierror"] + (["scorep_ierror"] if has_ierror else [])
    call_args = [substitutes.get(name, name) for name in plain]
    # mpi_f08 has one generic for both count kinds: MPI_Send_c is PMPI_Send with a large count.
    pmpi = "P" + base_name(proc.name)
    uses = sorted(types | imports | set(BASE_IMPORTS) | {pmpi}, key=str.lower)
    return {
        "name": proc.name, "pmpi": pmpi, "index": index, "group": plan.group, "role": plan.role,
        "dummies": ", ".join(p.name for p in params),
        "declarations": "\n".join(decls),
        "uses": uses, "call_args": ", ".join(call_args), "probe_args": ", ".join(plain), "has_ierror": has_ierror,
        "c_ptr": any("C_PTR" in f08_type(kinds, p, proc.large_count) for p in params),
        "hooks": hooks, "tasks": [u.name for u in plan.tasks], "missing_tasks": missing,
        "large_count": proc.large_count,
    }


def plan_f08_wrappers(spec, catalogue):
    """Every mpi_f08 procedure the catalogue does not exclude, with its plan."""
    plans, excluded = [], []
    for proc in spec.callable_procedures():
        if not proc.has_binding("f08"):
            continue
        why = catalogue.excluded(proc.name, "f08") or catalogue.excluded_f08(proc.name)
        if why:
            excluded.append((proc.name, why))
            continue
        plans.append(catalogue.plan(proc, "f08"))
    return plans, excluded


def fortran_lines(text):
    """Continue lines longer than gfortran's free-form limit (132) with `&`; cpp directives at column 1."""
    out = []
    for line in text.split("\n"):
        if line.lstrip().startswith("#"):
            line = line.lstrip()      # cpp directives start in column 1
        while len(line) > 120 and not line.lstrip().startswith(("#", "!")):
            cut = line.rfind(", ", 0, 118)
            if cut < 0:
                break
            out.append(line[:cut + 1] + " &")
            line = "        " + line[cut + 2:]
        out.append(line)
    return "\n".join(out)


def render_f08_adapter(env, spec, kinds, catalogue, output, write):
    plans, excluded = plan_f08_wrappers(spec, catalogue)
    env_tasks = env.overlay(loader=task_loader(env, catalogue))
    groups = catalogue.groups["all"]
    records = [wrapper_record(env_tasks, kinds, plan, i) for i, plan in enumerate(plans)]
    for record in records:  # the bit of SCOREP_MPI_GROUP_<group> (templates/c/tables.h.j2)
        record["group_bit"] = groups.index(record["group"])
    files = {}
    for plan, record in zip(plans, records):
        files.setdefault(plan.file, []).append(record)
    out = output / "mpi" / "f08"
    write(out / "scorep_mpi_f08_tables.c", env.get_template("f08/tables.c.j2").render(
        wrappers=records, groups=groups))
    for name in sorted(files):
        write(out / f"wrap_{name}.F90", fortran_lines(env.get_template("f08/wrappers.F90.j2").render(
            chapter=name, wrappers=files[name])))
    write(out / "probe_declarations.F90", fortran_lines(env.get_template("f08/probe.F90.j2").render(
        wrappers=records)))
    write(out / "meson.build", env.get_template("f08/meson.build.j2").render(
        files=[f"wrap_{name}.F90" for name in sorted(files)]))
    write(output / "mpi" / "probes" / "f08-procedures.txt",
          "".join(f"{r['name']}\n" for r in records))
    write(out / "excluded.txt", "".join(f"{name}: {why}\n" for name, why in excluded))
    missing = sorted({t for r in records for t in r["missing_tasks"]})
    write(out / "tasks-without-f08-snippet.txt",
          "# Tasks of tasks/scorep.json without tasks/<task>.f08.j2: F08 wrappers that use\n"
          "# them record enter/exit only (the C wrappers record the full event).\n"
          + "".join(f"{t}: {', '.join(r['name'] for r in records if t in r['missing_tasks'])}\n"
                    for t in missing))
    return records, excluded, missing
