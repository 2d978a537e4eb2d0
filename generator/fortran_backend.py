"""Fortran (`mpif.h` / `use mpi`) back-end: one C wrapper per Fortran symbol.

The wrappers are written in C, with the C task snippets (tasks/<task>.c.j2):
a wrapper has the Fortran calling convention of the library's Fortran layer
(every argument by reference, a hidden length per string at the end) and
calls the profiling symbol of the same binding (`pmpi_send_`) with the user's
own arguments, so MPI gets choice buffers, MPI_BOTTOM, MPI_IN_PLACE, ignore
objects, strings, LOGICALs, callbacks and integer handles exactly as given.

The snippets were written for C arguments. Each argument a task reads gets a
*view*: a C local with the C binding's type, converted from the Fortran
argument (handles with MPI_<H>_f2c, statuses with scorep_mpi_status_f2c, 1-based
indices to 0-based, LOGICAL to int, the library's Fortran MPI_IN_PLACE and
MPI_STATUS(ES)_IGNORE addresses to the C constants), and the snippet sees the
view's name as its argument. Only those arguments are converted: before the
call if the argument goes into MPI, after it if MPI writes it, and only in a
measured call unless a hook that runs in every call (pre_call, post_call)
reads it. A snippet that lends MPI a status (the user passed
MPI_STATUS_IGNORE) lends it on the view; the wrapper then passes MPI a
Fortran status of its own and converts it back.

Names: the wrapper is a static function; the probe says under which names the
library exports the procedure (mpi_send_, mpi_send, mpi_send__, MPI_SEND) and
the wrapper is aliased to each (SCOREP_MPIF_ALIASES_<proc>), and which
profiling symbol to call (SCOREP_MPIF_PNAME_<proc>).
"""
import re

from .errors import SpecError
from .kinds import CRenderer
from .snippets import Args, add_hooks, context_of, task_loader
from .tasks import HOOKS, TaskUse, WrapperPlan

# C type of a Fortran argument, by its kinds.json `f90` text.
def fortran_c_type(f90):
    if "ADDRESS_KIND" in f90:
        return "MPI_Aint"
    if "COUNT_KIND" in f90:
        return "MPI_Count"
    if "OFFSET_KIND" in f90:
        return "MPI_Offset"
    if f90.startswith(("INTEGER", "LOGICAL")):
        return "MPI_Fint"
    if f90.startswith("DOUBLE"):
        return "double"
    if f90.startswith("CHARACTER"):
        return "char"
    return "void"


HANDLE_F2C = {"MPI_Comm": "Comm", "MPI_Datatype": "Type", "MPI_Group": "Group",
              "MPI_Request": "Request", "MPI_Win": "Win", "MPI_Message": "Message",
              "MPI_Op": "Op", "MPI_Info": "Info", "MPI_File": "File",
              "MPI_Errhandler": "Errhandler", "MPI_Session": "Session"}


def fortran_params(kinds, proc):
    """Parameters of the mpif.h / use mpi binding (C-only ones have no f90 type)."""
    return [p for p in proc.params_for("f90") if kinds[p.kind]["f90"]]


