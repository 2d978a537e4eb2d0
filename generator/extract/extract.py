"""`python3 -m generator extract-spec`: mpi.h (MPICH 4.0.2) -> specs/mpi-4.0.apis.json.

The header gives names, C types and const; rules.py turns them into kinds,
directions and lengths; the `_c` twin of a procedure says which parameters are
POLY (their type changes in the large-count variant); the override file supplies
what neither can know; the extra file adds what mpi.h does not declare as a
prototype with named parameters (callbacks, Fortran-only procedures).
"""
import fnmatch
import json
import re
import pathlib
from dataclasses import replace

from ..errors import SpecError
from ..kinds import load_kinds
from ..specs import PARAM_DEFAULTS, read_json
from . import rules
from .header import parse_header

EXTRACT_DIR = pathlib.Path(__file__).resolve().parents[2] / "specs" / "extract"
DEFAULT_HEADER = "/usr/include/x86_64-linux-gnu/mpich/mpi.h"

ATTRIBUTE_DEFAULTS = {
    "c_expressible": True, "f90_expressible": True, "f08_expressible": True,
    "lis_expressible": True, "callback": False, "predefined_function": None,
    "deprecated": False, "not_with_mpif": False, "f08_abstract_interface": True,
    "execute_once": False, "capitalized": False, "f90_index_overload": None,
    "f90_use_colons": False, "index_upper": False, "proxy_render": False,
}


def matches(value, pattern):
    return pattern is None or fnmatch.fnmatchcase(value, pattern)


def first_rule(table, *values):
    for rule in table:
        if all(matches(v, pat) for v, pat in zip(values, rule[:-1])):
            return rule[-1]
    return None


def base_type(ctype):
    """`const int *` -> `int`; `int *[3]` (an array of triples) -> `int`."""
    return re.sub(r"\[\d*\]", "", ctype.replace("const ", "").replace("*", "")).strip()


def pointer_depth(ctype):
    return ctype.count("*")


def kind_of(proc_name, param):
    base = base_type(param.type)
    if base in rules.TYPE_KINDS:
        return rules.TYPE_KINDS[base], ""
    if base in rules.EVENT_FUNCTION_TYPES:
        return rules.EVENT_FUNCTION_TYPES[base], ""
    if base in rules.FUNCTION_TYPES:
        return "FUNCTION", base
    kind = first_rule(rules.NAME_KINDS, param.name, base, proc_name)
    if kind is None:
        raise SpecError(f"no rule gives a kind for C type '{param.type}'",
                        entry=proc_name, parameter=param.name)
    return kind, ""


def direction_of(proc_name, param):
    rule = first_rule(rules.DIRECTIONS, param.name, proc_name)
    if rule:
        return rule
    if "*" not in param.type or param.is_const:
        return "in"
    if base_type(param.type) in rules.FUNCTION_TYPES or base_type(param.type) in rules.EVENT_FUNCTION_TYPES:
        return "in"
    return "out"


def standard_name(proc_name, header_name):
    return first_rule(rules.RENAMES, header_name, proc_name) or header_name


def make_param(name, kind, direction, **fields):
    param = {"name": name, "kind": kind, "param_direction": direction,
             "lis_direction": direction}
    param.update({k: v for k, v in PARAM_DEFAULTS.items()})
    param.update(fields)
    return {k: param[k] for k in sorted(param)}


def ierror_param():
    return make_param("ierror", "ERROR_CODE", "out", optional=True,
                      suppress="c_parameter lis_parameter")


def is_poly(small, large):
    return large is not None and base_type(small.type) != base_type(large.type)


def length_of(proc_name, param, names):
    """The array length rule's answer, or the output string's buffer size."""
    if base_type(param.type) == "char" and pointer_depth(param.type) == 1:
        length = first_rule(rules.STRING_LENGTHS, param.name, proc_name)
        return length if length or not param.is_array else "*"
    is_array = param.is_array or pointer_depth(param.type) > 1 and "char" in param.type
    if not is_array:
        return None
    for rule in rules.LENGTHS:
        if matches(param.name, rule[0]) and matches(proc_name, rule[1]):
            length = rule[2]
            if isinstance(length, list) or length in (None, "*") or length in names:
                return length
    return "*"


