"""The OpenMP adapter's OMPT front-end (runtime/omp_adapter/ompt.c):
omp_constructs.c built with clang's -fopenmp runs on LLVM's libomp, which
reports its constructs through OMPT callbacks, and must give the profile
and trace the GOMP wrappers give the GCC build on libgomp. Each mode
(preloaded by the installed scorep-exec --thread=omp, or linked by scorep)
runs both builds. Oracles: the GCC build's run (construct visits per
location), the program's own output (its arithmetic, unchanged under
measurement), otf2-print (fork/join and team records, locations, their
order), nm (which runtime entry points the builds call)."""
import collections
import json
import os
import pathlib
import re
import shutil
import subprocess

import pytest

import omp_task_records

from conftest import build_option, run_program, scorep

HERE = pathlib.Path(__file__).resolve().parent
PROGRAM = HERE / "programs" / "omp_constructs.c"
REGIONS, ITEMS, THREADS = 3, 40, 2
ENV = {"OMP_NUM_THREADS": str(THREADS), "OMP_WAIT_POLICY": "passive", "SCOREP_ENABLE_TRACING": "true"}
LIBOMP = pathlib.Path("/usr/lib/llvm-14/lib/libomp.so.5")
# which member enters these depends on the run (the dynamic loop's items,
# the single's executor, which member runs a task and where it waits then):
# compared summed over the team
RACED = ("!$omp critical", "!$omp critical sblock", "!$omp single sblock", "!$omp task")


def clang_available():
    if shutil.which("clang") is None or shutil.which("gcc") is None:
        return False
    probe = subprocess.run(["clang", "-fopenmp", "-x", "c", "-", "-o", os.devnull],
                           input="#include <omp.h>\nint main(void){return omp_get_max_threads() < 1;}\n",
                           capture_output=True, text=True)
    return probe.returncode == 0


def construct(name):
    """"!$omp parallel @omp_constructs.c:27" -> "!$omp parallel" """
    return name.split(" @")[0]


def rows_of(experiment):
    """{location: {call path of construct names, below the program region: visits}}"""
    profile = json.loads((experiment / "profile.json").read_text())
    regions = {r["id"]: r["name"] for r in profile["regions"]}
    callpaths = {c["id"]: c for c in profile["callpaths"]}

    def path(cid):
        names = []
        while cid is not None:
            names.append(construct(regions[callpaths[cid]["region"]]))
            cid = callpaths[cid]["parent"]
        return tuple(reversed(names))[1:]
    rows = collections.defaultdict(collections.Counter)
    for row in profile["rows"]:
        if row["visits"]:
            rows[row["location"]][path(row["callpath"])] += row["visits"]
    return rows, [r["name"] for r in profile["regions"]]


def construct_visits(paths):
    counts = collections.Counter()
    for path, visits in paths.items():
        if path:
            counts[path[-1]] += visits
    return counts


def trace_events(experiment):
    return subprocess.run(["otf2-print", str(experiment / "traces.otf2")], capture_output=True, text=True,
                          check=True).stdout.splitlines()


def traced_unmodified(compiler, source, tmp_path, installed_prefix):
    """(the run, its experiment) of source built by compiler -fopenmp and
    traced unmodified under scorep-exec --thread=omp"""
    binary = tmp_path / f"{source.stem}_{compiler}"
    subprocess.run([compiler, "-fopenmp", "-g", "-O2", str(source), "-o", str(binary)], check=True)
    experiment = tmp_path / compiler
    proc = run_program([installed_prefix / "bin" / "scorep-exec", "--thread=omp", "--", binary], experiment,
                       {"OMP_WAIT_POLICY": "passive", "SCOREP_ENABLE_TRACING": "true"})
    assert proc.returncode == 0, proc.stderr
    return proc, experiment


class Run:
    def __init__(self, binary, proc, experiment):
        self.binary, self.proc, self.experiment = binary, proc, experiment


def build_and_run(compiler, mode, request, build_dir, tmp):
    """omp_constructs.c built by compiler (gcc or clang), run measured in mode."""
    binary = tmp / f"omp_constructs_{compiler}_{mode}"
    if mode == "linked":
        # no compiler instrumentation: clang has none, and the builds must compare
        built = subprocess.run(scorep(build_dir) + ["--nocompiler", compiler, "-fopenmp", "-g", "-O2", str(PROGRAM),
                                                    "-o", str(binary)], capture_output=True, text=True)
        prefix = []
    else:
        built = subprocess.run([compiler, "-fopenmp", "-g", "-O2", str(PROGRAM), "-o", str(binary)],
                               capture_output=True, text=True)
        prefix = [request.getfixturevalue("installed_prefix") / "bin" / "scorep-exec", "--thread=omp", "--"]
    assert built.returncode == 0, built.stderr
    experiment = tmp / f"experiment_{compiler}_{mode}"
    proc = run_program([*prefix, binary], experiment, ENV)
    assert proc.returncode == 0, proc.stderr
    return Run(binary, proc, experiment)


