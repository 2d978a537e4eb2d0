"""Threads started one after another with the thread and the memory adapters
together (scorep-exec --thread=pthread --memory, scorep --thread=pthread
--memory): pool_threads.c starts 200 threads one at a time, then re-creates
a pool of 4 workers 50 times; each thread frees a block of its own and keeps
one in thread-local storage that a pthread key destructor frees as the thread
ends (as the C library, Python and OpenMP runtimes free per-thread state).

- An ended thread's location is taken by the next thread: the experiment
  has the main thread's location and the pool's 4, however many threads ran
  (docs/THREAD_ADAPTER.md, "Locations"). Oracle: otf2-print's locations and
  the events it reads on each; profile.json's locations.
- No event precedes a created thread's ThreadBegin nor follows its
  ThreadEnd: the measurement's own start record (allocated by pthread_create's
  wrapper, freed on the new thread) is never recorded, nor is what the C
  library does for the thread after its start routine (key destructors, the
  thread's TLS). Oracle: otf2-print's events per location, the profile's
  roots, and the program's source for the bytes allocated and freed.
The program's own output (its sum over the threads) is the one of the
unmeasured run."""
import collections
import pathlib
import re
import subprocess

import pytest

from conftest import run_program, scorep, untimed_profile
from test_pthread_adapter import below_threads, compile_plain, threads_of
from test_pthread_trace import trace_events

HERE = pathlib.Path(__file__).resolve().parent
SOURCE = HERE / "pool_threads.c"
# pool_threads.c
REQUESTS, POOL, ROUNDS, BLOCK, KEPT = 200, 4, 50, 100, 48
THREADS = REQUESTS + POOL * ROUNDS
OUTPUT = f"{THREADS} threads, sum {THREADS * (THREADS + 1) // 2}: ok\n"
EVENT = re.compile(r"^([A-Z_]+)\s+(\d+)\s+\d+\s")


def measured_run(request, build_dir, tmp_path, adapters, form, tracing="true"):
    """pool_threads.c measured with the adapters (scorep-exec's options),
    preloaded into the plain binary or linked; returns the experiment."""
    plain_program = compile_plain(tmp_path, SOURCE)
    plain = run_program([plain_program])
    assert (plain.returncode, plain.stdout) == (0, OUTPUT)
    if form == "preloaded":
        program = plain_program
        prefix = [request.getfixturevalue("installed_prefix") / "bin" / "scorep-exec", *adapters, "--"]
    else:
        program = tmp_path / "pool_linked"
        subprocess.run(scorep(build_dir) + [*adapters, "--nocompiler", "gcc", "-O2", "-pthread", str(SOURCE),
                                            "-o", str(program)], check=True, capture_output=True, text=True)
        prefix = []
    experiment = tmp_path / "experiment"
    proc = run_program([*prefix, program], experiment, {"SCOREP_ENABLE_TRACING": tracing}, timeout=120)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, OUTPUT, "")
    return experiment


def otf2_locations(experiment):
    """{location id: number of events} as otf2-print reads them, for every
    location the trace defines."""
    archive = str(pathlib.Path(experiment) / "traces.otf2")
    definitions = subprocess.run(["otf2-print", "-G", archive], capture_output=True, text=True, check=True).stdout
    counts = {int(m.group(1)): 0 for m in re.finditer(r"^LOCATION\s+(\d+)\s", definitions, re.M)}
    events = subprocess.run(["otf2-print", archive], capture_output=True, text=True, check=True).stdout
    for line in events.splitlines():
        m = EVENT.match(line)
        if m:
            counts[int(m.group(2))] += 1
    return counts


@pytest.mark.parametrize("adapters", [["--thread=pthread", "--memory"], ["--memory"], ["--thread=pthread"]],
                         ids=["thread+memory", "memory", "thread"])
def test_threads_started_one_after_another_hand_their_locations_back(request, build_dir, tmp_path, adapters):
    experiment = measured_run(request, build_dir, tmp_path, adapters, "preloaded")
    counts = otf2_locations(experiment)
    # the main thread's and at most one per pool worker (the 200 threads of
    # the requests take one of those); with the thread adapter the pool's
    # workers have their locations from their ThreadBegin on, so while they
    # meet at the barrier: all POOL of them
    if "--thread=pthread" in adapters:
        assert len(counts) == 1 + POOL, counts
    else:
        # a location from the thread's first malloc, after the barrier
        assert 2 <= len(counts) <= 1 + POOL, counts
    assert all(n > 0 for n in counts.values()), counts
    profile_locations, _ = threads_of(experiment)
    assert len(profile_locations) == len(counts)


@pytest.mark.parametrize("form", ["preloaded", "linked"])
def test_no_event_comes_before_a_threads_begin_or_after_its_end(request, build_dir, tmp_path, form):
    experiment = measured_run(request, build_dir, tmp_path, ["--thread=pthread", "--memory"], form)
    events = trace_events(experiment)
    main = next(loc for loc, evs in events.items() if any(kind == "THREAD_CREATE" for kind, _, _ in evs))
    begun = collections.Counter()
    for location, evs in events.items():
        if location == main:
            continue
        # a worker location: one ThreadBegin ... ThreadEnd span per thread
        # that held it, the start routine's region right inside, nothing
        # between the spans
        assert evs[0][0] == "THREAD_BEGIN", (location, evs[:3])
        inside = False
        for i, (kind, _, detail) in enumerate(evs):
            if kind == "THREAD_BEGIN":
                assert not inside, (location, i)
                assert evs[i + 1][:1] == ("ENTER",) and evs[i + 1][2] in ("request", "pool_worker"), evs[i + 1]
                inside = True
                begun[detail[1]] += 1
            elif kind == "THREAD_END":
                assert inside and evs[i - 1][0] == "LEAVE", (location, i)
                inside = False
            else:
                assert inside, (location, i, kind, detail)
        assert not inside
    assert sorted(begun) == list(range(1, THREADS + 1)) and set(begun.values()) == {1}

    # the profile: every worker location's calls below its start routines;
    # the bytes of the program's own malloc and free calls on the threads
    locations, _ = threads_of(experiment)
    rows = profile_memory(experiment)
    for location, calls in locations.items():
        if any(path[-1] == "pthread_create" for path in calls):
            continue
        assert {path[0] for path in below_threads(calls)} <= {"request", "pool_worker"}, calls
    rows = {path[2:]: figures for path, figures in rows.items() if path[1:2] == ("THREADS",)}
    assert rows[("request", "malloc")] == {"allocation_size": REQUESTS * (BLOCK + KEPT)}
    assert rows[("request", "free")] == {"deallocation_size": REQUESTS * BLOCK}
    assert rows[("pool_worker", "malloc")] == {"allocation_size": POOL * ROUNDS * (BLOCK + KEPT)}
    assert rows[("pool_worker", "free")] == {"deallocation_size": POOL * ROUNDS * BLOCK}
    assert not [path for path in rows if path[0] == "free"]


def profile_memory(experiment):
    """{call path: {metric name: value}} of profile.json's memory metrics
    that add up, summed over locations (the heap's high-water mark, a
    maximum, is tests/memory's)."""
    rows = collections.defaultdict(dict)
    for (_, path), figures in untimed_profile(experiment)[1].items():
        for name, value in figures["metrics"].items():
            if name != "maximum_heap_memory_allocated":
                rows[path][name] = rows[path].get(name, 0) + value
    return dict(rows)