def renamed(proc_name, params):
    return tuple(replace(p, name=standard_name(proc_name, p.name)) for p in params)


def pointer_flag(param, cparam, kinds):
    """`pointer` is set only where the header's pointer-ness differs from what the
    kind and direction imply (an input passed by pointer, like MPI_Cancel's request;
    MPI_Info_create_env's argv as char *argv[] instead of char ***)."""
    entry = kinds[param["kind"]]
    if param["length"] is not None and not isinstance(param["length"], str) or \
            param["length"] not in (None, "*") and entry.get("class") != "string_array":
        return None
    if entry.get("c_declarator_nopointer"):
        return False if pointer_depth(cparam.type) < 3 else None
    if "c_declarator" in entry or entry.get("c_by_pointer") or entry.get("class") == "choice":
        return None
    if param["length"] is not None:
        return None
    implied = param["param_direction"] in ("out", "inout")
    actual = pointer_depth(cparam.type) > 0 and not cparam.is_array
    return None if implied == actual else actual


def poly_kind(kind, large_only, changes_type, kinds):
    """POLY when the `_c` variant changes the type, or for a large-only parameter
    whose kind exists only as POLY."""
    if changes_type or large_only and kind not in kinds:
        return "POLY" + kind
    return kind


def procedure_entry(func, large, kinds):
    name = func.name
    small_params = {p.name: p for p in renamed(name, func.params)}
    large_params = {p.name: p for p in renamed(name, large.params)} if large else {}
    # The large-count variant's order places its extra parameters where they belong;
    # the small variant's types decide the small kinds.
    ordered = (list(large_params) if large_params and set(small_params) <= set(large_params)
               else list(small_params))
    names = set(small_params) | set(large_params)
    params = []
    for pname in ordered:
        large_only = pname not in small_params
        p = large_params[pname] if large_only else small_params[pname]
        kind, func_type = kind_of(name, p)
        kind = poly_kind(kind, large_only, is_poly(p, large_params.get(pname)), kinds)
        param = make_param(p.name, kind, direction_of(name, p),
                           length=length_of(name, p, names), constant=p.is_const,
                           func_type=func_type, large_only=large_only)
        param["pointer"] = pointer_flag(param, p, kinds)
        params.append(param)
    if func.variadic:
        params.append(make_param("varargs", "VARARGS", "in"))
    attributes = dict(ATTRIBUTE_DEFAULTS)
    if any(fnmatch.fnmatchcase(name, pat) for pat in rules.NO_FORTRAN):
        attributes.update(f90_expressible=False, f08_expressible=False)
    if any(fnmatch.fnmatchcase(name, pat) for pat in rules.NO_LIS):
        attributes.update(lis_expressible=False)
    if name in rules.NO_F08:
        attributes.update(f08_expressible=False)
    return_kind = first_rule(rules.RETURN_KINDS, name)
    if return_kind is None:
        if func.result != "int":
            raise SpecError(f"no rule gives the return kind of C type '{func.result}'", entry=name)
        return_kind = "ERROR_CODE"
        if not func.variadic:   # MPI_Pcontrol has no Fortran ierror
            params.append(ierror_param())
    return {"name": name, "name_f90": None, "return_kind": return_kind,
            "attributes": attributes, "parameters": params}


def apply_overrides(entries, overrides, path):
    for name, change in overrides.get("procedures", {}).items():
        entry = entries.get(name.lower())
        if entry is None:
            raise SpecError("override names a procedure the header does not declare",
                            file=path, entry=name)
        if "return_kind" in change:
            entry["return_kind"] = change["return_kind"]
        entry["attributes"].update(change.get("attributes", {}))
        by_name = {p["name"]: p for p in entry["parameters"]}
        for pname, fields in change.get("parameters", {}).items():
            if pname not in by_name:
                raise SpecError(f"override names no parameter of {name}", file=path,
                                entry=name, parameter=pname)
            by_name[pname].update(fields)
            if "param_direction" in fields:
                by_name[pname]["lis_direction"] = fields["param_direction"]