@pytest.fixture(scope="module", params=["preloaded", "linked"])
def runs(request, build_dir, tmp_path_factory):
    """(the GCC build's run, the clang build's run, the clang build unmeasured, mode)"""
    if not clang_available():
        pytest.skip("no clang with libomp (Debian: clang, libomp-dev)")
    if shutil.which("otf2-print") is None:
        pytest.skip("no otf2-print")
    tmp = tmp_path_factory.mktemp(f"ompt_{request.param}")
    plain_binary = tmp / "omp_constructs_clang_plain"
    subprocess.run(["clang", "-fopenmp", "-g", "-O2", str(PROGRAM), "-o", str(plain_binary)], check=True)
    plain = run_program([plain_binary], None, ENV)
    assert plain.returncode == 0, plain.stderr
    gcc = build_and_run("gcc", request.param, request, build_dir, tmp)
    clang = build_and_run("clang", request.param, request, build_dir, tmp)
    return gcc, clang, plain, request.param


def test_clang_program_output_is_unchanged_under_measurement(runs):
    _, clang, plain, _ = runs
    assert clang.proc.stdout == plain.stdout
    assert f"threads {THREADS} " in plain.stdout
    assert f"items {REGIONS * ITEMS} singles {REGIONS} tasks {REGIONS * THREADS}" in plain.stdout


def test_clang_build_calls_libomps_entry_points_and_no_gomp_ones(runs):
    """The premise of one front-end per program: clang's code calls
    __kmpc_*, so the GOMP wrappers never see it."""
    _, clang, _, _ = runs
    symbols = subprocess.run(["nm", "-D", "--undefined-only", str(clang.binary)], capture_output=True, text=True,
                             check=True).stdout
    assert "__kmpc_fork_call" in symbols, symbols
    assert "GOMP_" not in symbols, symbols


def test_clang_build_records_the_gcc_builds_constructs_on_the_same_locations(runs):
    gcc, clang, _, _ = runs
    gcc_rows, _ = rows_of(gcc.experiment)
    clang_rows, _ = rows_of(clang.experiment)
    assert sorted(clang_rows) == sorted(gcc_rows) and len(gcc_rows) == THREADS, (gcc_rows.keys(), clang_rows.keys())
    gcc_team, clang_team = collections.Counter(), collections.Counter()
    for location in gcc_rows:
        expected, got = construct_visits(gcc_rows[location]), construct_visits(clang_rows[location])
        gcc_team.update(expected)
        clang_team.update(got)
        for name in set(expected) | set(got):
            if name not in RACED:
                assert got[name] == expected[name], (location, name, got, expected)
        assert expected["!$omp parallel"] == REGIONS, expected
    assert clang_team == gcc_team, (clang_team, gcc_team)
    # the program's own arithmetic: one critical per item, a single's block per region twice, a task per member
    assert clang_team["!$omp critical sblock"] == REGIONS * ITEMS
    assert clang_team["!$omp single sblock"] == 2 * REGIONS
    assert clang_team["!$omp create task"] == REGIONS * THREADS
    assert clang_team["!$omp task"] == REGIONS * THREADS


def test_clang_builds_constructs_nest_as_the_gcc_builds(runs):
    """Each member's constructs continue the forker's call path, and nest
    as the GCC build's do (the critical inside the loop, a worksharing
    construct's implicit barrier inside it)."""
    gcc, clang, _, _ = runs
    gcc_rows, _ = rows_of(gcc.experiment)
    clang_rows, _ = rows_of(clang.experiment)

    def unraced(paths):
        return {p for p in paths if not set(p) & set(RACED)}
    for location in gcc_rows:
        assert unraced(clang_rows[location]) == unraced(gcc_rows[location]), location
    union = lambda rows: set().union(*(set(p for p in paths if "!$omp task" not in p) for paths in rows.values()))
    assert union(clang_rows) == union(gcc_rows)
    assert ("!$omp parallel", "!$omp for", "!$omp critical", "!$omp critical sblock") in union(clang_rows)
    assert ("!$omp parallel", "!$omp single", "!$omp implicit barrier") in union(clang_rows)
    # a task runs where its member waits for it (here: in the taskwait, or a barrier)
    task_paths = {p for paths in clang_rows.values() for p in paths if p and p[-1] == "!$omp task"}
    assert task_paths and all(p[0] == "!$omp parallel" and p[-2] in ("!$omp taskwait", "!$omp implicit barrier",
                                                                     "!$omp barrier") for p in task_paths), task_paths


