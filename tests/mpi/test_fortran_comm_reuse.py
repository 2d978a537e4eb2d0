"""End-to-end, Fortran: a communicator handle the MPI library hands out again
after it was freed names the new communicator in the trace, through the
mpi_f08 and the mpif.h / use mpi wrappers, which look communicator ids up by
Fortran handle (tests/mpi/programs/comm_reuse_f.F90, 4 ranks, traced, both
MPI libraries). Each iteration rotates the rank order, so a stale id would
name the wrong world rank as the destination of the iteration's message."""
import collections

import pytest

from measure import compile_fortran_pair, run_with_rank_files
from test_c_comm_reuse import program_lines, traced_destinations

RANKS = 4
ITERATIONS = 6


@pytest.mark.parametrize("binding", ["f08", "f90"])
@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_a_reused_fortran_communicator_handle_names_the_new_communicator(mpi, binding, tmp_path):
    extra = ["-cpp"] + (["-DUSE_MPI_F08"] if binding == "f08" else [])
    plain, measured = compile_fortran_pair(mpi, "comm_reuse_f.F90", tmp_path, extra)
    _, experiment, stdout = run_with_rank_files(mpi, RANKS, measured, tmp_path, "measured",
                                                env={"SCOREP_ENABLE_TRACING": "true"})
    _, _, plain_stdout = run_with_rank_files(mpi, RANKS, plain, tmp_path, "plain")
    received = sorted(program_lines(stdout, "RECEIVED"))
    assert len(received) == RANKS * ITERATIONS and received == sorted(program_lines(plain_stdout, "RECEIVED"))
    # the situation under test: the library handed out a freed handle again
    handles = collections.Counter((rank, handle) for rank, _, handle in program_lines(stdout, "HANDLE"))
    assert max(handles.values()) > 1, "the MPI library never reused a communicator handle"
    sent = {(rank, iteration): destination for rank, iteration, destination in program_lines(stdout, "SENT")}
    assert len(sent) == RANKS * ITERATIONS
    sends, puts = traced_destinations(experiment)
    assert sends == sent and puts == {}
