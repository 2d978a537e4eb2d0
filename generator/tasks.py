"""Task catalogue (tasks/scorep.json): which tasks each wrapper gets, with arguments.

A rule matches procedure names (regex over the name without `_c`); the first
matching rule gives the measurement group, the region role and the tasks. A
task names the procedure arguments it reads; each is bound explicitly in the
rule or, where the parameter kind says enough, by kind (the procedure's only
parameter of a matching kind, or the one named like the argument). Auxiliary
tasks a task needs are added once per wrapper; conflicting tasks are an error.
A task may declare its options (`"options": {"direction": {"values": ["read",
"write"]}}`): a rule must then give each one without a `default`, with one of
its `values`, and no other; a task that declares none takes any.
"""
import json
import pathlib
import re
from dataclasses import dataclass, field

from .errors import SpecError

TASKS_DIR = pathlib.Path(__file__).resolve().parent.parent / "tasks"
ROLES = ("function", "wrapper", "point2point", "collective", "barrier", "one2all",
         "all2one", "all2all", "file_io", "rma", "artificial", "allocate", "deallocate", "reallocate",
         "file_io_metadata", "atomic",
         # OpenMP's constructs (tasks/omp.json)
         "parallel", "loop", "implicit_barrier", "single", "single_sblock", "critical", "critical_sblock",
         "sections", "section", "ordered", "ordered_sblock", "task", "task_create", "task_wait", "master",
         "workshare")
HOOKS = ("decl", "enter", "pre_call", "post_call", "exit")


@dataclass
class TaskUse:
    name: str
    args: dict                    # task argument -> procedure parameter name (or None)
    options: dict = field(default_factory=dict)


@dataclass
class WrapperPlan:
    proc: object
    group: str
    role: str
    file: str
    tasks: list                   # TaskUse, auxiliary ones first