def test_clang_builds_trace_has_a_fork_join_per_region_and_team_records_per_member(runs):
    gcc, clang, _, _ = runs
    events = trace_events(clang.experiment)
    kinds = collections.Counter(line.split()[0] for line in events if line.startswith("THREAD_"))
    # a task switched to once, and back to the waiting task at most once
    # (where it ran depends on the schedule)
    switches = kinds.pop("THREAD_TASK_SWITCH", 0)
    assert REGIONS * THREADS <= switches <= 2 * REGIONS * THREADS, switches
    # and the critical sections' locks, one acquisition and release per item;
    # each thread's task per region
    assert kinds == {"THREAD_FORK": REGIONS, "THREAD_JOIN": REGIONS, "THREAD_TEAM_BEGIN": REGIONS * THREADS,
                     "THREAD_TEAM_END": REGIONS * THREADS, "THREAD_ACQUIRE_LOCK": REGIONS * ITEMS,
                     "THREAD_RELEASE_LOCK": REGIONS * ITEMS, "THREAD_TASK_CREATE": REGIONS * THREADS,
                     "THREAD_TASK_COMPLETE": REGIONS * THREADS}, kinds
    gcc_kinds = collections.Counter(line.split()[0] for line in trace_events(gcc.experiment)
                                    if line.startswith("THREAD_"))
    gcc_kinds.pop("THREAD_TASK_SWITCH", 0)
    assert kinds == gcc_kinds
    forks = [line for line in events if line.startswith("THREAD_FORK")]
    assert all(f"# Requested Threads: {THREADS}" in line and 'Model: "OpenMP"' in line for line in forks), forks
    # as many enters as the GCC build's: no construct recorded twice or left out
    enters = lambda lines: sum(1 for line in lines if line.startswith("ENTER"))
    assert enters(events) == enters(trace_events(gcc.experiment))


def test_clang_builds_tasks_are_created_run_and_completed_in_the_trace_as_the_gcc_builds(runs):
    """omp_task_records.check, as the GCC build's trace passes it: each
    thread creates one task per region."""
    _, clang, _, _ = runs
    omp_task_records.check(trace_events(clang.experiment), {"0": "Master thread", "1": "OMP thread 1"}, REGIONS)


def test_every_member_ends_its_team_part_before_the_forkers_join(runs):
    """libomp reports a member's end of the region's implicit barrier only
    at the next region; the member's part must still end inside its own."""
    _, clang, _, _ = runs
    records = [line.split() for line in trace_events(clang.experiment) if line.startswith("THREAD_")]
    records.sort(key=lambda r: int(r[2]))   # kind, location, time
    joins = [int(r[2]) for r in records if r[0] == "THREAD_JOIN"]
    forks = [int(r[2]) for r in records if r[0] == "THREAD_FORK"]
    for fork, join in zip(forks, joins):
        inside = collections.Counter(r[0] for r in records if fork <= int(r[2]) <= join)
        assert inside["THREAD_TEAM_BEGIN"] == THREADS and inside["THREAD_TEAM_END"] == THREADS, (fork, join, inside)


def test_clang_builds_trace_names_the_worker_location_omp_thread_1(runs):
    _, clang, _, _ = runs
    definitions = subprocess.run(["otf2-print", "-G", str(clang.experiment / "traces.otf2")], capture_output=True,
                                 text=True, check=True).stdout
    names = re.findall(r'^LOCATION .*?Name: "([^"]+)"', definitions, re.M)
    assert sorted(names) == ["Master thread", "OMP thread 1"], names


def test_scorep_built_clang_program_names_constructs_after_their_source_lines(runs):
    """scorep gives clang -gdwarf-aranges, without which libdw finds no line."""
    _, clang, _, mode = runs
    if mode != "linked":
        pytest.skip("a plain clang -g build has no .debug_aranges (docs/OPENMP_ADAPTER.md)")
    _, names = rows_of(clang.experiment)
    source = PROGRAM.read_text().splitlines()
    parallel_line = next(i + 1 for i, line in enumerate(source) if re.search(r"#pragma omp parallel\s*$", line))
    critical_line = next(i + 1 for i, line in enumerate(source) if "#pragma omp critical" in line)
    assert f"!$omp parallel @omp_constructs.c:{parallel_line}" in names, names
    assert f"!$omp critical @omp_constructs.c:{critical_line}" in names, names


