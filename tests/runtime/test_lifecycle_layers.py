"""The measurement's life cycle is one state machine in runtime/lifecycle.c
that the core's lower files never call up into (docs/MAINTAINING.md, "The
measurement's life cycle"). Checked on the built objects with nm: which
object references which object's symbols."""
import collections
import shutil
import subprocess

import pytest

# Files above the life cycle: they may call into it (adapter-facing entry
# points and the MPI layer).
CALLERS_OF_THE_LIFE_CYCLE = {"entry.c", "mpi_layer.c", "abort_peers.c"}


def object_references(*archives):
    """{object: {object it references}} and {(from, to): symbols} over the
    members of static archives."""
    defined, undefined = {}, collections.defaultdict(set)
    for archive in archives:
        out = subprocess.run(["nm", "-A", str(archive)], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            location, _, rest = line.rpartition(":")
            member = location.rsplit(":", 1)[-1].replace(".c.o", ".c").removeprefix("mpi_").removeprefix("trace_")
            parts = rest.split()
            if len(parts) == 2 and parts[0] == "U":
                undefined[member].add(parts[1])
            elif len(parts) == 3 and parts[1] in "TDBRCVW":
                defined[parts[2]] = member
            undefined.setdefault(member, set())
    graph, why = collections.defaultdict(set), collections.defaultdict(set)
    for member, symbols in undefined.items():
        for symbol in symbols:
            target = defined.get(symbol)
            if target and target != member:
                graph[member].add(target)
                why[(member, target)].add(symbol)
    return graph, why


def reaches(graph, start, goal):
    seen, todo = set(), [start]
    while todo:
        node = todo.pop()
        for nxt in graph.get(node, ()):
            if nxt == goal:
                return True
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return False


@pytest.fixture(scope="module")
def references(build_dir):
    if not shutil.which("nm"):
        pytest.skip("nm not installed")
    archives = [build_dir / "runtime" / "libscorep_measurement.a"]
    layer = build_dir / "runtime" / "libscorep_mpi_layer.a"
    if layer.exists():
        archives.append(layer)
    for archive in archives:
        assert archive.exists(), f"{archive} missing: build with 'ninja -C {build_dir}'"
    return object_references(*archives)


def test_only_adapter_facing_files_call_into_the_life_cycle(references):
    graph, why = references
    callers = {member for member, targets in graph.items() if "lifecycle.c" in targets}
    unexpected = {member: sorted(why[(member, "lifecycle.c")]) for member in callers - CALLERS_OF_THE_LIFE_CYCLE}
    assert not unexpected, f"lower files reference the life cycle: {unexpected}"
    assert "entry.c" in callers   # the first definition starts the measurement


def test_nothing_the_life_cycle_calls_calls_it_back(references):
    graph, why = references
    assert graph["lifecycle.c"], "lifecycle.c calls the lower files"
    cycle = [target for target in graph["lifecycle.c"] if reaches(graph, target, "lifecycle.c")]
    assert not cycle, f"files called by lifecycle.c that lead back to it: {sorted(cycle)}"
