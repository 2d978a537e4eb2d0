"""SCOREP_TRACING_MAX_SIZE with threads: the limit counts
the bytes of all threads (of all processes of the node), so when one thread's
next room would take it over, every thread's location stops at its next event: each leaves its open regions and ends with a
MeasurementOnOff(OFF) marker; one warning for the process; the profile counts
every pair. (The MPI case: tests/mpi/test_trace_max_size.py.)"""
import json
import os
import subprocess

import pytest

from trace_programs import build_program, read_trace, tracing_env

otf2 = pytest.importorskip("otf2")


def test_every_thread_stops_balanced_with_a_marker_and_the_profile_is_complete(build_dir, tmp_path):
    threads, pairs = 3, 200_000
    program = build_program(build_dir, "threaded_events.c", tmp_path / "threaded_events", "cc",
                            ["scorep_measurement"])
    env = dict(os.environ)
    env.update(tracing_env(tmp_path / "exp", SCOREP_TOTAL_MEMORY="2M", SCOREP_ENABLE_PROFILING="true",
                           SCOREP_TRACING_MAX_SIZE="1M"))
    proc = subprocess.run([str(program), str(threads), str(pairs)], env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if "SCOREP_TRACING_MAX_SIZE" in line]
    assert len(warnings) == 1, proc.stderr

    event_bytes = sum(f.stat().st_size for f in (tmp_path / "exp" / "traces").glob("*.evt"))
    assert event_bytes <= 1 << 20, event_bytes   # raw bytes within 1M, which OTF2 encodes into fewer
    # the counter the node's processes share is gone with the run
    assert not list((tmp_path / "exp").glob(".scorep-trace-budget-*"))

    events, _ = read_trace(tmp_path / "exp" / "traces.otf2")
    assert len(events) == threads + 1
    recorded_work = 0
    for location, records in events.items():
        last = records[-1]
        assert isinstance(last, otf2.events.MeasurementOnOff), (location, last)
        assert last.measurement_mode == otf2.MeasurementMode.OFF
        stack = []
        for e in records:
            if isinstance(e, otf2.events.Enter):
                stack.append(e.region.name)
            elif isinstance(e, otf2.events.Leave):
                assert stack and stack.pop() == e.region.name, location
        assert stack == [], location
        recorded_work += sum(isinstance(e, otf2.events.Enter) and e.region.name == "work" for e in records)
    assert 0 < recorded_work < threads * pairs

    profile = json.loads((tmp_path / "exp" / "profile.json").read_text())
    work = [r["id"] for r in profile["regions"] if r["name"] == "work"]
    paths = {c["id"] for c in profile["callpaths"] if c["region"] in work}
    assert sum(row["visits"] for row in profile["rows"] if row["callpath"] in paths) == threads * pairs
