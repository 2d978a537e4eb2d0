"""MPI front-end: load every specs/*.apis.json, validate, merge across versions.

A version file `mpi-<X.Y>.apis.json` holds what MPI X.Y added (or changed);
`removed.apis.json` holds interfaces the standard removed but libraries still
ship. A procedure carries the first version it appears in and, if any, the
version that removed it.
"""
import json
import pathlib
import re
from dataclasses import replace

from .errors import SpecError
from .kinds import load_kinds
from .model import DIRECTIONS, Parameter, Procedure

SPECS_DIR = pathlib.Path(__file__).resolve().parent.parent / "specs"
VERSION_FILE = re.compile(r"^mpi-(\d+)\.(\d+)\.apis\.json$")
REMOVED_FILE = "removed.apis.json"

ENTRY_FIELDS = ("name", "return_kind", "parameters", "attributes")
PARAM_FIELDS = ("name", "kind", "param_direction")
PARAM_DEFAULTS = {
    "length": None, "optional": False, "constant": False, "pointer": None,
    "large_only": False, "asynchronous": False, "root_only": False,
    "suppress": "", "func_type": "", "array_type": "", "desc": "",
}
# A length may name an MPI constant (MPI_MAX_PORT_NAME) or be "*" (decided at run time).
LENGTH_CONSTANT = re.compile(r"^(\*|MPI_[A-Z_]+|\d+)$")


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except json.JSONDecodeError as e:
        raise SpecError(f"not valid JSON: {e.msg} at line {e.lineno} column {e.colno}", file=path)
    except OSError as e:
        raise SpecError(f"cannot read: {e.strerror}", file=path)


def parse_parameter(raw, path, entry_name, kinds):
    if not isinstance(raw, dict):
        raise SpecError("a parameter is not a JSON object", file=path, entry=entry_name)
    pname = raw.get("name")
    for field in PARAM_FIELDS:
        if field not in raw:
            raise SpecError(f"missing field '{field}'", file=path, entry=entry_name,
                            parameter=pname)
    if raw["kind"] not in kinds:
        raise SpecError(f"unknown kind '{raw['kind']}'", file=path, entry=entry_name,
                        parameter=pname)
    if raw["param_direction"] not in DIRECTIONS:
        raise SpecError(f"unknown direction '{raw['param_direction']}' (expected one of "
                        f"{', '.join(DIRECTIONS)})", file=path, entry=entry_name, parameter=pname)
    values = {k: raw.get(k, default) for k, default in PARAM_DEFAULTS.items()}
    return Parameter(
        name=pname, kind=raw["kind"], direction=raw["param_direction"],
        length=tuple(values["length"]) if isinstance(values["length"], list) else values["length"],
        optional=bool(values["optional"]), constant=bool(values["constant"]),
        pointer=values["pointer"], large_only=bool(values["large_only"]),
        asynchronous=bool(values["asynchronous"]), root_only=bool(values["root_only"]),
        suppress=frozenset(values["suppress"].split()), func_type=values["func_type"],
        array_type=values["array_type"], desc=values["desc"])


def check_lengths(proc, path):
    names = {p.name for p in proc.parameters}
    for p in proc.parameters:
        lengths = p.length if isinstance(p.length, tuple) else (p.length,)
        for length in lengths:
            if length is None:
                continue
            if not isinstance(length, str) or not (length in names or LENGTH_CONSTANT.match(length)):
                raise SpecError(f"length {length!r} names no parameter of {proc.name} "
                                f"(nor '*', a number or an MPI_ constant)",
                                file=path, entry=proc.name, parameter=p.name)