class Views:
    """The C views of the Fortran arguments one wrapper's tasks read."""

    def __init__(self, kinds, proc, params):
        self.kinds, self.proc = kinds, proc
        self.c = CRenderer(kinds)
        self.params = {p.name: p for p in params}
        self.decls, self.names = [], {}
        self.before, self.after = [], []     # (param name, code)
        self.call_arg = {}                   # param -> expression passed to MPI
        self.after_call_setup = []           # code between pre_call and the call
        self.slots = 0                       # per-thread scratch arrays used

    def expression(self, name):
        """What a snippet sees as the argument `name`, declaring its view."""
        if name in self.names:
            return self.names[name]
        p = self.params[name]
        entry = self.kinds[p.kind]
        cls = entry.get("class")
        v = f"scorep_f_{name}"
        ctype = self.c.base_type(p, False)
        if cls == "status":
            expr = self.status_view(p, v)
        elif cls == "choice":
            self.decls.append(f"void* {v} = NULL;")
            self.before.append((name, f"{v} = {name} == scorep_mpif_in_place ? MPI_IN_PLACE\n"
                                      f"    : {name} == scorep_mpif_bottom ? MPI_BOTTOM : (void*){name};"))
            expr = v
        elif p.is_array:
            expr = self.array_view(p, v, ctype, cls, entry)
        else:
            element = self.element(p, f"*{name}", ctype, cls, entry)
            self.decls.append(f"{ctype} {v};")
            code = f"{v} = {element};"
            if p.direction in ("in", "inout"):
                self.before.append((name, code))
            if p.direction in ("out", "inout"):
                self.after.append((name, code))
            expr = f"(&{v})" if self.c.is_pointer(p) else v
        self.names[name] = expr
        return expr

    def element(self, p, x, ctype, cls, entry):
        if cls == "handle":
            return f"MPI_{HANDLE_F2C[entry['handle_type']]}_f2c({x})"
        if cls == "index" and p.direction == "out":
            return f"({x} == MPI_UNDEFINED ? MPI_UNDEFINED : (int){x} - 1)"
        if cls == "logical":
            return f"({x} != 0)"
        if cls in ("integer", "count", "address", "offset", "index"):
            return f"({ctype}){x}"
        raise SpecError(f"the Fortran back-end cannot give a task the {p.kind} argument "
                        f"'{p.name}' as a C value", entry=self.proc.name)

    def length(self, p, filled=False):
        """Elements of an array argument: its length parameter, else its
        request array's length (the capacity of Waitsome's out arrays; with
        filled=True the out count MPI returned); datatype arrays of unknown
        length: the peers of the communicator (or the neighbour count)."""
        names = [q.name for q in self.params.values()]
        if isinstance(p.length, str) and p.length in self.params:
            return f"(int)*{p.length}"
        if filled and p.direction == "out" and "outcount" in names:
            return "(*outcount == MPI_UNDEFINED ? 0 : (int)*outcount)"
        requests = [q for q in self.params.values() if q.kind == "REQUEST" and q.is_array]
        if requests and isinstance(requests[0].length, str) and requests[0].length in self.params:
            return f"(int)*{requests[0].length}"
        if p.kind == "DATATYPE" and "comm" in names:
            neighbor = 1 if "neighbor" in self.proc.name.lower() else 0
            receive = 1 if p.name.startswith("recv") else 0
            return f"scorep_mpif_type_array_length(*comm, {neighbor}, {receive})"
        raise SpecError(f"the Fortran back-end does not know the length of array '{p.name}'",
                        entry=self.proc.name)

    def array_view(self, p, v, ctype, cls, entry):
        f90 = fortran_c_type(entry["f90"])
        if cls == "integer" or (cls == "count" and f90 == "MPI_Fint" and ctype == "int"):
            if ctype in ("int", "MPI_Fint") and f90 == "MPI_Fint":
                self.decls.append(f"{ctype}* {v} = ({ctype}*){p.name};")
                return v
        slot, self.slots = self.slots, self.slots + 1
        n = self.length(p)
        filled = self.length(p, filled=True)
        self.decls.append(f"{ctype}* {v} = NULL;")
        element = self.element(p, f"{p.name}[scorep_i]", ctype, cls, entry)
        code = (f"{v} = scorep_mpif_scratch({slot}, {n}, sizeof *{v});\n"
                f"for (int scorep_i = 0; scorep_i < {filled}; scorep_i++)\n"
                f"    {v}[scorep_i] = {element};")
        if p.direction in ("in", "inout"):
            self.before.append((p.name, code))
        if p.direction in ("out", "inout"):
            self.after.append((p.name, code))
        return v

    def status_view(self, p, v):
        name = p.name
        if p.is_array:
            n = self.length(p)
            filled = self.length(p, filled=True)
            self.decls.append(f"MPI_Status* {v} = MPI_STATUSES_IGNORE;")
            self.decls.append(f"MPI_Fint* scorep_fa_{name} = {name};")
            self.before.append((name, f"{v} = {name} == scorep_mpif_statuses_ignore ? MPI_STATUSES_IGNORE\n"
                                      f"    : scorep_mpif_c_statuses({n});"))
            self.after_call_setup.append(
                f"if ({v} != MPI_STATUSES_IGNORE && {name} == scorep_mpif_statuses_ignore)\n"
                f"    scorep_fa_{name} = scorep_mpif_lent_statuses({n});")
            self.after.append((name, f"if ({v} != MPI_STATUSES_IGNORE)\n"
                                     f"    for (int scorep_i = 0; scorep_i < {filled}; scorep_i++)\n"
                                     f"        scorep_mpi_status_f2c(scorep_fa_{name} + (size_t)scorep_i * scorep_mpif_status_size, &{v}[scorep_i]);"))
        else:
            self.decls.append(f"MPI_Status scorep_c_{name};")
            self.decls.append(f"MPI_Status* {v} = MPI_STATUS_IGNORE;")
            # aligned as a C status: read in place after the call (below)
            self.decls.append(f"_Alignas(MPI_Status) MPI_Fint scorep_lent_{name}[SCOREP_MPIF_MAX_STATUS_SIZE];")
            self.decls.append(f"MPI_Fint* scorep_fa_{name} = {name};")
            self.before.append((name, f"{v} = {name} == scorep_mpif_status_ignore ? MPI_STATUS_IGNORE : &scorep_c_{name};"))
            self.after_call_setup.append(
                f"if ({v} != MPI_STATUS_IGNORE && {name} == scorep_mpif_status_ignore)\n"
                f"    scorep_fa_{name} = scorep_lent_{name};")
            # the Fortran status itself where the library's conversion is a copy
            self.after.append((name, f"if ({v} != MPI_STATUS_IGNORE) {{\n"
                                     f"    const MPI_Status* scorep_in_place = "
                                     f"scorep_mpi_status_from_fortran(scorep_fa_{name}, {v});\n"
                                     f"    if (scorep_in_place) {v} = (MPI_Status*)scorep_in_place;\n"
                                     f"}}"))
        self.call_arg[name] = f"scorep_fa_{name}"
        return v


