"""OTF2's create/wait threading model in the trace of the POSIX threads
adapter, read with otf2-print (the OTF2 library's own reader): per thread a
ThreadCreate inside the creator's pthread_create, a ThreadBegin as the new
location's first event and a ThreadEnd as its last (around the start
routine's region), a ThreadWait inside the joiner's pthread_join, the four
with one sequence count and the process's thread contingent, a Comm whose
group (paradigm PTHREAD) lists the process's locations. Programs of known
behaviour: threads_known.c (4 threads at once), exit_known.c (3 threads one
after the other ending with pthread_exit: one location, reused), and on 2 MPI
ranks mpi_threads.c (one contingent per rank); scorep-check still finds each
trace consistent."""
import collections
import pathlib
import re
import subprocess
import sys

import pytest

from test_pthread_adapter import compile_plain, run, traced_run

HERE = pathlib.Path(__file__).resolve().parent
EVENT = re.compile(r"^(\w+)\s+(\d+)\s+(\d+)\s*(.*)$")
THREAD = re.compile(r'Thread Contingent: "([^"]*)" <(\d+)>, Sequence Count: (\d+)')


def trace_events(experiment):
    """{location: [(kind, time, detail)]} in record order: ENTER/LEAVE with the
    region's name, THREAD_* with (contingent name, sequence count)."""
    proc = subprocess.run(["otf2-print", str(experiment / "traces.otf2")], capture_output=True, text=True,
                          check=True)
    assert proc.stderr == ""
    events = collections.defaultdict(list)
    for line in proc.stdout.splitlines():
        m = EVENT.match(line)
        if not m or m.group(1) not in ("ENTER", "LEAVE", "THREAD_CREATE", "THREAD_BEGIN", "THREAD_END",
                                       "THREAD_WAIT"):
            continue
        kind, location, time, rest = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
        if kind.startswith("THREAD_"):
            t = THREAD.search(rest)
            detail = (t.group(1), int(t.group(3)))
        else:
            detail = rest.split('"')[1]
        events[location].append((kind, time, detail))
    return events


def contingents(experiment):
    """{comm name: [member location ids]} of the PTHREAD comms' groups (otf2-print -G)."""
    out = subprocess.run(["otf2-print", "-G", str(experiment / "traces.otf2")], capture_output=True, text=True,
                         check=True).stdout
    groups = {int(m.group(1)): [int(i) for i in re.findall(r'\d+ \("[^"]*" <(\d+)>\)', m.group(2))]
              for m in re.finditer(r'^GROUP\s+(\d+)\s+Name: "[^"]*" <\d+>, Type: COMM_GROUP, Paradigm: PTHREAD, '
                                   r'.*?Members?: (.*)$', out, re.M)}
    return {m.group(1): groups[int(m.group(2))]
            for m in re.finditer(r'^COMM\s+\d+\s+Name: "([^"]*)" <\d+>, Group: "[^"]*" <(\d+)>', out, re.M)
            if int(m.group(2)) in groups}


def check_thread_model(events, contingent, threads):
    """The creator makes `threads` threads and joins them: the four events of
    each thread with one sequence count, each where it belongs, in time
    order; returns {sequence: the location that ran it}."""
    creator = next(loc for loc, evs in events.items() if any(k == "THREAD_CREATE" for k, _, _ in evs))
    by_kind = collections.defaultdict(dict)
    ran_on = {}
    for location, evs in events.items():
        stack = []
        for i, (kind, time, detail) in enumerate(evs):
            if kind == "ENTER":
                stack.append(detail)
            elif kind == "LEAVE":
                stack.pop()
            else:
                name, sequence = detail
                assert name == contingent
                assert sequence not in by_kind[kind], (kind, sequence)
                by_kind[kind][sequence] = time
                if kind == "THREAD_CREATE":
                    assert location == creator and stack[-1:] == ["pthread_create"]
                elif kind == "THREAD_WAIT":
                    assert location == creator and stack[-1:] == ["pthread_join"]
                elif kind == "THREAD_BEGIN":
                    # the first event of the thread: nothing open, its start routine next
                    assert stack == [] and evs[i + 1][0] == "ENTER" and location != creator
                    ran_on[sequence] = location
                else:
                    # its last: the start routine left, nothing open
                    assert stack == [] and evs[i - 1][0] == "LEAVE" and ran_on[sequence] == location
    assert {kind: sorted(seqs) for kind, seqs in by_kind.items()} == \
        {kind: list(range(1, threads + 1)) for kind in ("THREAD_CREATE", "THREAD_BEGIN", "THREAD_END",
                                                        "THREAD_WAIT")}
    for sequence in range(1, threads + 1):
        times = [by_kind[kind][sequence] for kind in ("THREAD_CREATE", "THREAD_BEGIN", "THREAD_END",
                                                      "THREAD_WAIT")]
        assert times == sorted(times), (sequence, times)
    return ran_on


