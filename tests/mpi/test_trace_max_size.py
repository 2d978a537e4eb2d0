"""SCOREP_TRACING_MAX_SIZE (issue 12, point 4): a traced MPI program that runs
past a small limit ends with a readable trace of the part before the limit
(every open region left, then a MeasurementOnOff(OFF) marker, nothing after),
one warning per process naming the variable, and a complete profile."""
import subprocess

import otf2
import pytest

from measure import compile_program, per_rank_region, load_profile, run_measured

TRIPS = 20000
CHUNK = 256 * 1024   # SCOREP_TOTAL_MEMORY=2M: raw blocks of 2M/8


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_trace_stops_at_max_size_and_profile_goes_on(mpi, tmp_path):
    program = compile_program(mpi, "pingpong_long.c", tmp_path)
    env = {"SCOREP_ENABLE_TRACING": "true", "SCOREP_ENABLE_PROFILING": "true",
           "SCOREP_TOTAL_MEMORY": "2M", "SCOREP_TRACING_MAX_SIZE": "300k"}
    proc, experiment = run_measured(mpi, 2, program, tmp_path, env=env, args=[str(TRIPS)])
    assert f"RESULT {TRIPS % 256}" in proc.stdout
    warnings = [line for line in proc.stderr.splitlines() if "SCOREP_TRACING_MAX_SIZE" in line]
    assert len(warnings) == 2, proc.stderr          # one per process
    assert all("Warning" in w and "profile goes on" in w for w in warnings)

    # the profile is complete: every call counted, also those after the limit
    totals = per_rank_region(load_profile(experiment))
    for rank in (0, 1):
        assert totals[(rank, "MPI_Send")]["visits"] == TRIPS
        assert totals[(rank, "MPI_Recv")]["visits"] == TRIPS
        assert totals[(rank, "MPI_Send")]["messages_sent"] == TRIPS

    # the event data per process stays at the limit: 300k holds one block of
    # raw records, the block that crossed it holds the stop records; OTF2
    # encodes them into fewer bytes (a 16-byte enter into 3 to 14)
    evt = sorted((experiment / "traces").glob("*.evt"))
    assert len(evt) == 2
    for f in evt:
        assert CHUNK // 4 < f.stat().st_size <= CHUNK + 4096, (f, f.stat().st_size)

    printed = subprocess.run(["otf2-print", str(experiment / "traces.otf2")], capture_output=True,
                             text=True, timeout=120)
    assert printed.returncode == 0 and "error" not in printed.stderr.lower(), printed.stderr
    assert printed.stdout.count("MEASUREMENT_ON_OFF") == 2

    with otf2.reader.open(str(experiment / "traces.otf2")) as trace:
        per_location = {}
        for location, event in trace.events:
            per_location.setdefault(location.group.name, []).append(event)
    assert len(per_location) == 2
    for events in per_location.values():
        last = events[-1]
        assert isinstance(last, otf2.events.MeasurementOnOff), last
        assert last.measurement_mode == otf2.MeasurementMode.OFF
        assert sum(isinstance(e, otf2.events.MeasurementOnOff) for e in events) == 1
        stack = []
        for e in events:   # every region entered is left, in order, before the marker
            if isinstance(e, otf2.events.Enter):
                stack.append(e.region.name)
            elif isinstance(e, otf2.events.Leave):
                assert stack and stack.pop() == e.region.name
        assert stack == []
        sends = sum(isinstance(e, otf2.events.MpiSend) for e in events)
        assert 1000 < sends < TRIPS, sends                 # the part before the limit
        times = [e.time for e in events]
        assert times == sorted(times)
