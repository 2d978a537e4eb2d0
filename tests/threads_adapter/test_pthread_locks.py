"""Read-write locks, spin locks and barriers of the POSIX threads adapter
(tasks/pthread.json): rwlock_known.c, 4 workers, with known calls per thread
and two known waits (a read lock main holds 300 ms after every worker is
blocked in it, a barrier the last worker reaches 300 ms after the others are
blocked in it), linked with the run-time and the link-time wrappers and
preloaded into the unmodified binary. Oracles: the program's source (which
thread makes which calls, how often), its sleeps (a wait cannot be shorter
than most of them, however long a worker was off the CPU before its call),
its output without measurement, and for the trace otf2-print's enters per
location."""
import collections
import json
import pathlib
import subprocess

import pytest

from test_pthread_adapter import below_threads, threads_of, traced_run

HERE = pathlib.Path(__file__).resolve().parent
PROGRAM = HERE / "rwlock_known.c"
THREADS, ROUNDS, HOLD, LATE = 4, 50, 0.3e9, 0.3e9
OUTPUT = f"shared {sum(range(1, THREADS + 1))}, counter {THREADS * ROUNDS}\n"
# below `worker` on each worker's location, on the main thread's location
WORKER = {"pthread_rwlock_rdlock": ROUNDS, "pthread_rwlock_wrlock": 1, "pthread_rwlock_unlock": ROUNDS + 1,
          "pthread_spin_lock": ROUNDS, "pthread_spin_unlock": ROUNDS, "pthread_barrier_wait": 1}
MAIN = {"pthread_create": THREADS, "pthread_join": THREADS, "pthread_rwlock_wrlock": 1,
        "pthread_rwlock_unlock": 7, "pthread_rwlock_tryrdlock": 1, "pthread_rwlock_trywrlock": 1,
        "pthread_rwlock_timedrdlock": 1, "pthread_rwlock_timedwrlock": 1, "pthread_rwlock_clockrdlock": 1,
        "pthread_rwlock_clockwrlock": 1, "pthread_spin_trylock": 1, "pthread_spin_unlock": 1}


@pytest.fixture(scope="module", params=["pthread", "linktime:pthread", "preloaded"])
def measured(request, build_dir, tmp_path_factory):
    """(the measured run, its experiment directory)."""
    tmp = tmp_path_factory.mktemp(request.param.replace(":", "_"))
    proc, experiment = traced_run(request, build_dir, tmp, PROGRAM, request.param)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, OUTPUT, "")
    return proc, experiment


def test_rwlock_spin_and_barrier_calls_are_counted_per_thread(measured):
    _, experiment = measured
    locations, paradigms = threads_of(experiment)
    assert len(locations) == THREADS + 1
    main = next(calls for calls in locations.values() if any(p[-1] == "pthread_create" for p in calls))
    # the main thread's calls below the program region, its tree's one root
    (program,) = {path[0] for path in main}
    assert paradigms[program] == {"measurement"}
    assert main == {(program,): 1, **{(program, name): visits for name, visits in MAIN.items()}}
    workers = [calls for calls in locations.values() if calls is not main]
    for calls in workers:
        assert below_threads(calls) == {("worker",): 1, **{("worker", name): visits for name, visits in WORKER.items()}}
    assert all(paradigms[name] == {"pthread"} for name in {**WORKER, **MAIN})
    # the trace: the same enters per worker location (otf2-print)
    out = subprocess.run(["otf2-print", str(experiment / "traces.otf2")], capture_output=True, text=True,
                         check=True).stdout
    enters = collections.defaultdict(collections.Counter)
    for line in out.splitlines():
        if line.startswith("ENTER "):
            enters[int(line.split()[1])][line.split('"')[1]] += 1
    assert sorted(enters.values(), key=len) == \
        [collections.Counter(dict(WORKER, worker=1))] * THREADS + [collections.Counter(MAIN)]


def test_rwlock_and_barrier_waits_are_time_in_the_call(measured):
    """Each worker's read locks last at least most of main's 300 ms hold of
    the write lock; three workers' barrier waits last most of the last
    one's 300 ms delay (after they are blocked in the barrier), the last
    one's a moment."""
    _, experiment = measured
    profile = json.loads((experiment / "profile.json").read_text())
    regions = {r["id"]: r["name"] for r in profile["regions"]}
    callpaths = {c["id"]: c for c in profile["callpaths"]}
    per_location = collections.defaultdict(dict)
    for row in profile["rows"]:
        cp = callpaths[row["callpath"]]
        parent = regions[callpaths[cp["parent"]]["region"]] if cp["parent"] is not None else None
        per_location[row["location"]][(parent, regions[cp["region"]])] = row["time_incl_ns"]
    workers = [times for times in per_location.values() if ("THREADS", "worker") in times]
    assert len(workers) == THREADS
    for times in workers:
        assert 0.8 * HOLD <= times[("worker", "pthread_rwlock_rdlock")] <= times[("THREADS", "worker")]
    barrier = sorted(times[("worker", "pthread_barrier_wait")] for times in workers)
    assert barrier[0] < 0.05e9 and all(wait >= 0.8 * LATE for wait in barrier[1:])
