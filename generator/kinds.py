"""The kind table (kinds.json) and the rules that render a parameter per language."""
import json
import pathlib

from .errors import SpecError

KINDS_FILE = pathlib.Path(__file__).with_name("kinds.json")


def load_kinds(path=KINDS_FILE):
    try:
        with open(path) as f:
            table = json.load(f)
    except json.JSONDecodeError as e:
        raise SpecError(f"not valid JSON: {e.msg} at line {e.lineno} column {e.colno}", file=path)
    except OSError as e:
        raise SpecError(f"cannot read the kind table: {e.strerror}", file=path)
    for kind, entry in table.items():
        for field in ("c", "f90", "f08"):
            if field not in entry:
                raise SpecError(f"kind has no '{field}' type", file=path, entry=kind)
    return table


class CRenderer:
    """Renders C declarations of parameters and prototypes from the kind table."""

    def __init__(self, kinds):
        self.kinds = kinds

    def base_type(self, param, large):
        entry = self.kinds[param.kind]
        if large and "c_large" in entry:
            return entry["c_large"]
        return entry["c"] or param.func_type

    def declaration(self, param, large=False):
        entry = self.kinds[param.kind]
        base = self.base_type(param, large)
        const = "const " if param.constant else ""
        pattern = (large and entry.get("c_large_declarator")
                   or param.pointer is False and entry.get("c_declarator_nopointer")
                   or entry.get("c_declarator"))
        if pattern:
            return const + pattern.format(name=param.name, type=param.func_type or base)
        if param.is_array:
            # A list length is a multi-dimensional array: ranges[][3].
            inner = "".join(f"[{n}]" for n in param.length[1:]) if isinstance(param.length, tuple) else ""
            return f"{const}{base} {param.name}[]{inner}"
        if self.is_pointer(param):
            return f"{const}{base} *{param.name}"
        return f"{base} {param.name}"

    def is_pointer(self, param):
        """Out/inout scalars are pointers in C, unless the spec says otherwise."""
        if param.pointer is not None:
            return bool(param.pointer)
        entry = self.kinds[param.kind]
        if entry.get("c_by_pointer") or entry.get("class") == "choice":
            return True
        return param.direction in ("out", "inout")

    def return_type(self, proc):
        if proc.return_kind in ("NOTHING", ""):
            return "void"
        entry = self.kinds[proc.return_kind]
        if proc.large_count and "c_large" in entry:
            return entry["c_large"]
        return entry["c"]

    def parameter_list(self, proc):
        params = proc.params_for("c")
        decls = [self.declaration(p, proc.large_count) for p in params]
        return ", ".join(decls) if decls else "void"

    def prototype(self, proc, name=None, parenthesize=False):
        """`int MPI_Send(const void *buf, ...)`; parenthesize guards against function-like macros."""
        name = name or proc.name
        if parenthesize:
            name = f"({name})"
        return f"{self.return_type(proc)} {name}({self.parameter_list(proc)})"
