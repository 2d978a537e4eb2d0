"""The POSIX threads adapter (scorep --thread=pthread, scorep-exec
--thread=pthread; generated/thread/pthread/ from tasks/pthread.json): a
4-thread program of known behaviour (threads_known.c) linked with the
run-time and the link-time wrappers and preloaded into the unmodified
binary. Oracle: the program's source (which thread makes which calls, how
often) and its output without measurement; the OTF2 trace's own locations
and events for the traced runs. The measurement's own locks (definitions,
a thread's location, trace blocks) never show up: the exact per-thread
lock counts would change."""
import collections
import json
import pathlib
import subprocess
import sys

import pytest

from conftest import run_program, scorep

HERE = pathlib.Path(__file__).resolve().parent
PROGRAM = HERE / "threads_known.c"
THREADS, ROUNDS = 4, 100
# threads_known.c: below `worker` on each worker's location; on the main thread's
WORKER = {"pthread_mutex_lock": ROUNDS + 1, "pthread_mutex_unlock": ROUNDS + 2,
          "pthread_mutex_trylock": 1, "pthread_cond_broadcast": 1, "pthread_barrier_wait": 1}
MAIN = {"pthread_create": THREADS, "pthread_join": THREADS, "pthread_mutex_lock": 1,
        "pthread_mutex_unlock": 1}   # and pthread_cond_wait, as often as the schedule makes it wait


def compile_plain(tmp_path, source=PROGRAM):
    program = tmp_path / f"{source.stem}_plain"
    subprocess.run(["gcc", "-O2", "-pthread", str(source), "-o", str(program)], check=True)
    return program


def traced_run(request, build_dir, tmp_path, source, mode):
    """source measured with the thread adapter and traced: built with
    scorep --thread=<mode> (pthread, linktime:pthread), or built plainly and
    run under the installed scorep-exec --thread=pthread (preloaded).
    Returns (the run, its experiment directory)."""
    if mode == "preloaded":
        program = compile_plain(tmp_path, source)
        prefix = [request.getfixturevalue("installed_prefix") / "bin" / "scorep-exec", "--thread=pthread", "--"]
    else:
        program = tmp_path / f"{source.stem}_linked"
        subprocess.run(scorep(build_dir) + [f"--thread={mode}", "--nocompiler", "gcc", "-O2", "-pthread",
                                            str(source), "-o", str(program)],
                       check=True, capture_output=True, text=True)
        prefix = []
    experiment = tmp_path / "experiment"
    return run(program, experiment, {"SCOREP_ENABLE_TRACING": "true"}, argv_prefix=prefix), experiment


def run(program, experiment=None, extra_env=None, argv_prefix=()):
    return run_program([*argv_prefix, program], experiment, extra_env)


def threads_of(experiment):
    """{location: {call path (tuple of region names): visits}} of profile.json,
    and {region name: its regions' paradigms}."""
    profile = json.loads((pathlib.Path(experiment) / "profile.json").read_text())
    regions = {r["id"]: r for r in profile["regions"]}
    callpaths = {c["id"]: c for c in profile["callpaths"]}

    def path(cp):
        names = []
        while cp is not None:
            names.append(regions[callpaths[cp]["region"]]["name"])
            cp = callpaths[cp]["parent"]
        return tuple(reversed(names))

    locations = collections.defaultdict(dict)
    for row in profile["rows"]:
        if row["visits"]:
            locations[row["location"]][path(row["callpath"])] = row["visits"]
    paradigms = collections.defaultdict(set)
    for r in profile["regions"]:
        paradigms[r["name"]].add(r["paradigm"])
    return dict(locations), dict(paradigms)


def creators(experiment):
    """{location id: (its thread number, the creator's thread number or None)} of profile.json."""
    profile = json.loads((pathlib.Path(experiment) / "profile.json").read_text())
    return {loc["id"]: (loc["thread"], loc.get("creator")) for loc in profile["locations"]}


def program_root(calls, paradigms):
    """The one root of a location's call paths, which must be the program
    region (the measurement's, named after the executable)."""
    (root,) = {path[0] for path in calls}
    assert paradigms[root] == {"measurement"}, root
    return root


