"""This machine as two nodes, so that clocks that differ between nodes can be
tested on one machine: Open MPI starts its daemons, MPICH's
hydra its proxies, through tests/clock/emulated_node_agent, which gives "nodeb"
its own host name and a CLOCK_MONOTONIC 1000 s ahead of "nodea"'s (Open MPI's
messages between them go over TCP; MPICH's, Debian's ch4:ucx, over the
transports UCX picks). The trace must show the two
nodes, the measured offset, and no message going backwards in time, with
either timer and either MPI."""
import json
import pathlib
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import clock_oracle as oracle  # noqa: E402
from conftest import MPI_COMPILERS, mpi_build, mpirun  # noqa: E402

otf2 = pytest.importorskip("otf2")

AGENT = pathlib.Path(__file__).resolve().parent / "emulated_node_agent"
AHEAD = 1000  # seconds nodeb's CLOCK_MONOTONIC is ahead
# the launchers' ways to take an ssh-like agent and two hosts of two slots each
NODES = {
    "openmpi": ["--mca", "plm_rsh_agent", str(AGENT), "--host", "nodea:2,nodeb:2", "--mca", "btl", "self,tcp",
                "-x", "EMULATED_NODE_OFFSET_nodeb"],
    # hydra calls the agent like rsh (`agent <host> <proxy command>`) for
    # every host but this machine (its host name, localhost), and passes the
    # environment on
    "mpich": ["-launcher", "rsh", "-launcher-exec", str(AGENT), "-hosts", "nodea:2,nodeb:2"],
}


@pytest.fixture(scope="module", params=["openmpi", "mpich"])
def ring(request, tmp_path_factory):
    probe = subprocess.run(["unshare", "-u", "-T", "--monotonic", "1", "--fork", "true"], capture_output=True,
                           text=True)
    if probe.returncode != 0:
        pytest.skip(f"no UTS and time namespaces here (unshare: {probe.stderr.strip()})")
    mpi = request.param
    directory = tmp_path_factory.mktemp(f"two_nodes_{mpi}")
    program = directory / "mpi_ring"
    subprocess.run([sys.executable, str(mpi_build(mpi) / "runtime" / "mpi_adapter" / "scorep"),
                    MPI_COMPILERS[mpi]["c"], str(REPO / "tests" / "trace" / "mpi_ring.c"),
                    "-o", str(program)], check=True, capture_output=True, timeout=120)
    return program, mpi


@pytest.mark.parametrize("timer", ["clock_gettime", "tsc"])
def test_two_nodes_show_in_the_trace_with_their_offset_and_every_message_forwards(ring, timer):
    ring, mpi = ring
    directory = ring.parent / f"exp-{timer}"
    env = {"SCOREP_TIMER": timer, "SCOREP_ENABLE_TRACING": "true", "SCOREP_EXPERIMENT_DIRECTORY": str(directory),
           "EMULATED_NODE_OFFSET_nodeb": str(AHEAD)}
    mpirun(4, [ring], mpi=mpi, env=env, cwd=ring.parent, launcher_args=NODES[mpi])
    anchor = directory / "traces.otf2"
    with otf2.reader.open(str(anchor)) as trace:
        nodes = {g.name: g.system_tree_parent.name for g in trace.definitions.location_groups}
    assert nodes == {"MPI Rank 0": "nodea", "MPI Rank 1": "nodea", "MPI Rank 2": "nodeb", "MPI Rank 3": "nodeb"}
    # the profile names the nodes too
    profile = json.loads((directory / "profile.json").read_text())["experiment"]
    assert profile["hosts"] == ["nodea", "nodea", "nodeb", "nodeb"]
    text = (directory / "profile.txt").read_text()
    assert "node:      nodea, ranks 0 1\nnode:      nodeb, ranks 2 3\n" in text
    resolution, events = oracle.read_events(anchor)
    offsets = oracle.clock_offsets(anchor)
    stddevs = oracle.clock_offset_stddevs(anchor)
    for location, rank in {event[1]: event[0] for event in events}.items():
        seconds = [offset / resolution for _, offset in offsets[location]]
        if rank < 2:
            assert seconds == [0, 0]  # rank 0's node: its clock, not measured
        else:  # the TSC is one for both "nodes"; CLOCK_MONOTONIC is not
            expected = -AHEAD if timer == "clock_gettime" else 0
            # every event is where it happened within 2 us (the offset is all the
            # error there is: nodeb's clock runs at nodea's rate), or within the
            # uncertainty the record states where even the shortest round trip
            # was long (TCP between the "nodes", a loaded machine)
            print(f"rank {rank}: offsets off by {[round(abs(s - expected) * 1e6, 3) for s in seconds]} us, "
                  f"stated {[round(sd / resolution * 1e6, 3) for sd in stddevs[location]]} us")
            assert all(abs(s - expected) <= max(2e-6, 2 * sd / resolution + 0.5e-6)
                       for s, sd in zip(seconds, stddevs[location])), (seconds, stddevs[location])
    pairs, unmatched = oracle.messages(events)
    assert unmatched == 0 and len(pairs) == 2 * 20 * 4 + 2
    assert [(s[0], s[3], r[0], r[3]) for s, r in pairs if r[3] < s[3]] == []
    # the ring's 20 allreduces: every leave after every member's enter
    assert oracle.collective_violations(events) == (20, [])
    # the Chrome / Perfetto export (scorep-view's trace view) draws every message forwards
    exported = directory / "exported.json"
    proc = subprocess.run([sys.executable, str(REPO / "tools" / "scorep-trace-export"), str(directory),
                           "-o", str(exported)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    flows = {}
    for event in json.loads(exported.read_text())["traceEvents"]:
        if event.get("cat") == "mpi_message":
            flows.setdefault(event["id"], {})[event["ph"]] = event["ts"]
    assert len(flows) == len(pairs) and [f for f in flows.values() if f["f"] < f["s"]] == []
    if timer == "clock_gettime":
        # as written (uncorrected), the messages from nodeb to nodea arrive 1000 s early
        written = lambda event: oracle.uncorrected(event[3], offsets[event[1]])  # noqa: E731
        assert sum(1 for s, r in pairs if written(r) < written(s)) >= 20
