"""Many short-lived threads (the shape of MPICH's
threads/pt2pt/alltoall): a thread that ends hands its location on to the next
new thread, so a process has as many locations as threads ran at once (plus
the main thread), every visit is counted, and the trace stays readable by
otf2-print with every record in it, whatever the number of threads and the
process's descriptor limit. (The MPI case: tests/mpi/test_mpi_short_lived_threads.py.)"""
import collections
import json
import os
import resource
import subprocess

from trace_programs import build_program, tracing_env


def descriptor_limit(limit):
    """preexec_fn: the child may hold at most `limit` open files."""
    def apply():
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
    return apply


def run_threads(build_dir, tmp_path, threads, concurrent, pairs, files=None, warnings=0, args=(),
                **env_extra):
    program = build_program(build_dir, "short_threads.c", tmp_path / "short_threads", "cc",
                            ["scorep_measurement"])
    env = dict(os.environ)
    env.update(tracing_env(tmp_path / "exp", SCOREP_ENABLE_PROFILING="true", **env_extra))
    proc = subprocess.run([str(program), str(threads), str(concurrent), str(pairs), *args], env=env,
                          capture_output=True, text=True, timeout=120,
                          preexec_fn=descriptor_limit(files) if files else None)
    assert proc.returncode == 0, proc.stderr
    assert f"threads: {threads}" in proc.stdout
    assert proc.stderr.lower().count("warning") == warnings, proc.stderr
    return tmp_path / "exp", proc.stderr


def profile_visits(experiment):
    """({region name: visits over all locations}, number of locations)."""
    profile = json.loads((experiment / "profile.json").read_text())
    names = {r["id"]: r["name"] for r in profile["regions"]}
    region_of = {c["id"]: c["region"] for c in profile["callpaths"]}
    visits = collections.Counter()
    for row in profile["rows"]:
        visits[names[region_of[row["callpath"]]]] += row["visits"]
    return visits, len(profile["locations"])


def run_otf2_print(experiment, files=None):
    return subprocess.run(["otf2-print", str(experiment / "traces.otf2")], capture_output=True,
                          text=True, timeout=300, preexec_fn=descriptor_limit(files) if files else None)


def otf2_print(experiment, files=None):
    """otf2-print's records as (kind, location, time, region or None), read
    under the given descriptor limit; fails on any error."""
    proc = run_otf2_print(experiment, files)
    assert proc.returncode == 0 and "ERROR" not in proc.stderr, proc.stderr[-2000:]
    records = []
    for line in proc.stdout.splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[0].isupper() and fields[1].isdigit() and fields[2].isdigit():
            region = line.split('Region: "')[1].split('"')[0] if 'Region: "' in line else None
            records.append((fields[0], int(fields[1]), int(fields[2]), region))
    return records


def check_trace(records, locations, expected_enters):
    """Exactly the expected Enter and Leave records per region and one
    ProgramBegin and ProgramEnd, on the given
    number of locations, each location's timestamps in order."""
    enters = collections.Counter(r for kind, _, _, r in records if kind == "ENTER")
    leaves = collections.Counter(r for kind, _, _, r in records if kind == "LEAVE")
    assert enters == leaves == expected_enters
    # the program region (the profile's root "short_threads") is the main
    # thread's ProgramBegin and ProgramEnd
    program = [(kind, location) for kind, location, _, _ in records if kind.startswith("PROGRAM_")]
    assert [kind for kind, _ in program] == ["PROGRAM_BEGIN", "PROGRAM_END"]
    assert len({location for _, location in program}) == 1
    assert len({location for _, location, _, _ in records}) == locations
    last = {}
    for kind, location, time, _ in records:
        assert time >= last.get(location, 0), f"location {location} goes back in time"
        last[location] = time


def test_2000_threads_four_at_a_time_share_five_locations_with_every_visit_and_record(build_dir, tmp_path):
    threads, concurrent, pairs = 2000, 4, 3
    experiment, _ = run_threads(build_dir, tmp_path, threads, concurrent, pairs)
    visits, locations = profile_visits(experiment)
    assert locations == concurrent + 1     # the main thread and one per thread alive at once
    assert visits == {"short_threads": 1, "main": 1, "THREADS": 0, "thread_body": threads, "work": threads * pairs}
    assert len(list((experiment / "traces").glob("*.evt"))) == concurrent + 1
    # a reader needs one descriptor per location: far below any limit now
    records = otf2_print(experiment, files=64)
    check_trace(records, concurrent + 1, {"main": 1, "thread_body": threads, "work": threads * pairs})


def test_48_threads_alive_at_once_spilling_under_a_32_descriptor_limit_leave_a_complete_trace(
        build_dir, tmp_path):
    # 2M of memory: 256 KiB blocks, a pool of 8; each thread records more than
    # a block, so most locations spill while all 48 are alive. The process may
    # hold 32 files: one spill file per location would exhaust them and leave
    # OTF2 unable to open the .evt files.
    threads, pairs = 48, 9000
    experiment, stderr = run_threads(build_dir, tmp_path, threads, threads, pairs, files=32,
                                     warnings=1, SCOREP_TOTAL_MEMORY="2M")
    # 49 locations are more than a reader may open under the same limit: the
    # one warning says so and how to read the trace; both hold
    assert "the trace has 49 locations" in stderr and "'ulimit -n 65'" in stderr, stderr
    refused = run_otf2_print(experiment, files=32)
    assert refused.returncode != 0 and "Too many" in refused.stderr + refused.stdout
    visits, locations = profile_visits(experiment)
    assert locations == threads + 1
    flushes = visits.pop("TRACE_BUFFER_FLUSH", 0)
    assert flushes >= threads - 8, "the run should have spilled"
    assert visits == {"short_threads": 1, "main": 1, "THREADS": 0, "thread_body": threads, "work": threads * pairs}
    assert not list(experiment.glob("*.raw")), "the spill file is removed"
    records = otf2_print(experiment, files=65)
    check_trace(records, threads + 1, {"main": 1, "thread_body": threads, "work": threads * pairs,
                                       "TRACE_BUFFER_FLUSH": flushes})


def test_threads_that_end_inside_a_region_keep_their_location_and_are_closed_at_the_end(build_dir, tmp_path):
    # a location with an open region is not handed on: the next thread would
    # inherit the region; finalisation leaves it, as for a thread still running
    threads, concurrent, pairs = 20, 2, 3
    experiment, _ = run_threads(build_dir, tmp_path, threads, concurrent, pairs, args=["open"])
    visits, locations = profile_visits(experiment)
    assert locations == threads + 1
    assert visits == {"short_threads": 1, "main": 1, "THREADS": 0, "thread_body": threads, "work": threads * pairs}
    records = otf2_print(experiment)
    check_trace(records, threads + 1, {"main": 1, "thread_body": threads, "work": threads * pairs})
