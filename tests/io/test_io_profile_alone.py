"""The profile alone records a program's I/O as it does with the trace beside it.

With the profile as the only substrate the core takes a short form of the
event path (runtime/profile/profile_fast.c, runtime/profile/profile_events.h): the wrapper skips
the IoOperationBegin no substrate records, and the transfer's end adds its
bytes, its visit and the per-file totals (io_files.c) in one call. With the
trace on too, every event takes the general way. Oracle: the general way's
profile. Every figure but the times (visits, bytes per call path and per
file, the events per location) must be the same, for io_known.c (POSIX
transfers, seeks, failing calls) with the link-time and the run-time
wrappers."""
import os
import pathlib
import subprocess

import pytest

from conftest import run_program, scorep, untimed_profile

HERE = pathlib.Path(__file__).resolve().parent


@pytest.mark.parametrize("mode", ["posix", "linktime:posix"])
def test_profile_alone_records_the_same_io_as_beside_the_trace(build_dir, tmp_path, mode):
    program = tmp_path / "io_known"
    subprocess.run(scorep(build_dir) + [f"--io={mode}", "gcc", "-O2", str(HERE / "io_known.c"), "-o", str(program)],
                   check=True, capture_output=True, text=True)
    results = {}
    for tracing in ("false", "true"):
        cwd = tmp_path / f"run-{tracing}"
        cwd.mkdir()
        experiment = tmp_path / f"experiment-{tracing}"
        proc = run_program([program, "data.bin"], experiment, {"SCOREP_ENABLE_TRACING": tracing}, cwd=cwd)
        assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
        results[tracing] = untimed_profile(experiment)
    alone, beside = results["false"], results["true"]
    # there is I/O to compare: the file's 707 bytes written and read back
    data = [f for f in alone[2] if f["name"].endswith("data.bin")]
    assert len(data) == 1 and data[0]["bytes_written"] == 707 and data[0]["bytes_read"] >= 707
    # the per-file entries name the run's own directory: compare them by base name
    for figures in (alone, beside):
        for f in figures[2]:
            f["name"] = os.path.basename(f["name"])
    assert alone == beside