class ViewArgs(Args):
    """A task's arguments as C views, each made when a snippet first reads it
    (an argument only `w.fortran` reads gets no conversion)."""
    def __init__(self, views, args):
        super().__init__(args)
        self.views = views

    def __getattr__(self, key):
        pname = self.get(key)
        return self.views.expression(pname) if pname else None


def render_hooks(env, plan, views):
    hooks = {hook: [] for hook in HOOKS}
    for use in plan.tasks:
        module = env.get_template(f"{use.name}.c.j2").module
        context = context_of(WrapperPlan(plan.proc, plan.group, plan.role, plan.file, []),
                             TaskUse(use.name, {}, use.options))
        context.a = ViewArgs(views, use.args)
        context.fortran = Args(use.args)
        add_hooks(module, context, HOOKS, hooks)
    return {hook: "\n".join(parts) for hook, parts in hooks.items()}


def uses_of(text, expression):
    return re.search(re.escape(expression.strip("(&)")) + r"\b", text) is not None


def wrapper_record(env, kinds, plan, index):
    proc = plan.proc
    if proc.return_kind not in ("ERROR_CODE", "NOTHING"):
        raise SpecError("the Fortran back-end wraps subroutines only (exclude functions in the "
                        "task catalogue)", entry=proc.name)
    params = fortran_params(kinds, proc)
    views = Views(kinds, proc, params)
    hooks = render_hooks(env, plan, views)
    # Which conversions a wrapper makes: an argument MPI reads before the call
    # (and an inout one a hook reads before the call), one MPI writes after it
    # (and an inout one a hook reads after it); in every call if a hook that
    # runs in every call reads it, else in measured calls only.
    before_text = hooks["enter"] + "\n" + hooks["pre_call"]
    after_text = hooks["post_call"] + "\n" + hooks["exit"]
    always_text = hooks["pre_call"] + "\n" + hooks["post_call"]
    def split(pairs, when_text):
        always, measured = [], []
        for name, code in pairs:
            view = f"scorep_f_{name}"
            if views.params[name].direction == "inout" and not uses_of(when_text, view):
                continue
            (always if uses_of(always_text, view) else measured).append(code)
        return "\n".join(always), "\n".join(measured)
    before_always, before_measured = split(views.before, before_text)
    after_always, after_measured = split(views.after, after_text)
    decls, strings = [], []
    for p in params:
        entry = kinds[p.kind]
        ctype = fortran_c_type(entry["f90"])
        if entry.get("class") in ("function",):
            ctype = "void"
        decls.append(f"{ctype}* {p.name}")
        if ctype == "char":
            strings.append(p.name)
    decls += [f"size_t scorep_len_{s}" for s in strings]
    call_args = [views.call_arg.get(p.name, p.name) for p in params] + [f"scorep_len_{s}" for s in strings]
    has_ierror = any(p.name == "ierror" for p in params)
    return {
        "name": proc.name, "symbol": proc.name, "index": index, "group": plan.group, "role": plan.role,
        "parameters": ", ".join(decls) or "void",
        "call_args": ", ".join(call_args),
        "has_ierror": has_ierror,
        "view_decls": "\n".join(views.decls),
        "before_always": before_always, "before_measured": before_measured,
        "after_always": after_always, "after_measured": after_measured,
        "call_setup": "\n".join(views.after_call_setup),
        "hooks": hooks, "tasks": [u.name for u in plan.tasks],
    }