class Catalogue:
    def __init__(self, path=TASKS_DIR / "scorep.json", extra_rules=()):
        """extra_rules go before the catalogue's own (a library wrapper's
        per-function rules, e.g. from its N.params file)."""
        self.path = pathlib.Path(path)
        try:
            raw = json.loads(self.path.read_text())
        except json.JSONDecodeError as e:
            raise SpecError(f"not valid JSON: {e.msg} at line {e.lineno}", file=self.path)
        for key in ("groups", "tasks", "rules", "exclude"):
            if key not in raw:
                raise SpecError(f"missing top-level field '{key}'", file=self.path)
        self.groups = raw["groups"]
        self.tasks = raw["tasks"]
        self.rules = list(extra_rules) + raw["rules"]
        # MPI names their large-count variants NAME_c and gives both one rule;
        # a library catalogue sets this false so that a `_c` name is its own.
        self.large_count_names = raw.get("large_count_names", True)
        self.exclude = raw["exclude"]
        # a library catalogue may give its regions a paradigm of their own (caf)
        self.paradigm = raw.get("paradigm")
        self.files = raw.get("files", {})
        # Exclusions for the mpi_f08 binding only (a Fortran generic with no one specific).
        self.exclude_f08 = raw.get("exclude_f08", [])
        self._check()

    def _check(self):
        names = self.groups["all"]
        for i, rule in enumerate(self.rules):
            where = f"rule {i + 1} ('{rule.get('match')}')"
            try:
                rule["_re"] = re.compile(rule["match"] + "$", re.IGNORECASE)
            except (KeyError, re.error) as e:
                raise SpecError(f"bad 'match': {e}", file=self.path, entry=where)
            if rule.get("group") not in names:
                raise SpecError(f"unknown group '{rule.get('group')}' (groups: {', '.join(names)})",
                                file=self.path, entry=where)
            if rule.get("role", "function") not in ROLES:
                raise SpecError(f"unknown role '{rule.get('role')}'", file=self.path, entry=where)
            for use in rule.get("tasks", []):
                task = use if isinstance(use, str) else use.get("task")
                if task not in self.tasks:
                    raise SpecError(f"unknown task '{task}'", file=self.path, entry=where)
                self._check_options(task, {} if isinstance(use, str) else use.get("options", {}),
                                    where)
        for entry in self.exclude + self.exclude_f08:
            entry["_re"] = re.compile(entry["match"] + "$", re.IGNORECASE)
            if not entry.get("why"):
                raise SpecError("an exclusion needs a 'why'", file=self.path, entry=entry["match"])
            unknown = set(entry.get("bindings", [])) - {"c", "f90", "f08"}
            if unknown:
                raise SpecError(f"unknown binding(s) {', '.join(sorted(unknown))} (bindings: c, f90, f08)",
                                file=self.path, entry=entry["match"])

    def _check_options(self, task, given, where):
        """A rule's options against the task's declaration, if it has one: a
        wrong or missing option is a generation-time error, not a snippet that
        silently takes its other branch."""
        declared = self.tasks[task].get("options")
        if declared is None:
            return
        for option in given:
            if option not in declared:
                raise SpecError(f"task '{task}' has no option '{option}' (options: "
                                f"{', '.join(sorted(declared)) or 'none'})", file=self.path, entry=where)
        for option, spec in declared.items():
            if option not in given:
                if "default" not in spec:
                    raise SpecError(f"task '{task}' needs option '{option}' (one of "
                                    f"{', '.join(map(str, spec.get('values', [])))})",
                                    file=self.path, entry=where)
            elif "values" in spec and given[option] not in spec["values"]:
                raise SpecError(f"task '{task}' option '{option}' is '{given[option]}', not one of "
                                f"{', '.join(map(str, spec['values']))}", file=self.path, entry=where)

    def base(self, name):
        return base_name(name) if self.large_count_names else name

    def excluded(self, name, binding="c"):
        """Why the procedure is not wrapped in this binding (an exclusion may
        name the bindings it applies to), or None."""
        base = self.base(name)
        return next((e["why"] for e in self.exclude if e["_re"].match(base)
                     and binding in e.get("bindings", [binding])), None)

    def excluded_f08(self, name):
        base = self.base(name)
        return next((e["why"] for e in self.exclude_f08 if e["_re"].match(base)), None)

    def plan(self, proc, binding="c"):
        base = self.base(proc.name)
        rule = next((r for r in self.rules if r["_re"].match(base)), None)
        if rule is None:
            raise SpecError("no rule in the task catalogue matches", file=self.path, entry=proc.name)
        uses = []
        for use in rule.get("tasks", []):
            use = {"task": use} if isinstance(use, str) else use
            uses.append(self.bind(proc, use["task"], use.get("args", {}), use.get("options", {}),
                                  binding))
        uses = self.with_auxiliaries(proc, uses, binding)
        group = rule["group"]
        return WrapperPlan(proc=proc, group=group, role=rule.get("role", "function"),
                           file=self.files.get(group, group.lower()), tasks=uses)

    def bind(self, proc, task, explicit, options, binding):
        spec = self.tasks[task]
        params = {p.name: p for p in proc.params_for(binding)}
        args = {}
        for arg, want in spec.get("args", {}).items():
            want = want if isinstance(want, dict) else {"kinds": want}
            if arg in explicit:
                pname = explicit[arg]
                if pname is not None and pname not in params:
                    raise SpecError(f"task '{task}' argument '{arg}' names '{pname}', which "
                                    f"{proc.name} does not have", file=self.path, entry=proc.name,
                                    parameter=pname)
                args[arg] = pname
                continue
            matching = [p for p in params.values() if kind_matches(p.kind, want["kinds"])
                        and p.direction == want.get("direction", p.direction)]
            named = [p for p in matching if p.name == arg]
            if want.get("optional"):
                # Optional arguments bind by name only: a procedure either has them or not.
                args[arg] = named[0].name if named else None
            elif len(named or matching) == 1:
                args[arg] = (named or matching)[0].name
            else:
                found = ", ".join(p.name for p in matching) or "none"
                raise SpecError(f"task '{task}' needs argument '{arg}' of kind "
                                f"{'|'.join(want['kinds'])}; candidates: {found}; bind it in the "
                                f"rule's 'args'", file=self.path, entry=proc.name)
        unknown = set(explicit) - set(spec.get("args", {}))
        if unknown:
            raise SpecError(f"task '{task}' has no argument(s) {', '.join(sorted(unknown))}",
                            file=self.path, entry=proc.name)
        defaults = {name: o["default"] for name, o in spec.get("options", {}).items() if "default" in o}
        return TaskUse(task, args, dict(defaults, **options))

    def with_auxiliaries(self, proc, uses, binding):
        names = [u.name for u in uses]
        for u in uses:
            for other in self.tasks[u.name].get("conflicts", []):
                if other in names:
                    raise SpecError(f"tasks '{u.name}' and '{other}' conflict", file=self.path,
                                    entry=proc.name)
        aux, seen = [], set()

        def add(task):
            for need in self.tasks[task].get("needs", []):
                if need not in seen:
                    add(need)
                    seen.add(need)
                    aux.append(self.bind(proc, need, {}, {}, binding))
        for u in uses:
            add(u.name)
        return aux + uses


def base_name(name):
    return name[:-2] if name.endswith("_c") else name


def kind_matches(kind, kinds):
    bare = kind[4:] if kind.startswith("POLY") else kind
    return kind in kinds or bare in kinds