def below_threads(calls):
    """A created thread's call paths (those with visits) below Score-P's place
    for them, the program region's artificial child THREADS."""
    assert {p[1] for p in calls} == {"THREADS"}, sorted(calls)
    (program,) = {p[0] for p in calls}
    return {p[2:]: visits for p, visits in calls.items()}


def check_profile(experiment, prefix=()):
    """Five locations: the main thread's calls (below prefix: compiler
    instrumentation puts them under main) and four workers, each rooted at
    its start routine with the exact lock counts of threads_known.c."""
    locations, regions = threads_of(experiment)
    assert len(locations) == THREADS + 1
    main = [calls for calls in locations.values() if any(p[-1] == "pthread_create" for p in calls)]
    assert len(main) == 1
    main = main[0]
    # the main thread's tree: the program region (named after the executable) its one root
    program = program_root(main, regions)
    assert main.pop((program,)) == 1
    compiler = bool(prefix)
    prefix = (program,) + prefix
    waits = main.pop(prefix + ("pthread_cond_wait",), 0)
    assert 0 <= waits <= THREADS
    assert {p[len(prefix):]: v for p, v in main.items() if len(p) > len(prefix)} == \
        {(name,): visits for name, visits in MAIN.items()}
    workers = [calls for calls in locations.values() if calls is not main]
    # each worker's location names the main thread's as its creator
    created = creators(experiment)
    main_id = next(loc for loc, calls in locations.items() if calls is main)
    assert created[main_id][1] is None
    assert sorted(creator for loc, (_thread, creator) in created.items() if loc != main_id) == \
        [created[main_id][0]] * THREADS
    # the start routine heads each thread's tree below THREADS: the
    # trampoline's region, or the routine's own where the compiler
    # instrumented it (then the trampoline's is never entered)
    for calls in workers:
        tree = below_threads(calls)
        assert {p[0] for p in tree} == {"worker"}
        assert tree[("worker",)] == 1
        assert {p[1:]: v for p, v in tree.items() if len(p) > 1} == \
            {(name,): visits for name, visits in WORKER.items()}
    assert "pthread" in regions["worker"] and ("compiler" in regions["worker"]) == compiler
    assert regions["THREADS"] == {"pthread"}
    assert regions["pthread_mutex_lock"] == {"pthread"}


def check_trace(experiment):
    """otf2-print: five locations, each worker's events begin with the
    enter of `worker`, exact lock enters per worker."""
    out = subprocess.run(["otf2-print", str(pathlib.Path(experiment) / "traces.otf2")], capture_output=True,
                         text=True, check=True).stdout
    enters = collections.defaultdict(list)
    for line in out.splitlines():
        fields = line.split()
        if fields and fields[0] == "ENTER":
            enters[int(fields[1])].append(line.split('"')[1])
    assert len(enters) == THREADS + 1
    workers = [names for names in enters.values() if "pthread_create" not in names]
    assert len(workers) == THREADS
    for names in workers:
        # one region for the start routine: the trampoline's, or the
        # routine's own instrumented one in its place
        assert names[0] == "worker" and names.count("worker") == 1
        assert names.count("pthread_mutex_lock") == WORKER["pthread_mutex_lock"]


@pytest.mark.parametrize("mode,compiler,tracing", [("pthread", False, "false"), ("pthread", False, "true"),
                                                   ("linktime:pthread", False, "true"),
                                                   ("pthread", True, "true")])
def test_linked_pthread_adapter_records_each_thread_under_its_start_routine(build_dir, tmp_path, mode,
                                                                            compiler, tracing):
    plain = run(compile_plain(tmp_path))
    assert plain.returncode == 0, plain.stderr
    program = tmp_path / "threads_linked"
    subprocess.run(scorep(build_dir) + [f"--thread={mode}"] + ([] if compiler else ["--nocompiler"]) +
                   ["gcc", "-O2", "-pthread", str(PROGRAM), "-o", str(program)],
                   check=True, capture_output=True, text=True)
    # the wrappers are where the mode says: in the program, or a library it loads
    dynamic = subprocess.run(["ldd", str(program)], capture_output=True, text=True, check=True).stdout
    assert ("libscorep_adapter_thread_pthread_rt.so" in dynamic) == (mode == "pthread")
    experiment = tmp_path / "experiment"
    measured = run(program, experiment, {"SCOREP_ENABLE_TRACING": tracing})
    assert (measured.returncode, measured.stdout, measured.stderr) == (plain.returncode, plain.stdout, "")
    check_profile(experiment, ("main",) if compiler else ())
    if tracing == "true":
        check_trace(experiment)


