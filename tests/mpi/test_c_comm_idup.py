"""End-to-end: communicators from MPI_Comm_idup(_with_info) are one
communicator across ranks in the unified definitions, although they cannot
be asked anything when they are created (tests/mpi/programs/comm_idup.c,
4 ranks, traced, both MPI libraries): every message on them is matched, on
one communicator per idup, with the members the program used."""
import collections
import json
import re
import subprocess
import sys

import otf2
import pytest

from conftest import REPO
from measure import compile_program, run_with_rank_files

RANKS = 4


def rank_of(location):
    return int(re.search(r"(\d+)$", location.group.name).group(1))


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_an_idup_communicator_is_one_communicator_on_every_rank(mpi, tmp_path):
    measured = compile_program(mpi, "comm_idup.c", tmp_path)
    plain = compile_program(mpi, "comm_idup.c", tmp_path, instrumented=False)
    _, experiment, stdout = run_with_rank_files(mpi, RANKS, measured, tmp_path, "measured",
                                                env={"SCOREP_ENABLE_TRACING": "true"})
    _, _, plain_stdout = run_with_rank_files(mpi, RANKS, plain, tmp_path, "plain")
    assert sorted(stdout.splitlines()) == sorted(plain_stdout.splitlines())
    assert len(stdout.splitlines()) == 3 * RANKS

    # (tag, half) -> communicators of its messages; tag 3 runs on one idup per parity half
    communicators = collections.defaultdict(set)
    members = {}
    with otf2.reader.open(str(experiment / "traces.otf2")) as trace:
        for location, event in trace.events:
            if isinstance(event, (otf2.events.MpiSend, otf2.events.MpiRecv)):
                rank = rank_of(location)
                communicators[event.msg_tag, rank % 2 if event.msg_tag == 3 else None].add(
                    event.communicator._ref)
                members[event.msg_tag, rank] = [rank_of(m) for m in event.communicator.group.members]
    assert len(communicators) == 4
    assert all(len(refs) == 1 for refs in communicators.values()), communicators
    assert len({ref for refs in communicators.values() for ref in refs}) == 4
    for rank in range(RANKS):
        assert members[1, rank] == members[2, rank] == list(range(RANKS))
        # the split ordered each parity by descending rank
        assert members[3, rank] == sorted((r for r in range(RANKS) if r % 2 == rank % 2), reverse=True)

    out = tmp_path / "trace.json"
    subprocess.run([sys.executable, str(REPO / "tools" / "scorep-trace-export"), str(experiment), "-o", str(out)],
                   check=True, capture_output=True, text=True)
    data = json.loads(out.read_text())["otherData"]
    assert (data["messages"], data["unmatched_messages"]) == (3 * RANKS, 0)
