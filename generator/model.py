"""The procedure model every front-end produces and every back-end reads.

An MPI procedure from an apis.json spec and a function libclang finds in a
library header become the same objects, so tasks work for both.
"""
from dataclasses import dataclass, field, replace
from typing import Optional

DIRECTIONS = ("in", "out", "inout")


@dataclass(frozen=True)
class Parameter:
    name: str
    kind: str
    direction: str = "in"
    length: object = None          # None, a parameter name, "*", a constant name, or a list
    optional: bool = False
    constant: bool = False
    pointer: Optional[bool] = None
    large_only: bool = False
    asynchronous: bool = False
    root_only: bool = False
    suppress: frozenset = frozenset()
    func_type: str = ""
    array_type: str = ""
    desc: str = ""
    # Library functions (header front-end): the C/C++ type exactly as the
    # compiler spells it, fully qualified, and a declarator pattern with
    # "{name}" where the parameter's name goes ("double (*{name})[2]").
    c_type: str = ""
    c_declarator: str = ""

    def in_binding(self, binding):
        """Whether the parameter appears in the given binding's signature."""
        token = {"c": "c_parameter", "f90": "f90_parameter", "f08": "f08_parameter"}[binding]
        return token not in self.suppress

    @property
    def is_array(self):
        return self.length is not None


@dataclass(frozen=True)
class Procedure:
    name: str
    return_kind: str
    parameters: tuple
    attributes: dict = field(default_factory=dict, compare=False, hash=False)
    since: Optional[str] = None     # first MPI version that has it
    removed: Optional[str] = None   # MPI version that removed it, if any
    origin: str = ""                # the spec file it was last defined in
    large_count: bool = False       # True for the expanded `_c` variant

    @property
    def is_callback(self):
        return bool(self.attributes.get("callback"))

    @property
    def is_predefined_function(self):
        return bool(self.attributes.get("predefined_function"))

    @property
    def is_procedure(self):
        """A real procedure users call (not a callback prototype or predefined function)."""
        return not (self.is_callback or self.is_predefined_function)

    def has_binding(self, binding):
        return bool(self.attributes.get(f"{binding}_expressible"))

    def params_for(self, binding):
        return [p for p in self.parameters
                if p.in_binding(binding) and (self.large_count or not p.large_only)]

    def parameter(self, name):
        for p in self.parameters:
            if p.name == name:
                return p
        return None

    @property
    def starts_persistent_request(self):
        """MPI_<operation>_init: creates a persistent request (the standard's
        naming), which MPI_Start(all) starts again and again."""
        base = self.name[:-2] if self.large_count else self.name
        return base.endswith("_init") and any(
            p.kind == "REQUEST" and p.direction == "out" for p in self.parameters)

    @property
    def has_large_count_variant(self):
        return (not self.large_count and not self.is_callback
                and any(p.kind.startswith("POLY") for p in self.parameters))

    def large_count_variant(self):
        return replace(self, name=self.name + "_c", large_count=True)
