"""An MPI rank that forks without exec (a child that works and exits,
system(), popen()): the children record nothing and write nothing, the
ranks' profile keeps exact visits, and the output is the plain run's.
Runs three times."""
import json

import pytest

from conftest import mpirun
from measure import compile_program, per_rank_region, run_measured

RANKS = 2
RUNS = 3


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_children_forked_by_mpi_ranks_record_and_write_nothing(mpi, tmp_path):
    measured = compile_program(mpi, "fork_rank.c", tmp_path)
    plain = compile_program(mpi, "fork_rank.c", tmp_path, instrumented=False)
    expected = sorted(mpirun(RANKS, [plain], mpi=mpi, cwd=tmp_path).stdout.splitlines())
    assert "rank 1 child exited 11" in expected and "read: rank 1 popen" in expected
    for run in range(RUNS):
        workdir = tmp_path / f"run{run}"
        workdir.mkdir()
        proc, experiment = run_measured(mpi, RANKS, measured, workdir, env={"SCOREP_VERBOSE": "true"})
        assert sorted(proc.stdout.splitlines()) == expected
        # the one unified experiment of the job, written once by rank 0
        assert sorted(p.name for p in experiment.iterdir() if p.name.startswith("profile")) == [
            "profile.cubex", "profile.folded", "profile.json", "profile.txt"]
        assert proc.stderr.count("experiment written to") == 1, proc.stderr
        profile = json.loads((experiment / "profile.json").read_text())
        visits = per_rank_region(profile)
        for rank in range(RANKS):
            assert visits[(rank, "MPI_Barrier")]["visits"] == 6
        assert not any(region == "child_work" for (_, region) in visits)
