"""What the trace of point-to-point calls contains does not change when its
event path is made faster: the event sequence of a fixed,
deterministic program (programs/trace_sequence.c, 3 ranks) is compared with
one recorded before that work, record by record and attribute by attribute
(normalised by trace_sequence.py: no timestamps, references resolved).

The expected file was made from the code of commit 7a1be94 (before the
event path was made faster) with either MPI library (the two gave the same file):

    python3 <build>/runtime/mpi_adapter/scorep mpicc -O1 tests/mpi/programs/trace_sequence.c -o ts
    SCOREP_ENABLE_TRACING=true SCOREP_EXPERIMENT_DIRECTORY=exp mpirun -n 3 ./ts
        (Open MPI: mpirun --oversubscribe -x SCOREP_ENABLE_TRACING -x SCOREP_EXPERIMENT_DIRECTORY;
         MPICH: mpicc.mpich and mpiexec.mpich)
    tests/mpi/trace_sequence.py exp > tests/mpi/data/trace_sequence.txt

A deliberate change of what the trace records updates the file the same way
(and says so in its commit).

The mpi_f08 twin of the program (programs/trace_sequence_f08.f90: the same
calls, counts, peers and element sizes) must give the same file: a Fortran
2008 wrapper records what the C wrapper records.
"""
import pathlib

import pytest

from measure import compile_fortran_pair, compile_program, run_measured
from trace_sequence import normalised

DATA = pathlib.Path(__file__).resolve().parent / "data"


RESULTS = ["RESULT rank 0 checksum 1109", "RESULT rank 1 checksum 209", "RESULT rank 2 checksum 509"]


def assert_expected_sequence(experiment, tmp_path):
    actual = normalised(experiment)
    expected = (DATA / "trace_sequence.txt").read_text()
    if actual != expected:
        (tmp_path / "actual.txt").write_text(actual)
    # line by line, so a failure shows the first record that differs
    assert actual.splitlines() == expected.splitlines()
    return expected


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_trace_event_sequence_is_unchanged(mpi, tmp_path):
    program = compile_program(mpi, "trace_sequence.c", tmp_path)
    proc, experiment = run_measured(mpi, 3, program, tmp_path, env={"SCOREP_ENABLE_TRACING": "true"})
    assert sorted(line for line in proc.stdout.splitlines() if line.startswith("RESULT")) == RESULTS
    expected = assert_expected_sequence(experiment, tmp_path)
    # the comparison covers the records of the faster paths on every rank
    for kind in ("MpiSend", "MpiRecv", "MpiIsend", "MpiIrecvRequest", "MpiIrecv", "MpiIsendComplete"):
        assert expected.count(f"  {kind} ") >= 3, kind


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_f08_twin_traces_the_records_of_the_c_program(mpi, tmp_path):
    plain, program = compile_fortran_pair(mpi, "trace_sequence_f08.f90", tmp_path)
    proc, experiment = run_measured(mpi, 3, program, tmp_path, env={"SCOREP_ENABLE_TRACING": "true"})
    plain_proc, _ = run_measured(mpi, 3, plain, tmp_path)
    # the program's own result, compared with the plain run's: MPICH 4.0's
    # mpi_f08 MPI_Waitany returns a 0-based index, so its checksums are 1 less
    results = sorted(line for line in proc.stdout.splitlines() if line.startswith("RESULT"))
    assert len(results) == 3
    assert results == sorted(line for line in plain_proc.stdout.splitlines() if line.startswith("RESULT"))
    assert_expected_sequence(experiment, tmp_path)
