"""The profile alone records what it records with the trace beside it.

With the profile as the only substrate the core takes a short form of the
event path (runtime/profile/profile_fast.c, runtime/profile/profile_events.h: the call-path node
updated inline, a recorded allocation or free ended in one call,
scorep_exit_metric), and the memory adapter's address table takes plain
loads and stores while the process has one thread. With the trace on too,
every event takes the general way. Oracle: the general way's profile. Every
figure but the times (visits, bytes, metrics, call paths, the events per
location) must be the same (mem_known.c: single-threaded, so nothing in its
profile depends on how threads interleave)."""
import pathlib
import subprocess

import pytest

from conftest import run_program, scorep, untimed_profile

HERE = pathlib.Path(__file__).resolve().parent


@pytest.mark.parametrize("mode", ["", "=linktime"])
def test_profile_alone_records_the_same_as_beside_the_trace(build_dir, tmp_path, mode):
    program = tmp_path / "program"
    subprocess.run(scorep(build_dir) + [f"--memory{mode}", "gcc", "-O1", "-pthread", str(HERE / "mem_known.c"), "-o",
                                        str(program)], check=True, capture_output=True, text=True)
    results = {}
    for tracing in ("false", "true"):
        experiment = tmp_path / f"experiment-{tracing}"
        proc = run_program([program], experiment, {"SCOREP_ENABLE_TRACING": tracing})
        assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
        results[tracing] = untimed_profile(experiment)
    alone, beside = results["false"], results["true"]
    # the memory figures are there at all (the comparison is not of two empty profiles)
    assert any(f["metrics"].get("allocation_size") for f in alone[1].values())
    assert any(f["metrics"].get("bytes_leaked") for f in alone[1].values())
    assert alone == beside
