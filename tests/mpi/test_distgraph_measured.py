"""End-to-end: distributed graph communicators behave under measurement as
without it (4 ranks, both MPI libraries, repeated runs counted).

Open MPI's treematch topology component (MPI_Dist_graph_create) exchanges
the graph's edges on the parent communicator with message tags -50/-51 and
a wildcard source, tags from the range libnbc numbers the parent's
non-blocking collectives with (-27 down; every communicator made from it
takes two). A process still receiving edges can take another's message for
the communicator being made, and the job hangs, in the call whose numbers
are -50/-51. The measurement used to make its own communicator with
MPI_Comm_dup(MPI_COMM_WORLD), which took two numbers of MPI_COMM_WORLD's
and moved the hang onto calls the plain program survives (the MPICH test
suite's topo/distgraph1 hung in most measured runs, never plainly). The MPI
layer now makes it with MPI_Comm_create_group, which takes none: a measured
run hangs exactly where the plain one would.
"""
import subprocess

import pytest

from conftest import mpirun
from measure import compile_program, run_measured

RANKS = 4


def finishes(mpi, program, workdir, args=(), measured=True, timeout=40):
    """Runs the program; True if it ended (successfully) within timeout seconds."""
    env = {"SCOREP_EXPERIMENT_DIRECTORY": str(workdir / "experiment"), "SCOREP_ENABLE_TRACING": "true"}
    launcher_args = [a for key in env for a in ("-x", key)] if mpi == "openmpi" and measured else []
    try:
        proc = mpirun(RANKS, [program, *args], mpi=mpi, env=env if measured else None, cwd=workdir,
                      launcher_args=launcher_args, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return False
    assert proc.returncode == 0, proc.stderr
    return True


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_measurement_leaves_the_numbering_of_world_collectives_alone(mpi, tmp_path):
    # tests/mpi/programs/distgraph_numbering.c: with 5 non-blocking barriers
    # first, Open MPI 4.1's treematch meets -50/-51 on an
    # MPI_Dist_graph_create_adjacent (plain runs never hang); two more
    # numbers put them on an MPI_Dist_graph_create (4 of 6 measured runs hung)
    measured = compile_program(mpi, "distgraph_numbering.c", tmp_path)
    plain = compile_program(mpi, "distgraph_numbering.c", tmp_path, instrumented=False)
    runs = 5 if mpi == "openmpi" else 2
    ended = {"plain": 0, "measured": 0}
    for run in range(runs):
        for kind, program in (("plain", plain), ("measured", measured)):
            workdir = tmp_path / f"{kind}{run}"
            workdir.mkdir()
            ended[kind] += finishes(mpi, program, workdir, args=["5"], measured=kind == "measured")
    assert ended == {"plain": runs, "measured": runs}


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_distgraph_communicators_behave_alike_measured_and_plain(mpi, tmp_path):
    # tests/mpi/programs/distgraph.c: ten graphs, every way of making them,
    # reorder 0 and 1, each communicator checked, used and duplicated
    extra = ("-Wno-stringop-overread",)   # Open MPI's MPI_UNWEIGHTED is a small pointer constant
    measured = compile_program(mpi, "distgraph.c", tmp_path, extra=extra)
    plain = compile_program(mpi, "distgraph.c", tmp_path, instrumented=False, extra=extra)
    plain_out = mpirun(RANKS, [plain], mpi=mpi, cwd=tmp_path).stdout
    assert plain_out.splitlines()[-1] == "errors 0"
    finished = 0
    for run in range(3):
        workdir = tmp_path / f"run{run}"
        workdir.mkdir()
        try:
            proc, experiment = run_measured(mpi, RANKS, measured, workdir, env={"SCOREP_ENABLE_TRACING": "true"},
                                            check=False)
        except subprocess.TimeoutExpired:
            continue
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == plain_out
        assert (experiment / "traces.otf2").is_file() and (experiment / "profile.json").is_file()
        finished += 1
    assert finished == 3
