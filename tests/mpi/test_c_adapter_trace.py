"""End-to-end with tracing: the OTF2 trace of a real MPI program, its message
matching in the Chrome/Perfetto export, and world ranks of a split communicator."""
import json
import re
import subprocess
import sys

import otf2
import pytest

from conftest import REPO
from measure import compile_program, expectations, run_measured, run_with_rank_files

EXPORT = REPO / "tools" / "scorep-trace-export"


@pytest.fixture(scope="module", params=["openmpi", "mpich"])
def traced(request, tmp_path_factory):
    mpi = request.param
    work = tmp_path_factory.mktemp(f"traced-{mpi}")
    program = compile_program(mpi, "exchange.c", work)
    _, experiment, stdout = run_with_rank_files(mpi, 4, program, work, "traced",
                                                env={"SCOREP_ENABLE_TRACING": "true"})
    return {"stdout": stdout, "experiment": experiment}


def rank_of(location):
    return int(re.search(r"(\d+)\s*$", location.group.name).group(1))


def test_export_pairs_every_send_with_one_receive(traced, tmp_path):
    out = tmp_path / "trace.json"
    subprocess.run([sys.executable, str(EXPORT), str(traced["experiment"]), "-o", str(out)],
                   check=True, capture_output=True, text=True)
    document = json.loads(out.read_text())
    sent = sum(c["messages_sent"] for c in expectations(traced["stdout"]).values())
    assert sent == 4 * 9   # per rank: 1 MPI_Send, 4 MPI_Isend, 3 persistent starts, 1 MPI_Sendrecv
    assert document["otherData"]["messages"] == sent
    assert document["otherData"]["unmatched_messages"] == 0
    starts = [e for e in document["traceEvents"] if e.get("ph") == "s"]
    finishes = [e for e in document["traceEvents"] if e.get("ph") == "f"]
    assert sorted(e["id"] for e in starts) == sorted(e["id"] for e in finishes) == list(range(1, sent + 1))


def test_split_communicator_collective_names_world_ranks(traced):
    seen = 0
    with otf2.reader.open(str(traced["experiment"] / "traces.otf2")) as trace:
        for location, event in trace.events:
            if not isinstance(event, otf2.events.MpiCollectiveEnd):
                continue
            members = [rank_of(m) for m in event.communicator.group.members]
            if len(members) != 2:
                continue
            me = rank_of(location)
            assert members == [r for r in range(4) if r % 2 == me % 2]
            assert members[event.root] == me % 2      # root 0 of the half is world rank 0 or 1
            seen += 1
    assert seen == 4   # one MPI_Reduce on the half communicator per rank


def test_wildcard_receive_with_status_ignore_names_the_true_sender(traced):
    """exchange.c's only tag-1 receive is MPI_ANY_SOURCE with MPI_STATUS_IGNORE;
    the message comes from the left neighbour in the ring."""
    senders = {}
    with otf2.reader.open(str(traced["experiment"] / "traces.otf2")) as trace:
        for location, event in trace.events:
            if isinstance(event, otf2.events.MpiRecv) and event.msg_tag == 1:
                sender = event.communicator.group.members[event.sender]
                senders.setdefault(rank_of(location), []).append(rank_of(sender))
    assert senders == {r: [(r + 3) % 4] for r in range(4)}


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_one_sided_operations_are_recorded_and_completed_at_synchronisation(mpi, tmp_path):
    program = compile_program(mpi, "rma.c", tmp_path)
    proc, experiment = run_measured(mpi, 2, program, tmp_path, env={"SCOREP_ENABLE_TRACING": "true"})
    # each rank's window received the left neighbour's local[0] = 100 * left
    assert sorted(line for line in proc.stdout.splitlines() if "RESULT" in line) == \
        ["RESULT rank 0 got 100 100", "RESULT rank 1 got 0 0"]
    issued, completed = {}, {}
    with otf2.reader.open(str(experiment / "traces.otf2")) as trace:
        for location, event in trace.events:
            rank = rank_of(location)
            if isinstance(event, (otf2.events.RmaPut, otf2.events.RmaGet)):
                issued.setdefault(rank, []).append((type(event).__name__, event.bytes, event.matching_id))
            elif isinstance(event, otf2.events.RmaOpCompleteBlocking):
                completed.setdefault(rank, []).append(event.matching_id)
    for rank in (0, 1):
        kinds = sorted((name, size) for name, size, _ in issued[rank])
        assert kinds == [("RmaGet", 16), ("RmaPut", 8), ("RmaPut", 16), ("RmaPut", 16),
                         ("RmaPut", 16), ("RmaPut", 32)]
        assert sorted(completed[rank]) == sorted(i for _, _, i in issued[rank])