def extract(header=DEFAULT_HEADER, extract_dir=EXTRACT_DIR, clang_args=(), kinds=None):
    kinds = kinds if kinds is not None else load_kinds()
    functions, macros = parse_header(header, clang_args)
    overrides_path = pathlib.Path(extract_dir) / "overrides-4.0.json"
    overrides = read_json(overrides_path)
    excluded = set(overrides.get("not_in_4.0", []))
    entries = {}
    for name, func in sorted(functions.items()):
        if (name.endswith("_c") and name[:-2] in functions or name in excluded
                or is_handle_conversion(name)):
            continue
        entries[name.lower()] = procedure_entry(func, functions.get(name + "_c"), kinds)
    for name, entry in sorted(handle_conversion_entries(macros, functions).items()):
        entries.setdefault(name.lower(), entry)
    apply_overrides(entries, overrides, overrides_path)
    extra_path = pathlib.Path(extract_dir) / "extra-4.0.apis.json"
    for key, entry in read_json(extra_path).items():
        if key in entries:
            raise SpecError("the header already declares it", file=extra_path, entry=entry["name"])
        entries[key] = entry
    for name, callback in overrides.get("predefined_functions", {}).items():
        proto = entries.get(callback.lower())
        if proto is None:
            raise SpecError(f"callback '{callback}' is not in the spec", file=overrides_path,
                            entry=name)
        attributes = dict(proto["attributes"], callback=False, predefined_function=callback)
        entries[name.lower()] = dict(proto, name=name, attributes=attributes)
    return entries


HANDLES = {  # handle type -> (C kind, Fortran kind)
    "Comm": ("COMMUNICATOR", "F90_COMM"), "Errhandler": ("ERRHANDLER", "F90_ERRHANDLER"),
    "File": ("FILE", "F90_FILE"), "Group": ("GROUP", "F90_GROUP"), "Info": ("INFO", "F90_INFO"),
    "Message": ("MESSAGE", "F90_MESSAGE"), "Op": ("OPERATION", "F90_OP"),
    "Request": ("REQUEST", "F90_REQUEST"), "Session": ("SESSION", "F90_SESSION"),
    "Type": ("DATATYPE", "F90_DATATYPE"), "Win": ("WINDOW", "F90_WIN"),
}


HANDLE_PARAMS = {"Type": "datatype"}


def is_handle_conversion(name):
    parts = name.split("_")
    return len(parts) == 3 and parts[1] in HANDLES and parts[2] in ("c2f", "f2c")


def handle_conversion_entries(macros, functions):
    """MPI_<Handle>_c2f / _f2c: MPICH defines them as macros; the rule is uniform."""
    entries = {}
    for handle, (c_kind, f_kind) in HANDLES.items():
        for direction, (arg_kind, ret_kind) in (("c2f", (c_kind, f_kind)), ("f2c", (f_kind, c_kind))):
            name = f"MPI_{handle}_{direction}"
            if name not in macros and name not in functions:
                continue
            attributes = dict(ATTRIBUTE_DEFAULTS, f90_expressible=False, f08_expressible=False,
                              lis_expressible=False)
            entries[name] = {"name": name, "name_f90": None, "return_kind": ret_kind,
                             "attributes": attributes,
                             "parameters": [make_param(HANDLE_PARAMS.get(handle, handle.lower()),
                                                       arg_kind, "in"), ierror_param()]}
    return entries


def write_spec(entries, path):
    text = json.dumps({k: entries[k] for k in sorted(entries)}, indent=4, sort_keys=True)
    pathlib.Path(path).write_text(text + "\n")