def plan_fortran_wrappers(spec, catalogue):
    """Every mpif.h / use mpi procedure the catalogue does not exclude, with its plan."""
    plans, excluded = [], []
    for proc in spec.callable_procedures():
        if not proc.has_binding("f90") or proc.large_count:
            continue
        why = catalogue.excluded(proc.name, "f90")
        if why:
            excluded.append((proc.name, why))
            continue
        plans.append(catalogue.plan(proc, "f90"))
    return plans, excluded


def has_cptr_variant(proc):
    """MPI 3.0's `use mpi` has a TYPE(C_PTR) overload of each procedure that
    returns a base address (MPI_Alloc_mem, MPI_Win_allocate(_shared),
    MPI_Win_shared_query): an out C_BUFFER that is an address integer in Fortran."""
    return any(p.kind == "C_BUFFER" and p.direction == "out" for p in proc.params_for("f90"))


def fortran_names(name):
    """The symbols a Fortran compiler may give the procedure, most common first."""
    lower = name.lower()
    return [lower + "_", lower, lower + "__", name.upper()]


def render_fortran_adapter(env, spec, kinds, catalogue, output, write):
    plans, excluded = plan_fortran_wrappers(spec, catalogue)
    env_tasks = env.overlay(loader=task_loader(env, catalogue))
    groups = catalogue.groups["all"]
    records = [wrapper_record(env_tasks, kinds, plan, i) for i, plan in enumerate(plans)]
    files, symbols = {}, []
    for plan, record in zip(plans, records):
        files.setdefault(plan.file, []).append(record)
        symbols.append(record)
        if has_cptr_variant(plan.proc):
            # `use mpi` overloads it for a TYPE(C_PTR) base pointer
            # (MPI_ALLOC_MEM_CPTR, ...): the same arguments by reference, a
            # symbol of its own, the same region
            variant = dict(record, symbol=record["name"] + "_cptr")
            files[plan.file].append(variant)
            symbols.append(variant)
    out = output / "mpi" / "fortran"
    write(out / "scorep_mpi_fortran_tables.c", env.get_template("fortran/tables.c.j2").render(
        wrappers=records, groups=groups))
    for name in sorted(files):
        write(out / f"wrap_{name}.c", env.get_template("fortran/wrappers.c.j2").render(
            chapter=name, wrappers=files[name]))
    write(out / "meson.build", env.get_template("fortran/meson.build.j2").render(
        files=[f"wrap_{name}.c" for name in sorted(files)]))
    write(output / "mpi" / "probes" / "fortran-procedures.txt",
          "".join(f"{r['symbol']} {' '.join(fortran_names(r['symbol']))}\n" for r in symbols))
    write(out / "excluded.txt", "".join(f"{name}: {why}\n" for name, why in excluded))
    return records, excluded