def test_gcc_program_on_libomp_is_recorded_once_by_the_gomp_wrappers(build_dir, installed_prefix, tmp_path):
    """A GCC build run on libomp calls GOMP_* (the wrappers record it) and
    libomp reports the same constructs to OMPT: recorded once, as on libgomp."""
    if not clang_available() or not LIBOMP.exists():
        pytest.skip(f"no clang with libomp ({LIBOMP})")
    binary = tmp_path / "omp_constructs_gcc"
    subprocess.run(["gcc", "-fopenmp", "-g", "-O2", str(PROGRAM), "-o", str(binary)], check=True)
    library = installed_prefix / build_option(build_dir, "libdir") / "libscorep_adapter_thread_omp_rt.so"
    runs = {}
    for runtime, preload in (("libgomp", [library]), ("libomp", [library, LIBOMP])):
        experiment = tmp_path / runtime
        # KMP_SETTINGS: libomp lists its settings on stderr, libgomp ignores it
        proc = run_program([binary], experiment, dict(ENV, LD_PRELOAD=" ".join(map(str, preload)), KMP_SETTINGS="1"))
        assert proc.returncode == 0, proc.stderr
        assert ("KMP_SETTINGS" in proc.stderr) == (runtime == "libomp"), proc.stderr
        assert f"items {REGIONS * ITEMS} singles {REGIONS} tasks {REGIONS * THREADS}" in proc.stdout
        runs[runtime] = experiment
    team = {}
    for runtime, experiment in runs.items():
        rows, _ = rows_of(experiment)
        team[runtime] = sum((construct_visits(paths) for paths in rows.values()), collections.Counter())
    assert team["libomp"] == team["libgomp"], team
    assert team["libomp"]["!$omp parallel"] == REGIONS * THREADS, team
    kinds = collections.Counter(line.split()[0] for line in trace_events(runs["libomp"])
                                if line.startswith("THREAD_"))
    assert kinds["THREAD_FORK"] == REGIONS and kinds["THREAD_TEAM_BEGIN"] == REGIONS * THREADS, kinds


def test_clang_builds_nested_teams_record_the_gcc_builds_locations_and_paths(build_dir, installed_prefix, tmp_path):
    """omp_nested.c (an outer team of 2 whose members each fork a team of
    2, ROUNDS times), preloaded: the clang build's locations, construct
    paths and visits per location, and team records (otf2-print) are the
    GCC build's."""
    if not clang_available():
        pytest.skip("no clang with libomp (Debian: clang, libomp-dev)")
    nested = HERE / "programs" / "omp_nested.c"
    rounds = 4   # omp_nested.c
    results = {}
    for compiler in ("gcc", "clang"):
        proc, experiment = traced_unmodified(compiler, nested, tmp_path, installed_prefix)
        assert proc.stdout == f"calls {rounds * 4}\n"
        rows, _ = rows_of(experiment)
        begins = collections.Counter(line.split("Thread Team: ")[1] for line in trace_events(experiment)
                                     if line.startswith("THREAD_TEAM_BEGIN"))
        results[compiler] = rows, sorted(begins.values())
    gcc_rows, gcc_begins = results["gcc"]
    clang_rows, clang_begins = results["clang"]
    # which inner member's location is made first is the run's: compared as a set of locations
    as_set = lambda rows: sorted(sorted(paths.items()) for paths in rows.values())
    assert as_set(clang_rows) == as_set(gcc_rows), (clang_rows, gcc_rows)
    assert len(gcc_rows) == 4
    assert clang_begins == gcc_begins == [2 * rounds] * 3, (clang_begins, gcc_begins)


def barrier_time_per_location(experiment):
    """{location's thread number: exclusive seconds in "!$omp implicit barrier"}, from profile.json"""
    profile = json.loads((experiment / "profile.json").read_text())
    regions = {r["id"]: r["name"] for r in profile["regions"]}
    callpaths = {c["id"]: c for c in profile["callpaths"]}
    threads = {loc["id"]: loc["thread"] for loc in profile["locations"]}
    times = collections.Counter()
    for row in profile["rows"]:
        if construct(regions[callpaths[row["callpath"]]["region"]]) == "!$omp implicit barrier":
            times[threads[row["location"]]] += row["time_excl_ns"] * 1e-9
    return times


