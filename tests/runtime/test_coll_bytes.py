"""The MPI layer's one rule for collective bytes (runtime/mpi/coll_bytes.c),
which the C, mpif.h and mpi_f08 wrappers all call: per collective kind,
runtime/tests/test_coll_bytes.c describes calls (intra- and
intercommunicators, MPI_IN_PLACE, MPI_ROOT / MPI_PROC_NULL roots, v/w
arrays, large counts, Fortran datatype handles, neighbourhood topologies)
and compares the rule's bytes with Score-P's definitions written out as
arithmetic, and checks that sent equals received over all ranks on an
intracommunicator. Run on 4 and 5 ranks, against both MPI libraries."""
import pytest

from conftest import mpi_build, mpirun
from runtime_programs import program

KINDS = ["barrier", "bcast", "gather", "gatherv", "scatter", "scatterv", "reduce", "allreduce",
         "allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw", "reduce_scatter",
         "reduce_scatter_block", "scan", "exscan", "neighbor_allgather", "neighbor_allgatherv",
         "neighbor_alltoall", "neighbor_alltoallv", "neighbor_alltoallw"]


@pytest.fixture(scope="module", params=["openmpi", "mpich"])
def mpi(request):
    return request.param


@pytest.fixture(scope="module", params=[4, 5])
def output(request, mpi):
    proc = mpirun(request.param, [program(mpi_build(mpi), "test_coll_bytes")], mpi=mpi, check=False)
    failures = [line for line in proc.stdout.splitlines() if line.startswith("FAIL")]
    assert proc.returncode == 0 and not failures, (
        f"test_coll_bytes on {request.param} ranks ({mpi}) exited {proc.returncode}:\n"
        + "\n".join(failures) + f"\nstderr:\n{proc.stderr}")
    return proc.stdout.splitlines()


@pytest.mark.parametrize("kind", KINDS)
def test_every_case_of_the_kind_holds_on_every_rank(output, kind):
    assert f"ok {kind}" in output