def test_preloaded_pthread_adapter_records_each_thread_under_its_start_routine(installed_prefix, tmp_path):
    program = compile_plain(tmp_path)
    plain = run(program)
    experiment = tmp_path / "experiment"
    measured = run(program, experiment, {"SCOREP_ENABLE_TRACING": "true"},
                   argv_prefix=[installed_prefix / "bin" / "scorep-exec", "--thread=pthread", "--verbose", "--"])
    assert (measured.returncode, measured.stdout) == (plain.returncode, plain.stdout)
    assert "libscorep_adapter_thread_pthread_rt.so" in measured.stderr
    check_profile(experiment)
    check_trace(experiment)


@pytest.mark.parametrize("mode", ["pthread", "linktime:pthread"])
def test_pthread_exit_leaves_the_start_routine_so_the_location_is_reused(build_dir, tmp_path, mode):
    """Threads ended by pthread_exit end with no region open: the next thread
    takes the ended one's location (runtime/core/location.c), as for threads that
    return; with the start routine's region left open each would keep its own."""
    source = HERE / "exit_known.c"
    plain = run(compile_plain(tmp_path, source))
    program = tmp_path / "exit_linked"
    subprocess.run(scorep(build_dir) + [f"--thread={mode}", "--nocompiler", "gcc", "-O2", "-pthread",
                                        str(source), "-o", str(program)], check=True, capture_output=True, text=True)
    experiment = tmp_path / "experiment"
    measured = run(program, experiment)
    assert (measured.returncode, measured.stdout, measured.stderr) == (plain.returncode, plain.stdout, "")
    locations, _ = threads_of(experiment)
    assert len(locations) == 2
    (worker,) = [calls for calls in locations.values() if not any(p[-1] == "pthread_create" for p in calls)]
    assert below_threads(worker) == {("leaver",): 3, ("leaver", "pthread_exit"): 3}


@pytest.mark.parametrize("tool", ["scorep", "scorep-exec"])
def test_unknown_thread_paradigm_is_an_error_naming_the_valid_ones(build_dir, tmp_path, tool):
    if tool == "scorep":
        argv = scorep(build_dir) + ["--thread=tbb", "gcc", str(PROGRAM), "-o", str(tmp_path / "never")]
    else:
        argv = [sys.executable, str(pathlib.Path(build_dir) / "tools" / "scorep-exec"), "--thread=tbb", "--",
                "true"]
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "unknown thread paradigm 'tbb'" in proc.stderr and "valid: pthread, omp, none" in proc.stderr
    assert not (tmp_path / "never").exists()


def test_created_threads_name_the_thread_that_created_them(build_dir, tmp_path):
    """main creates parent, parent creates child: child's location names
    parent's as its creator, parent's names main's."""
    source = HERE / "spawn_known.c"
    plain = run(compile_plain(tmp_path, source))
    program = tmp_path / "spawn_linked"
    subprocess.run(scorep(build_dir) + ["--thread=pthread", "--nocompiler", "gcc", "-O2", "-pthread",
                                        str(source), "-o", str(program)], check=True, capture_output=True, text=True)
    experiment = tmp_path / "experiment"
    measured = run(program, experiment)
    assert (measured.returncode, measured.stdout, measured.stderr) == (plain.returncode, plain.stdout, "")
    locations, _ = threads_of(experiment)
    created = creators(experiment)
    roots = {" ".join(sorted({path[0] for path in (calls if ("spawn_linked",) in calls else below_threads(calls))})):
             created[loc] for loc, calls in locations.items()}
    # the main thread's tree below the program region, and the start routines of the two threads
    assert set(roots) == {"spawn_linked", "parent", "child"}
    main_calls = next(calls for calls in locations.values() if ("spawn_linked",) in calls)
    assert {path[1] for path in main_calls if len(path) > 1} == {"pthread_create", "pthread_join"}
    main, parent, child = roots["spawn_linked"], roots["parent"], roots["child"]
    assert (main[1], parent[1], child[1]) == (None, main[0], parent[0])


