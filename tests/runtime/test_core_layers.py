"""The measurement core's files stand on floors (docs/MAINTAINING.md, "The
core's floors"): a file calls files of its own floor or of floors below,
never above, and no files call each other in a circle. What a file calls is
read off the built objects with nm: an undefined symbol of one object that
another object defines. A call up a floor is allowed only where ALLOWED_UP_CALLS
names it with its reason; a new one fails here until it is either turned
into a registration (the lower file is handed a function at run time) or
added there with its reason."""
import collections
import fnmatch
import json
import pathlib
import shutil
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]

# Floors, lowest first, by folder of runtime/ (patterns of paths below it).
FLOORS = [
    ("util", ["util/*.c"]),
    ("core", ["core/*.c"]),
    ("substrates", ["profile/*.c", "trace/*.c", "cube_remapping_spec.c"]),
    ("lifecycle", ["lifecycle/*.c"]),
    ("adapter api", ["adapter_api/*.c"]),
    ("mpi layer", ["mpi/*.c"]),
]

# (caller, callee): why the call goes up a floor. Keep this short.
ALLOWED_UP_CALLS = {}

LIFECYCLE = "lifecycle/lifecycle.c"
# the life cycle is entered from above only: these may call it
CALLERS_OF_THE_LIFE_CYCLE = {"adapter_api/entry.c", "mpi/mpi_layer.c", "mpi/abort_peers.c"}


def floor_of(source):
    for index, (name, patterns) in enumerate(FLOORS):
        if any(fnmatch.fnmatch(source, pattern) for pattern in patterns):
            return index
    return None


def core_objects(build_dir):
    """{source path below runtime/: object file} of the core library and the MPI layer."""
    commands = json.loads((build_dir / "compile_commands.json").read_text())
    objects = {}
    for entry in commands:
        output = entry["output"]
        if not any(f"{lib}.so.p/" in output for lib in ("libscorep_measurement", "libscorep_mpi_layer")):
            continue
        source = (pathlib.Path(entry["directory"]) / entry["file"]).resolve()
        try:
            name = source.relative_to(REPO / "runtime").as_posix()
        except ValueError:
            name = source.name   # generated into the build directory
        objects[name] = build_dir / output
    return objects


def call_graph(objects):
    """{file: {file it calls}} and {(caller, callee): symbols}."""
    defined, undefined = {}, {}
    for name, obj in objects.items():
        out = subprocess.run(["nm", str(obj)], capture_output=True, text=True, check=True).stdout
        undefined[name] = set()
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == "U":
                undefined[name].add(parts[1])
            elif len(parts) == 3 and parts[1] in "TDBRCVWG":
                defined[parts[2]] = name
    graph, why = collections.defaultdict(set), collections.defaultdict(set)
    for name, symbols in undefined.items():
        graph.setdefault(name, set())
        for symbol in symbols:
            target = defined.get(symbol)
            if target and target != name:
                graph[name].add(target)
                why[(name, target)].add(symbol)
    return graph, why


def circles(graph):
    """The strongly connected components of more than one file."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in list(graph):
        if node not in index:
            visit(node)
    return found


@pytest.fixture(scope="module")
def references(build_dir):
    if not shutil.which("nm"):
        pytest.skip("nm not installed")
    objects = core_objects(build_dir)
    assert "core/events.c" in objects, \
        f"no core objects in {build_dir}/compile_commands.json: build with 'ninja -C {build_dir}'"
    missing = [str(obj) for obj in objects.values() if not obj.exists()]
    assert not missing, f"objects missing (build with 'ninja -C {build_dir}'): {missing[:5]}"
    return call_graph(objects)


def test_every_core_file_stands_on_a_floor(references):
    graph, _ = references
    homeless = sorted(name for name in graph if floor_of(name) is None)
    assert not homeless, f"core files on no floor of FLOORS: {homeless}"


def test_no_file_calls_up_a_floor_unless_allowed(references):
    graph, why = references
    up = {}
    for caller, callees in graph.items():
        for callee in callees:
            if floor_of(callee) is not None and floor_of(caller) is not None \
                    and floor_of(callee) > floor_of(caller) and (caller, callee) not in ALLOWED_UP_CALLS:
                up[f"{caller} ({FLOORS[floor_of(caller)][0]}) -> {callee} ({FLOORS[floor_of(callee)][0]})"] = \
                    sorted(why[(caller, callee)])
    assert not up, f"calls up a floor: {up}"


def test_no_core_files_call_each_other_in_a_circle(references):
    graph, why = references
    allowed = set(ALLOWED_UP_CALLS)
    pruned = {caller: {callee for callee in callees if (caller, callee) not in allowed}
              for caller, callees in graph.items()}
    found = circles(pruned)
    detail = [{f"{a} -> {b}": sorted(why[(a, b)])[:4] for a in circle for b in pruned[a] if b in circle}
              for circle in found]
    assert not found, f"call circles: {detail}"


def test_only_adapter_facing_files_call_into_the_life_cycle(references):
    graph, why = references
    callers = {member for member, targets in graph.items() if LIFECYCLE in targets}
    unexpected = {member: sorted(why[(member, LIFECYCLE)]) for member in callers - CALLERS_OF_THE_LIFE_CYCLE}
    assert not unexpected, f"lower files reference the life cycle: {unexpected}"
    assert "adapter_api/entry.c" in callers   # the first definition starts the measurement


def test_the_event_layer_knows_no_substrate_and_no_request_table(references):
    graph, why = references
    events = "core/events.c"
    substrate_files = {name for name in graph if FLOORS[floor_of(name)][0] == "substrates"}
    assert not graph[events] & substrate_files, \
        {callee: sorted(why[(events, callee)]) for callee in graph[events] & substrate_files}
    source = (REPO / "runtime" / events).read_text()
    for word in ("scorep_profile_node", "profile_current", "request_entry", "scorep_request "):
        assert word not in source, f"{events} names {word!r}"
