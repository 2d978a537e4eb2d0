"""End-to-end: a communicator or window handle that the MPI library hands out
again after it was freed names the new object, not the freed one
(tests/mpi/programs/comm_reuse.c, 4 ranks, traced, both MPI libraries).
Each iteration rotates the rank order, so a stale id would name the wrong
world rank as the destination of the iteration's message or put."""
import collections
import re

import otf2
import pytest

from measure import compile_program, run_with_rank_files

RANKS = 4
ITERATIONS = 6


def program_lines(stdout, kind):
    return [tuple(map(int, line.split()[1:])) for line in stdout.splitlines() if line.startswith(kind + " ")]


def rank_of(location):
    return int(re.search(r"(\d+)$", location.group.name).group(1))


def traced_destinations(experiment):
    """{(rank, tag): world rank of the receiver} of every MpiSend in the trace,
    and {(rank, n): world rank of the target} of every rank's n-th RmaPut."""
    sends, puts = {}, {}
    with otf2.reader.open(str(experiment / "traces.otf2")) as trace:
        for location, event in trace.events:
            rank = rank_of(location)
            if isinstance(event, otf2.events.MpiSend):
                sends[rank, event.msg_tag] = rank_of(event.communicator.group.members[event.receiver])
            elif isinstance(event, otf2.events.RmaPut):
                n = sum(1 for key in puts if key[0] == rank)
                puts[rank, n] = rank_of(event.win.comm.group.members[event.remote])
    return sends, puts


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_a_reused_communicator_handle_names_the_new_communicator(mpi, tmp_path):
    measured = compile_program(mpi, "comm_reuse.c", tmp_path)
    plain = compile_program(mpi, "comm_reuse.c", tmp_path, instrumented=False)
    _, experiment, stdout = run_with_rank_files(mpi, RANKS, measured, tmp_path, "measured",
                                                env={"SCOREP_ENABLE_TRACING": "true"})
    _, _, plain_stdout = run_with_rank_files(mpi, RANKS, plain, tmp_path, "plain")
    assert sorted(program_lines(stdout, "RECEIVED")) == sorted(program_lines(plain_stdout, "RECEIVED"))
    # the situation under test: the library handed out a freed handle again
    handles = collections.Counter((rank, handle) for rank, _, handle in
                                  ((int(l.split()[1]), l.split()[2], l.split()[3])
                                   for l in stdout.splitlines() if l.startswith("HANDLE")))
    assert max(handles.values()) > 1, "the MPI library never reused a communicator handle"
    sent = {(rank, iteration): destination for rank, iteration, destination in program_lines(stdout, "SENT")}
    assert len(sent) == RANKS * ITERATIONS
    # the put into the window of iteration i goes to the same rank as its send
    sends, puts = traced_destinations(experiment)
    assert sends == sent
    assert puts == sent
    # what the puts delivered is the library's business (MPICH 4.0.2 here leaves
    # the windows unchanged); the adapter must not change it
    assert sorted(program_lines(stdout, "PUT_INTO")) == sorted(program_lines(plain_stdout, "PUT_INTO"))
