"""The mpif.h / use mpi adapter on a free-form `use mpi` program and a
fixed-form `include 'mpif.h'` program (the same body: program_body.inc),
built plain and with `scorep mpif90`, and the free-form one preloaded: output
unchanged, profile visits and bytes and trace peers exact."""
import re

import otf2
import pytest

from fortran_runs import RANKS, fortran_runs  # noqa: F401  (the session fixture)

N, STEPS = 8, 3      # program_body.inc
MEASURED = [("free", "scorep"), ("fixed", "scorep"), ("free", "preload")]


def test_output_is_the_same_plain_measured_preloaded_and_in_both_forms(fortran_runs):
    plain = fortran_runs["free", "plain"].lines
    assert len(plain) == 8 * RANKS + 2
    for key in [("fixed", "plain")] + MEASURED:
        assert fortran_runs[key].lines == plain, key


def test_the_program_saw_what_mpi_does(fortran_runs):
    """What MPI returned reached the program: the halo neighbours, the wildcard
    message, in-place results, the MPI_BOTTOM pair, strings (blank-padded),
    the LOGICAL flag of MPI_Test, the attribute callbacks and the user op."""
    lines = fortran_runs["free", "scorep"].lines
    for rank in range(RANKS):
        left, right = (rank - 1) % RANKS, (rank + 1) % RANKS
        assert f"{rank} halo {left:3d} {right:3d}" in lines
        assert f"{rank} in-place {sum(range(RANKS)):3d} {RANKS:3d}" in lines
        assert f"{rank} bottom {left:4d} {100 + left:4d} {left:2d}" in lines
        assert f"{rank} name [{'halo comm':32s}]  9" in lines
        assert f"{rank} info T [{'a value':32s}]" in lines
        assert f"{rank} test F T  11" in lines
        assert f"{rank} keyval  1  2 T  11" in lines
        assert f"{rank} user-op {sum(range(RANKS)) + 1000 * (RANKS - 1):5d}" in lines
    assert "0 wildcard  42" in lines
    assert "0 gather" + "".join(f"{10 * r:4d}" for r in range(RANKS)) in lines


@pytest.mark.parametrize("key", MEASURED, ids=lambda k: "-".join(k))
def test_visits_bytes_and_messages_are_exact(fortran_runs, key):
    run = fortran_runs[key]
    halo = 2 * STEPS * N * 4
    for rank in range(RANKS):
        def t(region):
            return run.totals(region, rank)
        assert t("MPI_Isend") == dict(visits=2 * STEPS, bytes_sent=halo, bytes_received=0,
                                      messages_sent=2 * STEPS, messages_received=0)
        assert t("MPI_Irecv")["visits"] == 2 * STEPS + 1
        assert t("MPI_Waitany") == dict(visits=4 * STEPS, bytes_sent=0, bytes_received=halo,
                                        messages_sent=0, messages_received=2 * STEPS)
        # wildcard receive with MPI_STATUS_IGNORE, on rank 0 only
        recv = t("MPI_Recv")
        assert (recv["visits"], recv["messages_received"], recv["bytes_received"]) == (
            (1, 1, 4) if rank == 0 else (0, 0, 0))
        send = t("MPI_Send")     # to itself for MPI_Test; the last rank also to 0
        sends = 2 if rank == RANKS - 1 else 1
        assert (send["visits"], send["messages_sent"], send["bytes_sent"]) == (sends, sends, 4 * sends)
        # collective bytes by Score-P's convention (docs/MPI_ADAPTER.md): the
        # in-place allreduce of 2 integers goes to and comes from the other
        # RANKS - 1 ranks, the user op's of 1 integer to and from all RANKS
        allreduce = (RANKS - 1) * 2 * 4 + RANKS * 1 * 4
        assert (t("MPI_Allreduce")["visits"], t("MPI_Allreduce")["bytes_sent"],
                t("MPI_Allreduce")["bytes_received"]) == (2, allreduce, allreduce)
        # the root's in-place gather (sendcount 0): its own block stays where
        # it is, the other ranks' one integer each arrives
        gather = t("MPI_Gather")
        assert (gather["bytes_sent"], gather["bytes_received"]) == ((0, 4 * (RANKS - 1)) if rank == 0 else (4, 0))
        # MPI_BOTTOM with a derived type of two integers
        sendrecv = t("MPI_Sendrecv")
        assert (sendrecv["bytes_sent"], sendrecv["bytes_received"], sendrecv["messages_received"]) == (8, 8, 1)
        test = t("MPI_Test")
        assert test["visits"] >= 2 and (test["messages_received"], test["bytes_received"]) == (1, 4)
        assert t("MPI_Comm_dup")["visits"] == 2 and t("MPI_Comm_free")["visits"] == 2
        for region in ("MPI_Comm_set_name", "MPI_Info_set", "MPI_Info_get", "MPI_Comm_create_keyval",
                       "MPI_Op_create", "MPI_Init", "MPI_Finalize"):
            assert t(region)["visits"] == 1, region
        # MPI_Pcontrol(0) paused the measurement for one of the two barriers;
        # the resuming MPI_Pcontrol(1) is inside the pause
        assert t("MPI_Barrier")["visits"] == 1
        assert t("MPI_Pcontrol")["visits"] == 1
        assert t("MPI_Pcontrol paused")["visits"] == 1


def rank_of(location):
    return int(re.search(r"(\d+)\s*$", location.group.name).group(1))


@pytest.mark.parametrize("key", [("free", "scorep"), ("free", "preload")], ids=lambda k: "-".join(k))
def test_trace_peers_are_exact(fortran_runs, key):
    """Every receive in the trace: the halo's from the neighbours (tag 1 from
    the right, 2 from the left), the wildcard one from the last rank, the
    MPI_BOTTOM pair from the left, the MPI_Test one from the rank itself."""
    received, sent = {}, {}
    with otf2.reader.open(str(fortran_runs[key].experiment / "traces.otf2")) as trace:
        for location, event in trace.events:
            rank = rank_of(location)
            if isinstance(event, (otf2.events.MpiIrecv, otf2.events.MpiRecv)):
                sender = rank_of(event.communicator.group.members[event.sender])
                received.setdefault(rank, []).append((event.msg_tag, sender, event.msg_length))
            elif isinstance(event, (otf2.events.MpiIsend, otf2.events.MpiSend)):
                receiver = rank_of(event.communicator.group.members[event.receiver])
                sent.setdefault(rank, []).append((event.msg_tag, receiver, event.msg_length))
    for rank in range(RANKS):
        left, right = (rank - 1) % RANKS, (rank + 1) % RANKS
        expected = [(1, right, N * 4), (2, left, N * 4)] * STEPS + [(5, left, 8), (11, rank, 4)]
        expected += [(7, RANKS - 1, 4)] if rank == 0 else []
        assert sorted(received[rank]) == sorted(expected)
        expected = [(1, left, N * 4), (2, right, N * 4)] * STEPS + [(5, right, 8), (11, rank, 4)]
        expected += [(7, 0, 4)] if rank == RANKS - 1 else []
        assert sorted(sent[rank]) == sorted(expected)
