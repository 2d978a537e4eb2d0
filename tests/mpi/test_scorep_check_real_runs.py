"""scorep-check on a real program's trace that a size limit cut: the full
check fails (the trace is not a complete record: messages sent before the cut
on one rank are received after it on the other), the partial check passes
and still reports what the cut explains. Every other traced test run is
checked by conftest.mpirun (tests/trace_consistency.py)."""
import subprocess

import pytest

from conftest import BUILD
from measure import compile_program, run_measured

import trace_consistency

TRIPS = 5000


@pytest.mark.parametrize("mpi", ["openmpi"])
def test_a_trace_cut_by_its_size_limit_fails_the_full_check_and_passes_the_partial_one(mpi, tmp_path):
    program = compile_program(mpi, "pingpong_long.c", tmp_path)
    env = {"SCOREP_ENABLE_TRACING": "true", "SCOREP_TOTAL_MEMORY": "2M", "SCOREP_TRACING_MAX_SIZE": "300k"}
    # (run_measured's launcher already checked it in partial mode: a size limit is set)
    proc, experiment = run_measured(mpi, 2, program, tmp_path, env=env, args=[str(TRIPS)])
    assert f"RESULT {TRIPS % 256}" in proc.stdout

    found, tolerated, counts = trace_consistency.check_experiment(experiment, partial=False)
    assert counts["messages"] > 1000
    assert sum("MeasurementOnOff(OFF): the measurement was switched off here" in str(f) for f in found) == 2
    assert all(f.tolerable for f in found), [str(f) for f in found]

    checker = [str(BUILD / "tools" / "scorep-check")]
    full = subprocess.run(checker + [str(experiment)], capture_output=True, text=True, timeout=60)
    assert full.returncode == 1 and f"{len(found)} violations" in full.stdout
    partial = subprocess.run(checker + ["--partial", str(experiment)], capture_output=True, text=True,
                             timeout=60)
    assert partial.returncode == 0, partial.stdout
    assert f"consistent, {len(found)} tolerated findings of a partial experiment" in partial.stdout
