"""SCOREP_TRACING_MAX_SIZE: a traced MPI
program that runs past a small limit ends with a readable trace of the part
before the limit (every open region left, then a MeasurementOnOff(OFF) marker,
nothing after), one warning per process naming the variable, and a complete
profile. The limit is one budget of bytes for all processes of a node (they
share the file system's free space), not a size per process."""
import os
import re
import subprocess

import otf2
import pytest

import trace_consistency
from conftest import MPI_LAUNCHERS, mpi_env
from measure import compile_program, per_rank_region, load_profile, run_measured

TRIPS = 20000


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

    # the event data of the node (both processes) stays within the limit: 300k
    # of raw records in all, which OTF2 encodes into fewer bytes (a 16-byte
    # enter into 3 to 14); each process had a fair part of it
    evt = sorted((experiment / "traces").glob("*.evt"))
    assert len(evt) == 2
    sizes = [f.stat().st_size for f in evt]
    assert sum(sizes) <= 300 * 1024, sizes
    assert all(size > 300 * 1024 // 10 for size in sizes), sizes

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


PAIR_TRIPS = 40000   # 128 raw bytes per round trip and rank: 5 MB per rank


def evt_bytes(experiment):
    return {f.name: f.stat().st_size for f in (experiment / "traces").glob("*.evt")}


def readable(experiment):
    """otf2-print reads the whole trace (bounded: it loops on a truncated file)."""
    printed = subprocess.run(["timeout", "20", "otf2-print", str(experiment / "traces.otf2")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return printed.returncode == 0 and "error" not in printed.stderr.lower(), printed


def check_stopped_run(proc, experiment, budget):
    """Four ranks, each stopped by the node's budget: the sum of their event
    files stays within it, every rank has its part, the trace reads, the
    profile counts every call, and each process said which limit stopped it."""
    assert f"RESULT {PAIR_TRIPS % 256}" in proc.stdout
    sizes = evt_bytes(experiment)
    assert len(sizes) == 4, sizes
    assert sum(sizes.values()) <= budget, sizes
    # (how the budget is shared depends on how the ranks were scheduled: not checked)
    warnings = [line for line in proc.stderr.splitlines() if "SCOREP_TRACING_MAX_SIZE=" in line]
    assert len(warnings) == 4, proc.stderr
    assert all(f"SCOREP_TRACING_MAX_SIZE={budget} bytes" in w and "node" in w for w in warnings), warnings
    ok, printed = readable(experiment)
    assert ok, printed.stderr[-2000:]
    assert printed.stdout.count("MEASUREMENT_ON_OFF") == 4   # every rank's trace ends with the marker
    totals = per_rank_region(load_profile(experiment))
    for rank in range(4):
        assert totals[(rank, "MPI_Send")]["visits"] == PAIR_TRIPS
        assert totals[(rank, "MPI_Recv")]["visits"] == PAIR_TRIPS
    # nothing of the shared budget stays behind in the experiment directory
    assert not list(experiment.glob(".scorep-trace-budget-*"))


def test_trace_max_size_is_one_budget_for_all_ranks_of_the_node(tmp_path):
    """SCOREP_TRACING_MAX_SIZE=3M with 4 ranks: at most 3M of event data on
    the node in all (it was up to 4 x 3M, one limit per process)."""
    program = compile_program("openmpi", "pingpong_pairs.c", tmp_path)
    env = {"SCOREP_ENABLE_TRACING": "true", "SCOREP_ENABLE_PROFILING": "true",
           "SCOREP_TRACING_MAX_SIZE": "3M"}
    proc, experiment = run_measured("openmpi", 4, program, tmp_path, env=env, args=[str(PAIR_TRIPS)])
    check_stopped_run(proc, experiment, 3 << 20)


@pytest.mark.skipif(os.geteuid() != 0, reason="mounts a tmpfs: needs root")
@pytest.mark.parametrize("disk_size", ["2m", "4m"])
def test_trace_on_a_small_disk_stays_within_half_its_free_space_for_the_node(disk_size, tmp_path):
    """The experiment directory on a 2 or 4 MiB tmpfs, the limit not set: the
    four ranks together record at most half its free space (the default), so
    the trace and the profile fit and say why the trace stops. (It was a
    quarter of that per rank, but at least one 1 MiB block each: on 2 MiB,
    twice the half.)"""
    program = compile_program("openmpi", "pingpong_pairs.c", tmp_path)
    disk = tmp_path / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={disk_size}", "tmpfs", str(disk)], check=True)
    try:
        free = os.statvfs(disk)
        half = free.f_bavail * free.f_frsize // 2
        env = {"SCOREP_ENABLE_TRACING": "true", "SCOREP_ENABLE_PROFILING": "true",
               "SCOREP_EXPERIMENT_DIRECTORY": str(disk / "experiment")}
        forwarded = [a for key in env for a in ("-x", key)]
        # launched here, not by conftest.mpirun: its consistency check takes a
        # run without SCOREP_TRACING_MAX_SIZE for a full trace; this one is
        # stopped by the default limit, so it is checked as partial below
        proc = subprocess.run(MPI_LAUNCHERS["openmpi"] + forwarded + ["-n", "4", str(program), str(PAIR_TRIPS)],
                              env=mpi_env(env), cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        experiment = disk / "experiment"
        # the event data of the node: at most half of what was free at the start
        sizes = evt_bytes(experiment)
        assert sum(sizes.values()) <= half, sizes
        violations, _, _ = trace_consistency.check_experiment(experiment, partial=True)
        assert not violations, trace_consistency.format_findings(experiment, violations)
        limit = re.search(r"SCOREP_TRACING_MAX_SIZE=(\d+) bytes", proc.stderr)
        assert limit, proc.stderr
        budget = int(limit.group(1))
        assert half * 0.9 < budget <= half, (budget, half)   # half of the free space, for the node
        assert not re.search(r"no space left|are lost", proc.stderr), proc.stderr
        check_stopped_run(proc, experiment, budget)
    finally:
        subprocess.run(["umount", str(disk)], check=False)
