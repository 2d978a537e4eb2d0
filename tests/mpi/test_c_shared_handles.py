"""End-to-end: requests that share one MPI handle (tests/mpi/programs/shared_handles.c,
3 ranks, traced), on both MPI libraries. Small sends that complete at once get
one shared handle from the library (MPICH 4.0.2: its builtin "lightweight"
request; Open MPI 4.1: ompi_request_empty), so several outstanding requests
have the same handle. Every request must still be matched from its start to
exactly one completion, by every MPI_Wait/MPI_Test variant, mixed with
receives, a rendezvous send, persistent requests and MPI_Request_free."""
import collections
import re

import otf2
import pytest

from measure import compile_program, run_with_rank_files

RANKS = 3


@pytest.fixture(scope="module", params=["openmpi", "mpich"])
def shared(request, tmp_path_factory):
    mpi = request.param
    work = tmp_path_factory.mktemp(f"shared-handles-{mpi}")
    measured = compile_program(mpi, "shared_handles.c", work)
    plain = compile_program(mpi, "shared_handles.c", work, instrumented=False)
    _, experiment, stdout = run_with_rank_files(mpi, RANKS, measured, work, "measured",
                                                env={"SCOREP_ENABLE_TRACING": "true"})
    _, _, plain_stdout = run_with_rank_files(mpi, RANKS, plain, work, "plain")
    return {"mpi": mpi, "stdout": stdout, "plain_stdout": plain_stdout,
            "trace": read_trace(experiment)}


def lines(stdout, kind):
    return [line.split()[1:] for line in stdout.splitlines() if line.startswith(kind + " ")]


def rank_of(location):
    return int(re.search(r"(\d+)\s*$", location.group.name).group(1))


def read_trace(experiment):
    """Per rank, in trace order: [(event kind, request id, envelope or None)]."""
    events = collections.defaultdict(list)
    with otf2.reader.open(str(experiment / "traces.otf2")) as trace:
        for location, event in trace.events:
            rank = rank_of(location)
            if isinstance(event, otf2.events.MpiIrecv):
                members = event.communicator.group.members
                source = rank_of(members[event.sender]) if event.sender < len(members) else -1
                events[rank].append(("irecv", event.request_id, (source, event.msg_tag, event.msg_length)))
            elif isinstance(event, (otf2.events.MpiIsend, otf2.events.MpiIsendComplete,
                                    otf2.events.MpiIrecvRequest, otf2.events.MpiRequestCancelled)):
                kind = {otf2.events.MpiIsend: "isend", otf2.events.MpiIsendComplete: "isend_complete",
                        otf2.events.MpiIrecvRequest: "irecv_request",
                        otf2.events.MpiRequestCancelled: "cancelled"}[type(event)]
                events[rank].append((kind, event.request_id, None))
    return events


def test_program_output_is_unchanged_by_measurement(shared):
    for kind in ("RESULT", "RECV", "COUNT"):
        assert lines(shared["stdout"], kind) == lines(shared["plain_stdout"], kind), kind
    assert len(lines(shared["stdout"], "RESULT")) == RANKS


def test_the_library_shares_handles_of_small_sends(shared):
    """What makes this test bite: outstanding small sends had one handle value.
    If a library stops sharing, this says so (the other tests still hold)."""
    most = max(int(n) for _, _, n in lines(shared["stdout"], "SHARED"))
    assert most == 8, lines(shared["stdout"], "SHARED")


def test_every_isend_completes_exactly_once(shared):
    counts = {int(rank): (int(isends), int(freed)) for rank, isends, _, freed in lines(shared["stdout"], "COUNT")}
    for rank in range(RANKS):
        events = shared["trace"][rank]
        started, completed = [], collections.Counter()
        for kind, request_id, _ in events:
            if kind == "isend":
                assert request_id not in started, f"rank {rank}: request id {request_id} started twice"
                started.append(request_id)
            elif kind == "isend_complete":
                assert request_id in started, f"rank {rank}: completion of {request_id} before its start"
                completed[request_id] += 1
        isends, freed = counts[rank]
        assert len(started) == isends
        assert [i for i, n in completed.items() if n != 1] == []
        # MPI_Request_free releases a send without completing it
        assert len(started) - len(completed) == freed
        assert not any(kind == "cancelled" for kind, _, _ in events)


def test_every_receive_request_completes_exactly_once_with_what_arrived(shared):
    counts = {int(rank): int(irecvs) for rank, _, irecvs, _ in lines(shared["stdout"], "COUNT")}
    wanted = collections.defaultdict(collections.Counter)
    for rank, source, tag, size in lines(shared["stdout"], "RECV"):
        wanted[int(rank)][(int(source), int(tag), int(size))] += 1
    for rank in range(RANKS):
        requested, completed = set(), collections.Counter()
        envelopes = collections.Counter()
        for kind, request_id, envelope in shared["trace"][rank]:
            if kind == "irecv_request":
                assert request_id not in requested
                requested.add(request_id)
            elif kind == "irecv":
                assert request_id in requested, f"rank {rank}: receive {request_id} before its request"
                completed[request_id] += 1
                envelopes[envelope] += 1
        assert len(requested) == counts[rank]
        assert set(completed) == requested and set(completed.values()) == {1}
        assert envelopes == wanted[rank]
