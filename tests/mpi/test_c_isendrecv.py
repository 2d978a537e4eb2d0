"""End-to-end: receive envelopes of non-blocking receives through the C adapter
(tests/mpi/programs/isendrecv.c, 3 ranks, traced), on both MPI libraries:
MPI_Irecv everywhere; MPI_Isendrecv(_c) and MPI_Isendrecv_replace where the
library has them (MPICH 4.0.2, which leaves the status of such requests unset).
Each recorded receive must be what arrived, by the rule of docs/MPI_ADAPTER.md:
the status's envelope where the status can be right, else the posted one."""
import re

import otf2
import pytest

from measure import compile_program, expectations, load_profile, per_rank_region, results, \
    run_with_rank_files

RANKS = 3


@pytest.fixture(scope="module", params=["openmpi", "mpich"])
def isendrecv(request, tmp_path_factory):
    mpi = request.param
    work = tmp_path_factory.mktemp(f"isendrecv-{mpi}")
    measured = compile_program(mpi, "isendrecv.c", work)
    plain = compile_program(mpi, "isendrecv.c", work, instrumented=False)
    _, experiment, stdout = run_with_rank_files(mpi, RANKS, measured, work, "measured",
                                                env={"SCOREP_ENABLE_TRACING": "true"})
    _, _, plain_stdout = run_with_rank_files(mpi, RANKS, plain, work, "plain")
    return {"mpi": mpi, "stdout": stdout, "plain_stdout": plain_stdout, "experiment": experiment,
            "profile": load_profile(experiment)}


def lines(stdout, kind):
    """The program's lines of one kind, split into words, in the program's order per rank."""
    return [line.split()[1:] for line in stdout.splitlines() if line.startswith(kind + " ")]


def status_right(stdout):
    """{receive kind: whether the library's status named the message}, as the program found."""
    right = {}
    for _, kind, value in lines(stdout, "STATUS"):
        right[kind] = right.get(kind, True) and value == "1"
    return right


def rank_of(location):
    return int(re.search(r"(\d+)\s*$", location.group.name).group(1))


def trace_events(experiment):
    """Per rank, in order: (world source, tag, bytes) of each MpiIrecv, -1 for
    an unknown source or tag; and the request ids of MpiIsend and MpiIsendComplete."""
    receives, isends, completed = {}, {}, {}
    with otf2.reader.open(str(experiment / "traces.otf2")) as trace:
        for location, event in trace.events:
            rank = rank_of(location)
            if isinstance(event, otf2.events.MpiIrecv):
                members = event.communicator.group.members
                source = rank_of(members[event.sender]) if event.sender < len(members) else -1
                tag = -1 if event.msg_tag in (-1, 0xFFFFFFFF) else event.msg_tag
                receives.setdefault(rank, []).append((source, tag, event.msg_length))
            elif isinstance(event, otf2.events.MpiIsend):
                isends.setdefault(rank, []).append(event.request_id)
            elif isinstance(event, otf2.events.MpiIsendComplete):
                completed.setdefault(rank, []).append(event.request_id)
    return receives, isends, completed


def test_program_results_are_unchanged_by_measurement(isendrecv):
    assert results(isendrecv["stdout"]) == results(isendrecv["plain_stdout"])
    assert lines(isendrecv["stdout"], "STATUS") == lines(isendrecv["plain_stdout"], "STATUS")
    assert len(results(isendrecv["stdout"])) == RANKS


def test_which_statuses_the_library_sets(isendrecv):
    """What the rule has to cope with: MPICH 4.0.2 completes MPI_Isendrecv(_replace)
    requests with an unset status, except when they only receive (to
    MPI_PROC_NULL: a plain receive). If a later MPICH sets it, this test says so."""
    right = status_right(isendrecv["stdout"])
    if isendrecv["mpi"] == "mpich":
        assert right == {"isendrecv": False, "replace": False, "isendrecv_nosend": True,
                         "replace_nosend": True, "irecv": True}
    else:
        assert right == {"irecv": True}


def test_profile_counts_exactly_what_the_program_did(isendrecv):
    """Bytes received are exact also for MPI_Isendrecv under MPICH; the one
    receive the rule cannot make exact (an unset status and a message shorter
    than the buffer) counts the buffer's capacity, as the program expects."""
    measured = per_rank_region(isendrecv["profile"])
    expected = expectations(isendrecv["stdout"])
    mismatches = [f"rank {rank} {region} {counter}: measured {measured[(rank, region)][counter]}, "
                  f"the program did {value}"
                  for (rank, region), counters in sorted(expected.items())
                  for counter, value in counters.items()
                  if measured[(rank, region)][counter] != value]
    assert mismatches == []
    if isendrecv["mpi"] == "mpich":
        for rank in range(RANKS):
            assert measured[(rank, "MPI_Wait")]["messages_received"] == 9
            assert measured[(rank, "MPI_Isendrecv")]["visits"] == 8


def test_every_receive_records_the_envelope_that_arrived(isendrecv):
    """Source, tag and bytes as they arrived wherever the status is right; with
    an unset status the posted source and tag (exact unless wildcards: unknown)
    and the posted capacity as bytes."""
    right = status_right(isendrecv["stdout"])
    wanted = {}
    for rank, kind, tag, source, size, wildcard, capacity in lines(isendrecv["stdout"], "RECV"):
        if right.get(kind, True):
            envelope = (int(source), int(tag), int(size))
        elif wildcard == "1":
            envelope = (-1, -1, int(capacity))
        else:
            envelope = (int(source), int(tag), int(capacity))
        wanted.setdefault(int(rank), []).append(envelope)
    receives, _, _ = trace_events(isendrecv["experiment"])
    assert receives == wanted
    assert len(wanted[0]) == (12 if isendrecv["mpi"] == "mpich" else 2)


def test_isendrecv_requests_complete_their_send_too(isendrecv):
    _, isends, completed = trace_events(isendrecv["experiment"])
    if isendrecv["mpi"] != "mpich":
        assert isends == completed == {}
        return
    for rank in range(RANKS):
        # MPI_Isendrecv(_c) and MPI_Isendrecv_replace with a destination
        assert len(isends[rank]) == 9
        assert sorted(completed[rank]) == sorted(isends[rank])