def parse_entry(key, raw, path, kinds, version):
    if not isinstance(raw, dict):
        raise SpecError("entry is not a JSON object", file=path, entry=key)
    for field in ENTRY_FIELDS:
        if field not in raw:
            raise SpecError(f"missing field '{field}'", file=path, entry=raw.get("name", key))
    name = raw["name"]
    if key != name.lower():
        raise SpecError(f"key '{key}' is not the lower-case name", file=path, entry=name)
    if raw["return_kind"] not in kinds and raw["return_kind"] != "NOTHING":
        raise SpecError(f"unknown return kind '{raw['return_kind']}'", file=path, entry=name)
    if not isinstance(raw["parameters"], list):
        raise SpecError("'parameters' is not a list", file=path, entry=name)
    params = tuple(parse_parameter(p, path, name, kinds) for p in raw["parameters"])
    seen = set()
    for p in params:
        if p.name in seen:
            raise SpecError("duplicate parameter", file=path, entry=name, parameter=p.name)
        seen.add(p.name)
    attributes = dict(raw["attributes"])
    proc = Procedure(name=name, return_kind=raw["return_kind"], parameters=params,
                     attributes=attributes, since=attributes.get("since", version),
                     removed=attributes.get("removed"), origin=path.name)
    check_lengths(proc, path)
    return proc


def version_key(version):
    return tuple(int(x) for x in version.split("."))


def spec_files(specs_dir):
    """Version files in version order, then the removed-interfaces file."""
    specs_dir = pathlib.Path(specs_dir)
    versions = []
    for path in sorted(specs_dir.glob("*.apis.json")):
        m = VERSION_FILE.match(path.name)
        if m:
            versions.append((f"{m.group(1)}.{m.group(2)}", path))
        elif path.name != REMOVED_FILE:
            raise SpecError("unexpected spec file name (expected mpi-<major>.<minor>.apis.json "
                            f"or {REMOVED_FILE})", file=path)
    versions.sort(key=lambda v: version_key(v[0]))
    if not versions:
        raise SpecError("no mpi-<version>.apis.json file", file=specs_dir)
    removed = specs_dir / REMOVED_FILE
    return versions, (removed if removed.exists() else None)


class MpiSpec:
    """The merged MPI spec: every procedure with its version range."""

    def __init__(self, procedures, versions):
        self.procedures = procedures      # lower-case name -> Procedure
        self.versions = versions          # version strings, ascending

    def __iter__(self):
        return iter(self.procedures[k] for k in sorted(self.procedures))

    def __getitem__(self, name):
        return self.procedures[name.lower()]

    def __contains__(self, name):
        return name.lower() in self.procedures

    def in_version(self, version):
        """Procedures of the given MPI version: present by then and not yet removed."""
        v = version_key(version)
        return [p for p in self if version_key(p.since) <= v
                and (p.removed is None or version_key(p.removed) > v)]

    def callable_procedures(self):
        """What a wrapper generator wraps: real procedures plus their `_c` variants."""
        for proc in self:
            if not proc.is_procedure:
                continue
            yield proc
            if proc.has_large_count_variant:
                yield proc.large_count_variant()


def load_spec(specs_dir=SPECS_DIR, kinds=None):
    kinds = kinds if kinds is not None else load_kinds()
    versions, removed_file = spec_files(specs_dir)
    procedures = {}
    for version, path in versions:
        raw = read_json(path)
        if not isinstance(raw, dict):
            raise SpecError("top level is not a JSON object keyed by procedure name", file=path)
        for key in sorted(raw):
            proc = parse_entry(key, raw[key], path, kinds, version)
            earlier = procedures.get(key)
            if earlier is not None:
                # A later standard's definition replaces the earlier one; the version
                # it appeared in stays.
                proc = replace(proc, since=earlier.since)
            procedures[key] = proc
    if removed_file:
        raw = read_json(removed_file)
        for key in sorted(raw):
            proc = parse_entry(key, raw[key], removed_file, kinds, "1.0")
            if proc.removed is None:
                raise SpecError("entry in the removed-interfaces file has no 'removed' "
                                "attribute", file=removed_file, entry=proc.name)
            if key in procedures:
                raise SpecError(f"also defined in {procedures[key].origin}; a removed "
                                "interface belongs in one file only", file=removed_file,
                                entry=proc.name)
            procedures[key] = proc
    return MpiSpec(procedures, [v for v, _ in versions])