def test_worker_waits_out_the_imbalance_in_the_parallel_regions_implicit_barrier(build_dir, installed_prefix,
                                                                                  tmp_path):
    """omp_imbalance.c: ROUNDS times member 0 of a team of 2 computes
    BUSY_MS while member 1 returns at once, and the program computes
    SERIAL_MS alone after each round. libomp reports member 1's end of the
    region's implicit barrier only at the next round: the clang build's
    member 1 ("OMP thread 1") must still hold its wait, most of the
    imbalance, in that barrier and none of the serial part, as the GCC
    build's (the GOMP wrappers) does; the output is the program's."""
    if not clang_available():
        pytest.skip("no clang with libomp (Debian: clang, libomp-dev)")
    program = HERE / "programs" / "omp_imbalance.c"
    source = program.read_text()
    rounds, busy, serial = (int(re.search(rf"#define {name} (\d+)", source).group(1)) * scale
                            for name, scale in (("ROUNDS", 1), ("BUSY_MS", 1e-3), ("SERIAL_MS", 1e-3)))
    expected_output = f"rounds {rounds} busy {rounds} idle {rounds} serial {rounds}\n"
    waits = {}
    for compiler in ("gcc", "clang"):
        binary = tmp_path / f"omp_imbalance_{compiler}"
        subprocess.run([compiler, "-fopenmp", "-g", "-O2", str(program), "-o", str(binary)], check=True)
        plain = run_program([binary], None, {"OMP_WAIT_POLICY": "passive"})
        assert plain.stdout == expected_output, plain.stdout
        experiment = tmp_path / compiler
        proc = run_program([installed_prefix / "bin" / "scorep-exec", "--thread=omp", "--", binary], experiment,
                           {"OMP_WAIT_POLICY": "passive"})
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == plain.stdout
        times = barrier_time_per_location(experiment)
        assert sorted(times) == [0, 1], (compiler, times)
        waits[compiler] = times[1]
        # member 1 waits out the imbalance, most of it at least (its start
        # is late by a thread's start at most), and no serial part between rounds
        assert 0.75 * rounds * busy <= times[1] <= rounds * busy + 0.5 * serial, (compiler, times)
        # member 0 is the one that computes: its barrier holds no wait of note
        assert times[0] < 0.25 * rounds * busy, (compiler, times)
    assert abs(waits["clang"] - waits["gcc"]) <= 0.2 * rounds * busy, waits


def test_tasks_a_worker_runs_in_the_parallel_regions_implicit_barrier_are_recorded_there(build_dir,
                                                                                         installed_prefix, tmp_path):
    """omp_barrier_tasks.c: member 1 of a team of 2 waits in the parallel
    region's implicit barrier while member 0 creates tasks, and runs some
    of them there. The clang build must record them as the GCC build does:
    "!$omp task" inside member 1's "!$omp implicit barrier", on its own
    location, every task once over the team; each location's enters and
    leaves balance and each team part ends once (otf2-print)."""
    if not clang_available():
        pytest.skip("no clang with libomp (Debian: clang, libomp-dev)")
    program = HERE / "programs" / "omp_barrier_tasks.c"
    source = program.read_text()
    rounds, tasks = (int(re.search(rf"#define {name} (\d+)", source).group(1)) for name in ("ROUNDS", "TASKS"))
    worker_paths = {}
    for compiler in ("gcc", "clang"):
        proc, experiment = traced_unmodified(compiler, program, tmp_path, installed_prefix)
        assert proc.stdout == f"rounds {rounds} tasks {rounds * tasks}\n"
        rows, _ = rows_of(experiment)
        assert len(rows) == 2, rows
        team = sum((construct_visits(paths) for paths in rows.values()), collections.Counter())
        assert team["!$omp task"] == team["!$omp create task"] == rounds * tasks, (compiler, team)
        worker = next(paths for paths in rows.values() if ("!$omp parallel", "!$omp create task") not in paths)
        worker_paths[compiler] = {path for path in worker if path and path[-1] == "!$omp task"}
        assert worker_paths[compiler] == {("!$omp parallel", "!$omp implicit barrier", "!$omp task")}, (compiler,
                                                                                                          worker)
        events = [line.split() for line in trace_events(experiment)]
        per_location = collections.defaultdict(collections.Counter)
        for event in events:
            if event and event[0] in ("ENTER", "LEAVE", "THREAD_TEAM_BEGIN", "THREAD_TEAM_END"):
                per_location[event[1]][event[0]] += 1
        for location, kinds in per_location.items():
            assert kinds["ENTER"] == kinds["LEAVE"], (compiler, location, kinds)
            assert kinds["THREAD_TEAM_BEGIN"] == kinds["THREAD_TEAM_END"] == rounds, (compiler, location, kinds)
    assert worker_paths["clang"] == worker_paths["gcc"]
