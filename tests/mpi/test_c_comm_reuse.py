"""End-to-end: a communicator handle that the MPI library hands out again
after MPI_Comm_free names the new communicator, not the freed one
(tests/mpi/programs/comm_reuse.c, 4 ranks, traced, both MPI libraries).
Each iteration rotates the rank order, so a stale communicator id would name
the wrong world rank as the destination of the iteration's message."""
import collections
import re

import otf2
import pytest

from measure import compile_program, run_with_rank_files

RANKS = 4
ITERATIONS = 6


def program_lines(stdout, kind):
    return [tuple(map(int, line.split()[1:])) for line in stdout.splitlines() if line.startswith(kind + " ")]


def traced_destinations(experiment):
    """{(rank, tag): world rank of the receiver} of every MpiSend in the trace."""
    destinations = {}
    with otf2.reader.open(str(experiment / "traces.otf2")) as trace:
        for location, event in trace.events:
            if isinstance(event, otf2.events.MpiSend):
                rank = int(re.search(r"(\d+)$", location.group.name).group(1))
                receiver = event.communicator.group.members[event.receiver]
                destinations[rank, event.msg_tag] = int(re.search(r"(\d+)$", receiver.group.name).group(1))
    return destinations


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
    assert traced_destinations(experiment) == sent
