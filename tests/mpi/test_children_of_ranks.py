"""A measured program that the ranks of a measured MPI job start (through
system()) joins the job's experiment, whichever rank started it: each child's
experiment is in <experiment>/children/, listed in children.txt, and nothing is
added to the job's stderr (docs/PROFILE_FORMAT.md, "Children of a measured
process"). The child is tests' runtime program test_children."""
import json

import pytest

from measure import compile_program, run_measured

RANKS = 3


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_measured_programs_started_by_every_rank_join_the_jobs_experiment(mpi, build_dir, tmp_path):
    child = build_dir / "runtime" / "tests" / "test_children"
    measured = compile_program(mpi, "children_of_ranks.c", tmp_path)
    proc, experiment = run_measured(mpi, RANKS, measured, tmp_path, env={"SCOREP_ENABLE_TRACING": "false"},
                                    args=[child])
    assert sorted(proc.stdout.splitlines()) == [f"child {k}" for k in range(1, RANKS + 1)]
    assert "[Score-P]" not in proc.stderr, proc.stderr
    lines = (experiment / "children.txt").read_text().splitlines()
    assert sorted(line.split("\t")[3].split()[-1] for line in lines) == [str(k) for k in range(1, RANKS + 1)]
    for line in lines:
        k = int(line.split("\t")[3].split()[-1])
        profile = json.loads((experiment / line.split("\t")[0] / "profile.json").read_text())
        assert profile["experiment"]["partial"] is False
        work = next(r["id"] for r in profile["regions"] if r["name"] == "work")
        paths = {c["id"] for c in profile["callpaths"] if c["region"] == work}
        assert sum(row["visits"] for row in profile["rows"] if row["callpath"] in paths) == k
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(experiment.name + "_")]
