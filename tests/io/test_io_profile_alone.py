"""The profile alone records a program's I/O as it does with the trace beside it.

With the profile as the only substrate the core takes a short form of the
event path (runtime/events.c, runtime/profile_events.h): the wrapper skips
the IoOperationBegin no substrate records, and the transfer's end adds its
bytes, its visit and the per-file totals (io_files.c) in one call. With the
trace on too, every event takes the general way. Oracle: the general way's
profile. Every figure but the times (visits, bytes per call path and per
file, the events per location) must be the same, for io_known.c (POSIX
transfers, seeks, failing calls) with the link-time and the run-time
wrappers."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent


def untimed_figures(experiment):
    """profile.json without its times: the locations with their event counts,
    {(location, call path as region names): row figures other than time}, and
    the per-file figures other than time."""
    profile = json.loads((pathlib.Path(experiment) / "profile.json").read_text())
    regions = {r["id"]: r["name"] for r in profile["regions"]}
    callpaths = {c["id"]: c for c in profile["callpaths"]}

    def path(cp):
        names = []
        while cp is not None:
            names.append(regions[callpaths[cp]["region"]])
            cp = callpaths[cp]["parent"]
        return tuple(reversed(names))

    rows = {(row["location"], path(row["callpath"])):
            {k: v for k, v in row.items() if not k.startswith("time_") and k not in ("location", "callpath")}
            for row in profile["rows"]}
    files = [{k: v for k, v in f.items() if k != "time_ns"} for f in profile["io_files"]]
    return profile["locations"], rows, files


@pytest.mark.parametrize("mode", ["posix", "linktime:posix"])
def test_profile_alone_records_the_same_io_as_beside_the_trace(build_dir, tmp_path, mode):
    program = tmp_path / "io_known"
    subprocess.run([sys.executable, str(pathlib.Path(build_dir) / "runtime" / "mpi_adapter" / "scorep"),
                    f"--io={mode}", "gcc", "-O2", str(HERE / "io_known.c"), "-o", str(program)],
                   check=True, capture_output=True, text=True)
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    results = {}
    for tracing in ("false", "true"):
        cwd = tmp_path / f"run-{tracing}"
        cwd.mkdir()
        experiment = tmp_path / f"experiment-{tracing}"
        proc = subprocess.run([str(program), "data.bin"], cwd=cwd, capture_output=True, text=True, timeout=60,
                              env=dict(env, SCOREP_EXPERIMENT_DIRECTORY=str(experiment),
                                       SCOREP_ENABLE_TRACING=tracing))
        assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
        results[tracing] = untimed_figures(experiment)
    alone, beside = results["false"], results["true"]
    # there is I/O to compare: the file's 707 bytes written and read back
    data = [f for f in alone[2] if f["name"].endswith("data.bin")]
    assert len(data) == 1 and data[0]["bytes_written"] == 707 and data[0]["bytes_read"] >= 707
    # the per-file entries name the run's own directory: compare them by base name
    for figures in (alone, beside):
        for f in figures[2]:
            f["name"] = os.path.basename(f["name"])
    assert alone == beside
