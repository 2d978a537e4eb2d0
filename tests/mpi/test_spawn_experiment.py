"""Processes started by MPI_Comm_spawn write their experiment inside the
parent's directory (SCOREP_EXPERIMENT_DIRECTORY), never beside it or over it
(tests/mpi/programs/spawn.c: 1 parent rank, 2 children, one message each).
Open MPI only: MPICH 4.0.2's hydra fails MPI_Comm_spawn in this environment
even for the plain program ("Error in spawn call")."""
import json

import pytest

from measure import compile_program, per_rank_region, run_measured


@pytest.mark.parametrize("mpi", ["openmpi"])
def test_spawned_children_write_inside_the_parents_experiment(mpi, tmp_path):
    exe = compile_program(mpi, "spawn.c", tmp_path)
    proc, experiment = run_measured(mpi, 1, exe, tmp_path,
                                    env={"SCOREP_OVERWRITE_EXPERIMENT_DIRECTORY": "true",
                                         "SCOREP_MPI_ENABLE_GROUPS": "DEFAULT,SPAWN"})
    assert sorted(line for line in proc.stdout.splitlines() if line.startswith("RESULT")) == [
        "RESULT child0 100", "RESULT child1 101", "RESULT parent sent 2"]
    assert not list(tmp_path.glob("experiment-spawn_*")), "a sibling directory"
    parent = json.loads((experiment / "profile.json").read_text())
    assert parent["experiment"]["ranks"] == 1
    visits = per_rank_region(parent)
    assert visits[0, "MPI_Comm_spawn"]["visits"] == 1
    assert (visits[0, "MPI_Send"]["visits"], visits[0, "MPI_Send"]["bytes_sent"]) == (2, 8)
    nested = list(experiment.glob("spawned_*"))
    assert len(nested) == 1, sorted(p.name for p in experiment.iterdir())
    children = json.loads((nested[0] / "profile.json").read_text())
    assert children["experiment"]["ranks"] == 2 and children["experiment"]["partial"] is False
    visits = per_rank_region(children)
    for rank in range(2):
        assert (visits[rank, "MPI_Recv"]["visits"], visits[rank, "MPI_Recv"]["bytes_received"]) == (1, 4)
    assert "inside the parent's" in proc.stderr
