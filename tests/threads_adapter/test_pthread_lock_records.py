"""The trace's ThreadAcquireLock and ThreadReleaseLock records of pthread
mutexes, as Score-P 8.4 records them (docs/THREAD_ADAPTER.md, "Lock records"):
locks_known.c starts 4 threads that each lock and unlock one mutex 5 times and
take it once with pthread_mutex_trylock (retried until it succeeds), while the
main thread locks it once and waits on a condition variable (it prints how
many waits returned) until all are done; then it joins them. Oracle: the
program's arithmetic and output, read with otf2-print (the OTF2 library's own
reader): one acquisition per successful lock, trylock and cond-wait return,
one release per unlock and per cond wait, counted 1, 2, 3 ... in the order
the mutex was taken, each release naming the acquisition it ends, inside the
call that made it; one ThreadCreate, ThreadBegin, ThreadEnd and ThreadWait per
thread. scorep-check proves the trace consistent (its `locks` and `threads`
checks)."""
import collections
import re
import subprocess

import pytest

from test_pthread_adapter import compile_plain, run, traced_run
from test_pthread_trace import HERE

THREADS, ITER = 4, 5
LINE = re.compile(r"^(\w+)\s+(\d+)\s+(\d+)\s*(.*)$")
LOCK = re.compile(r"Lock: (\d+), Acquisition Order: (\d+)")


@pytest.fixture(scope="module", params=["pthread", "linktime:pthread"])
def traced(request, build_dir, tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("locks")
    source = HERE / "locks_known.c"
    plain = run(compile_plain(tmp_path, source))
    measured, experiment = traced_run(request, build_dir, tmp_path, source, request.param)
    # how often a thread had to wait on the condition depends on the scheduling,
    # so that count may differ between the runs; the records expected follow it
    def steady(out):
        return re.sub(r"cond_waits \d+", "cond_waits N", out)
    assert (measured.returncode, steady(measured.stdout), measured.stderr) == (0, steady(plain.stdout), "")
    waits = int(re.search(r"cond_waits (\d+)", measured.stdout).group(1))
    check = subprocess.run([str(build_dir / "tools" / "scorep-check"), str(experiment)], capture_output=True,
                           text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    out = subprocess.run(["otf2-print", str(experiment / "traces.otf2")], capture_output=True, text=True,
                         check=True).stdout
    per = collections.defaultdict(list)
    for line in out.splitlines():
        m = LINE.match(line)
        if m:
            per[int(m.group(2))].append((m.group(1), int(m.group(3)), m.group(4)))
    return waits, per


def test_every_lock_taken_and_given_back_is_one_acquire_and_one_release(traced):
    waits, per = traced
    kinds = collections.Counter(kind for events in per.values() for kind, _, _ in events)
    # workers: ITER locks and one trylock each; main: one lock, one retaking per wait
    taken = THREADS * (ITER + 1) + 1 + waits
    assert kinds["THREAD_ACQUIRE_LOCK"] == taken
    # workers: ITER + 1 unlocks each; main: one unlock, one giving up per wait
    assert kinds["THREAD_RELEASE_LOCK"] == taken
    for kind in ("THREAD_CREATE", "THREAD_BEGIN", "THREAD_END", "THREAD_WAIT"):
        assert kinds[kind] == THREADS


def test_acquisitions_are_counted_in_time_order_and_each_release_ends_its_own(traced):
    _, per = traced
    acquisitions = []
    for location, events in per.items():
        stack, held = [], None
        for kind, time, rest in events:
            if kind == "ENTER":
                stack.append(rest.split('"')[1])
            elif kind == "LEAVE":
                stack.pop()
            elif kind == "THREAD_ACQUIRE_LOCK":
                lock, order = map(int, LOCK.search(rest).groups())
                assert stack[-1] in ("pthread_mutex_lock", "pthread_mutex_trylock", "pthread_cond_wait")
                assert held is None
                held = (lock, order)
                acquisitions.append((time, lock, order))
            elif kind == "THREAD_RELEASE_LOCK":
                assert stack[-1] in ("pthread_mutex_unlock", "pthread_cond_wait")
                assert tuple(map(int, LOCK.search(rest).groups())) == held
                held = None
        assert held is None
    # one mutex, numbered 0 as the first the process locked; its acquisitions
    # 1, 2, 3 ... in the order of their times
    assert {lock for _, lock, _ in acquisitions} == {0}
    acquisitions.sort()
    assert [order for _, _, order in acquisitions] == list(range(1, len(acquisitions) + 1))
