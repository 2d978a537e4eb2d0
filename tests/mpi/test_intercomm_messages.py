"""End-to-end: messages on intercommunicators are recorded between the
processes that exchanged them (tests/mpi/programs/intercomm.c, 4 ranks,
traced, both MPI libraries). On an intercommunicator a peer rank names a
process of the remote group; the trace defines each intercommunicator as one
communicator of both its groups, the same for both sides, and every send and
receive resolves to the world ranks the program used: the same after
MPI_Comm_dup/split/create/idup of it, on the merged communicator and on one
between groups of unequal size.
The oracle is the program's pairing (computed here), the program's own
output (plain and measured alike) and otf2-print."""
import collections
import json
import re
import subprocess
import sys

import otf2
import pytest

from conftest import REPO
from measure import compile_program, load_profile, run_with_rank_files

RANKS = 4
STAGES = {1: "intercomm_create", 2: "dup", 3: "split", 4: "create", 5: "idup"}
INT = 4


def expected_messages():
    """(sender world rank, receiver world rank, tag, bytes) of every message."""
    messages = []
    for stage in STAGES:
        evens, odds = [0, 2], [1, 3]
        if STAGES[stage] == "split":   # key -world_rank: each side's order reversed
            evens, odds = evens[::-1], odds[::-1]
        for i, even in enumerate(evens):
            odd = odds[(i + stage) % 2]
            messages.append((even, odd, 100 + 10 * stage, (stage + 1) * INT))
            messages.append((odd, even, 100 + 10 * stage + 1, (2 * stage + 3) * INT))
    merged = [0, 2, 1, 3]              # evens first (high = 0), then odds
    for k, rank in enumerate(merged):
        messages.append((rank, merged[(k + 1) % RANKS], 160, INT))
    for r, rank in enumerate([1, 2, 3]):   # groups {0} and {1, 2, 3}
        messages.append((0, rank, 170 + r, INT))
        messages.append((rank, 0, 180 + r, 2 * 2))
    return sorted(messages)


def world_rank(location):
    return int(re.search(r"(\d+)$", location.group.name).group(1))


def peer_world_rank(comm, peer):
    """The world rank a peer rank of the event's communicator names."""
    return world_rank(comm.group.members[peer])


def trace_messages(anchor):
    sends, receives, communicators, roots = [], [], collections.defaultdict(set), {}
    with otf2.reader.open(str(anchor)) as trace:
        for location, event in trace.events:
            rank = world_rank(location)
            if isinstance(event, (otf2.events.MpiSend, otf2.events.MpiIsend)):
                message = (rank, peer_world_rank(event.communicator, event.receiver), event.msg_tag,
                           event.msg_length)
                sends.append(message)
            elif isinstance(event, (otf2.events.MpiRecv, otf2.events.MpiIrecv)):
                message = (peer_world_rank(event.communicator, event.sender), rank, event.msg_tag,
                           event.msg_length)
                receives.append(message)
            elif isinstance(event, otf2.events.MpiCollectiveEnd) and event.collective_op == otf2.CollectiveOp.BCAST:
                roots[rank] = None if event.root == 0xFFFFFFFF else world_rank(event.communicator.group.members[event.root])
                continue
            else:
                continue
            communicators[event.msg_tag // 10].add(event.communicator._ref)
    return sorted(sends), sorted(receives), communicators, roots


PRINTED_EVENT = re.compile(r"^MPI_I?(SEND|RECV)\s+(\d+)\s+\d+\s+(?:Receiver|Sender): \d+ \(\"[^\"]*\" <(\d+)>\)"
                           r", Communicator: .*, Tag: (\d+), Length: (\d+)", re.MULTILINE)


def otf2_print_messages(printed):
    """(sends, receives) from otf2-print's event lines; a location's id is its
    rank << 32 | thread."""
    sends, receives = [], []
    for kind, own, peer, tag, length in PRINTED_EVENT.findall(printed):
        own, peer = int(own) >> 32, int(peer) >> 32
        if kind == "SEND":
            sends.append((own, peer, int(tag), int(length)))
        else:
            receives.append((peer, own, int(tag), int(length)))
    return sorted(sends), sorted(receives)


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_intercommunicator_messages_resolve_to_the_remote_group(mpi, tmp_path):
    measured = compile_program(mpi, "intercomm.c", tmp_path)
    plain = compile_program(mpi, "intercomm.c", tmp_path, instrumented=False)
    _, experiment, stdout = run_with_rank_files(mpi, RANKS, measured, tmp_path, "measured",
                                                env={"SCOREP_ENABLE_TRACING": "true"})
    _, _, plain_stdout = run_with_rank_files(mpi, RANKS, plain, tmp_path, "plain")
    assert stdout == plain_stdout
    assert len(stdout.splitlines()) == (len(STAGES) + 3) * RANKS + 2

    sends, receives, communicators, roots = trace_messages(experiment / "traces.otf2")
    expected = expected_messages()
    assert sends == expected
    assert receives == expected
    # the broadcast's root, as the odd side names it (a rank of the remote
    # group), is world rank 0; the even side passed MPI_ROOT / MPI_PROC_NULL
    assert roots == {0: None, 1: 0, 2: None, 3: 0}
    # each stage's messages (both directions, both pairs) on one communicator
    for stage in list(STAGES) + [6, 7, 8]:
        assert len(communicators[10 + stage]) == 1, (stage, communicators)
    assert len({next(iter(refs)) for refs in communicators.values()}) == len(STAGES) + 2

    # the profile counts every message once, on the rank that sent or received it
    profile = load_profile(experiment)
    rank_of = {loc["id"]: loc["rank"] for loc in profile["locations"]}
    sent, received = collections.Counter(), collections.Counter()
    for row in profile["rows"]:
        sent[rank_of[row["location"]]] += row.get("bytes_sent", 0) if row.get("messages_sent") else 0
        received[rank_of[row["location"]]] += row.get("bytes_received", 0) if row.get("messages_received") else 0
    for rank in range(RANKS):
        assert sent[rank] == sum(m[3] for m in expected if m[0] == rank)
        assert received[rank] == sum(m[3] for m in expected if m[1] == rank)

    # otf2-print, an independent reader, resolves every peer to the same location
    printed = subprocess.run(["otf2-print", str(experiment / "traces.otf2")], check=True,
                             capture_output=True, text=True).stdout
    assert otf2_print_messages(printed) == (expected, expected)

    out = tmp_path / "trace.json"
    subprocess.run([sys.executable, str(REPO / "tools" / "scorep-trace-export"), str(experiment), "-o", str(out)],
                   check=True, capture_output=True, text=True)
    data = json.loads(out.read_text())["otherData"]
    assert (data["messages"], data["unmatched_messages"]) == (len(expected), 0)