def measure(build_dir, tmp_path, source, mode, request=None):
    plain = run(compile_plain(tmp_path, source))
    assert plain.returncode == 0
    measured, experiment = traced_run(request, build_dir, tmp_path, source, mode)
    assert (measured.returncode, measured.stdout, measured.stderr) == (0, plain.stdout, "")
    check = subprocess.run([str(build_dir / "tools" / "scorep-check"), str(experiment)], capture_output=True,
                           text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    return experiment


@pytest.mark.parametrize("mode", ["pthread", "linktime:pthread", "preloaded"])
def test_threads_are_created_begun_ended_and_waited_for_in_the_trace(build_dir, tmp_path, request, mode):
    experiment = measure(build_dir, tmp_path, HERE / "threads_known.c", mode, request)
    events = trace_events(experiment)
    assert len(events) == 5
    ran_on = check_thread_model(events, "Threads of MPI Rank 0", 4)
    assert len(set(ran_on.values())) == 4     # at once: four locations
    assert contingents(experiment) == {"Threads of MPI Rank 0": [0, 1, 2, 3, 4]}


def test_threads_ended_by_pthread_exit_begin_and_end_on_the_reused_location(build_dir, tmp_path):
    experiment = measure(build_dir, tmp_path, HERE / "exit_known.c", "pthread")
    events = trace_events(experiment)
    ran_on = check_thread_model(events, "Threads of MPI Rank 0", 3)
    (worker,) = set(ran_on.values())          # one after the other: one location
    assert [kind for kind, _, _ in events[worker] if kind.startswith("THREAD_")] == \
        ["THREAD_BEGIN", "THREAD_END"] * 3


def test_each_rank_has_its_own_thread_contingent(tmp_path):
    """mpi_threads.c on 2 ranks (Open MPI): each rank creates and joins 2
    threads; each rank's events name its own contingent, whose group lists
    that rank's locations only (Open MPI's own threads among them)."""
    sys.path.insert(0, str(HERE.parent / "mpi"))
    from conftest import MPI_COMPILERS
    from measure import run_measured, scorep as mpi_scorep   # tests/mpi/measure.py
    program = tmp_path / "mpi_threads"
    subprocess.run(mpi_scorep("openmpi") + ["--thread=pthread", "--nocompiler", MPI_COMPILERS["openmpi"]["c"],
                                            "-O1", "-pthread", str(HERE / "mpi_threads.c"), "-o", str(program)],
                   check=True, capture_output=True, text=True)
    proc, experiment = run_measured("openmpi", 2, program, tmp_path)
    assert sorted(proc.stdout.splitlines()) == ["rank 0 ok", "rank 1 ok"]
    events = trace_events(experiment)
    groups = contingents(experiment)
    assert sorted(groups) == ["Threads of MPI Rank 0", "Threads of MPI Rank 1"]
    out = subprocess.run(["otf2-print", "-G", str(experiment / "traces.otf2")], capture_output=True, text=True,
                         check=True).stdout
    locations = [int(m.group(1)) for m in re.finditer(r'^LOCATION\s+(\d+)\s', out, re.M)]
    for rank in (0, 1):
        mine = {loc: evs for loc, evs in events.items() if loc >> 32 == rank}
        check_thread_model(mine, f"Threads of MPI Rank {rank}", 2)
        # the contingent's group: this rank's locations (Open MPI's own threads among them)
        assert sorted(groups[f"Threads of MPI Rank {rank}"]) == sorted(loc for loc in locations if loc >> 32 == rank)