def test_lock_wait_is_time_in_pthread_mutex_lock(build_dir, tmp_path):
    """lockwait_known.c holds the mutex 300 ms after the waiter is blocked
    in its lock: the waiter's pthread_mutex_lock lasts about that long (not
    less, however long the waiter was off the CPU before it locked), and
    below its start routine nothing else takes time."""
    source = HERE / "lockwait_known.c"
    program = tmp_path / "lockwait_linked"
    subprocess.run(scorep(build_dir) + ["--thread=pthread", "--nocompiler", "gcc", "-O2", "-pthread",
                                        str(source), "-o", str(program)], check=True, capture_output=True, text=True)
    experiment = tmp_path / "experiment"
    measured = run(program, experiment)
    assert (measured.returncode, measured.stdout, measured.stderr) == (0, "held the lock 300 ms\n", "")
    profile = json.loads((experiment / "profile.json").read_text())
    regions = {r["id"]: r["name"] for r in profile["regions"]}
    callpaths = {c["id"]: c for c in profile["callpaths"]}
    times = {}
    for row in profile["rows"]:
        cp = callpaths[row["callpath"]]
        parent = regions[callpaths[cp["parent"]]["region"]] if cp["parent"] is not None else None
        times[(parent, regions[cp["region"]])] = row["time_incl_ns"]
    # the sleep is the oracle: the wait cannot be shorter than most of it
    assert 0.25e9 <= times[("waiter", "pthread_mutex_lock")] <= times[("THREADS", "waiter")]
    assert times[("waiter", "pthread_mutex_unlock")] < 0.05e9
    # the main thread's join (below the program region) waits for the waiter, which waits for the lock
    assert times[("lockwait_linked", "pthread_join")] <= times[("THREADS", "waiter")]


def test_scorep_exec_thread_on_a_static_binary_says_to_relink(build_dir, tmp_path):
    program = tmp_path / "static"
    subprocess.run(["gcc", "-static", "-O2", "-pthread", str(PROGRAM), "-o", str(program)], check=True)
    proc = subprocess.run([sys.executable, str(pathlib.Path(build_dir) / "tools" / "scorep-exec"),
                           "--thread=pthread", "--", str(program)], capture_output=True, text=True)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert "statically linked" in proc.stderr and "scorep --thread=pthread" in proc.stderr


def test_std_threads_are_rooted_at_the_routine_libstdcxx_starts_them_in(build_dir, tmp_path):
    """std::thread's pthread_create is libstdc++'s call: the run-time wrappers
    (the default) see it, and each thread's locks nest under the start routine
    libstdc++ gives (named from its symbol, or its object and offset where the
    library is stripped)."""
    source = HERE / "std_thread_known.cc"
    plain_program = tmp_path / "std_plain"
    subprocess.run(["g++", "-O2", "-pthread", str(source), "-o", str(plain_program)], check=True)
    plain = run(plain_program)
    program = tmp_path / "std_linked"
    subprocess.run(scorep(build_dir) + ["--thread=pthread", "--nocompiler", "g++", "-O2", "-pthread",
                                        str(source), "-o", str(program)], check=True, capture_output=True, text=True)
    experiment = tmp_path / "experiment"
    measured = run(program, experiment)
    assert (measured.returncode, measured.stdout, measured.stderr) == (plain.returncode, "total 135\n", "")
    locations, _ = threads_of(experiment)
    assert len(locations) == 4
    main = next(calls for calls in locations.values() if ("std_linked", "pthread_create") in calls)
    assert main[("std_linked", "pthread_create")] == 3 and main[("std_linked", "pthread_join")] == 3
    for calls in (below_threads(c) for c in locations.values() if c is not main):
        (root,) = {path[0] for path in calls}
        assert root.startswith(("execute_native_thread_routine", "thread start libstdc++.so"))
        assert {path[1:]: visits for path, visits in calls.items() if len(path) > 1} == \
            {("pthread_mutex_lock",): 10, ("pthread_mutex_unlock",): 10}
