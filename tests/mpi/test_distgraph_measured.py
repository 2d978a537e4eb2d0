"""End-to-end: distributed graph communicators (MPI_Dist_graph_create and
_adjacent, reorder 0 and 1; tests/mpi/programs/distgraph.c, 4 ranks) behave
under measurement as without it: every measured run (profile and trace)
ends within the launcher helper's 120 s (a plain run takes 1 s on Open MPI,
up to 12 s on MPICH on a loaded machine), with the plain run's
output and the program's own checks of every communicator passing. On Open
MPI the topology component treematch handles reorder=1; the wrapper adds a
key broadcast on each new communicator and local queries only. Repeated
runs, counted: a hang that shows in some runs only is caught."""
import subprocess

import pytest

from measure import compile_program, run_measured
from conftest import mpirun

RANKS = 4
RUNS = 3


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_distgraph_communicators_behave_alike_measured_and_plain(mpi, tmp_path):
    extra = ("-Wno-stringop-overread",)   # Open MPI's MPI_UNWEIGHTED is a small pointer constant
    measured = compile_program(mpi, "distgraph.c", tmp_path, extra=extra)
    plain = compile_program(mpi, "distgraph.c", tmp_path, instrumented=False, extra=extra)
    plain_out = mpirun(RANKS, [plain], mpi=mpi, cwd=tmp_path).stdout
    assert plain_out.splitlines()[-1] == "errors 0"
    finished = 0
    for run in range(RUNS):
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
    assert finished == RUNS
