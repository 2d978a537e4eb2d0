"""The library- and compiler-specific special cases of library wrapping (the
header front-end, make installcheck's static mode), read from
library_rules.json: each rule has a name, a kind, the fields its kind
takes and the reason it exists. A rule of an unknown kind, without a field
its kind needs, with a field it does not take, or with a value of the wrong
type is an error that names the file, the rule and what is wrong."""
import functools
import json
import pathlib
import platform
import re
from dataclasses import dataclass

from ..errors import SpecError

RULES_FILE = pathlib.Path(__file__).resolve().parent / "library_rules.json"
LANGUAGES = ("c", "c++")

# kind -> {field: (type, required)}; every rule also has name, kind and reason
KINDS = {
    # members the library compares or stores the address of: not wrapped
    "address_compared_members": {
        "skip_reason": (str, True),              # what the skipped list says
        "annotation": (str, True),               # clang `annotate` text that marks one
        "marker_parameter_type": (str, False),   # a parameter of this class type marks one
        "declared_when": (str, True),            # regex: the header declares such members
        "annotation_missing": (str, True),       # the error when it does but shows no annotation
    },
    # the preprocessed text read with standard attribute lists before GNU ones
    "attribute_order": {},
    # a macro defined for the scan
    "define": {"define": (str, True), "languages": (list, True)},
    # a keyword clang does not know, defined as a type where no typedef names it
    "keyword_type": {"keyword": (str, True), "type": (str, True), "languages": (list, True),
                     "type_on_machines": (dict, False)},
    # -lNAME of these is kept as it is by make installcheck's static mode
    "c_library_parts": {"libraries": (list, True)},
    # DT_NEEDED entries starting so are left out of a static archive's dependencies
    "driver_linked_sonames": {"soname_prefixes": (list, True)},
}
COMMON = {"name": (str, True), "kind": (str, True), "reason": (str, True)}


class LibraryRuleError(SpecError):
    """A rule of library_rules.json that the front-end cannot use."""


@dataclass(frozen=True)
class Rule:
    name: str
    kind: str
    reason: str
    fields: dict

    def __getitem__(self, key):
        return self.fields[key]

    def get(self, key, default=None):
        return self.fields.get(key, default)


def _check(entry, position, path):
    label = entry.get("name") if isinstance(entry, dict) and isinstance(entry.get("name"), str) \
        else f"rule {position}"
    if not isinstance(entry, dict):
        raise LibraryRuleError(f"a rule is a JSON object, not {type(entry).__name__}",
                               file=path, entry=label)
    kind = entry.get("kind")
    if kind not in KINDS:
        raise LibraryRuleError(f"unknown kind {kind!r} (one of {', '.join(sorted(KINDS))})",
                               file=path, entry=label)
    wanted = {**COMMON, **KINDS[kind]}
    unknown = sorted(set(entry) - set(wanted))
    if unknown:
        raise LibraryRuleError(f"field(s) {', '.join(unknown)} not taken by kind '{kind}' "
                               f"(it takes {', '.join(sorted(wanted))})", file=path, entry=label)
    for key, (kind_of_value, required) in wanted.items():
        if key not in entry:
            if required:
                raise LibraryRuleError(f"field '{key}' missing (kind '{kind}' needs it)",
                                       file=path, entry=label)
            continue
        value = entry[key]
        if not isinstance(value, kind_of_value) or (kind_of_value is str and not value.strip()):
            raise LibraryRuleError(f"field '{key}' must be a non-empty {kind_of_value.__name__}, "
                                   f"not {value!r}", file=path, entry=label)
    for language in entry.get("languages", LANGUAGES):
        if language not in LANGUAGES:
            raise LibraryRuleError(f"field 'languages': {language!r} is not one of c, c++",
                                   file=path, entry=label)
    if "declared_when" in entry:
        try:
            re.compile(entry["declared_when"])
        except re.error as exc:
            raise LibraryRuleError(f"field 'declared_when': not a regular expression ({exc})",
                                   file=path, entry=label) from None
    return Rule(entry["name"], kind, entry["reason"],
                {k: v for k, v in entry.items() if k not in COMMON})


def load_rules(path=RULES_FILE):
    """The rules of a rules file, checked; LibraryRuleError names what is wrong."""
    path = pathlib.Path(path)
    try:
        data = json.loads(path.read_text())
    except OSError as exc:
        raise LibraryRuleError(f"cannot be read: {exc.strerror}", file=path) from None
    except json.JSONDecodeError as exc:
        raise LibraryRuleError(f"not JSON: {exc}", file=path) from None
    rules = data.get("rules") if isinstance(data, dict) else None
    if not isinstance(rules, list):
        raise LibraryRuleError("needs a list \"rules\" at the top level", file=path)
    checked = [_check(entry, position, path) for position, entry in enumerate(rules, 1)]
    names = [r.name for r in checked]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise LibraryRuleError("the name is given to more than one rule", file=path,
                               entry=repeated[0])
    return checked


@functools.lru_cache(maxsize=None)
def _default_rules():
    return tuple(load_rules())


def rules_of(kind, rules=None):
    """The rules of one kind (those of library_rules.json unless rules is given)."""
    return [r for r in (_default_rules() if rules is None else rules) if r.kind == kind]


def keyword_type(rule):
    """What a keyword_type rule defines its keyword as on this machine."""
    return rule.get("type_on_machines", {}).get(platform.machine(), rule["type"])


def named_in(kind, field, rules=None):
    """Every value a field of the rules of one kind lists."""
    return [value for rule in rules_of(kind, rules) for value in rule[field]]
