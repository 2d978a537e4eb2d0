"""The OpenMP adapter (scorep --thread=omp, scorep-exec --thread=omp;
generated/thread/omp/ from tasks/omp.json): omp_constructs.c, whose counts
follow from its source (REGIONS parallel regions, each with a dynamic loop
of ITEMS items with one critical section each, an explicit barrier, two
singles, a task per thread and a taskwait), built with GCC's -fopenmp and
measured unmodified (preloaded) and rebuilt (linked). Oracles: the
program's source and its output without measurement; otf2-print for the
trace's fork/join records; Cube's cube_dump for the location names."""
import collections
import json
import pathlib
import re
import shutil
import subprocess

import pytest

import cube_tools
import omp_task_records
from conftest import call_path_of, run_program, scorep

HERE = pathlib.Path(__file__).resolve().parent
PROGRAM = HERE / "programs" / "omp_constructs.c"
REGIONS, ITEMS, THREADS = 3, 40, 2
ENV = {"OMP_NUM_THREADS": str(THREADS), "OMP_WAIT_POLICY": "passive"}


def compile_plain(tmp_path):
    program = tmp_path / "omp_constructs_plain"
    subprocess.run(["gcc", "-fopenmp", "-g", "-O2", str(PROGRAM), "-o", str(program)], check=True)
    return program


def measured(request, build_dir, tmp_path, mode):
    """(the run, its experiment) of omp_constructs.c, traced: preloaded into
    the plain binary by the installed scorep-exec, or built by scorep (which
    takes the OpenMP adapter from -fopenmp)."""
    if mode == "preloaded":
        program = compile_plain(tmp_path)
        prefix = [request.getfixturevalue("installed_prefix") / "bin" / "scorep-exec", "--thread=omp", "--"]
    else:
        program = tmp_path / "omp_constructs_linked"
        built = subprocess.run(scorep(build_dir) + ["gcc", "-fopenmp", "-g", "-O2", str(PROGRAM), "-o",
                                                    str(program)], capture_output=True, text=True)
        assert built.returncode == 0, built.stderr
        prefix = []
    experiment = tmp_path / "experiment"
    proc = run_program([*prefix, program], experiment, dict(ENV, SCOREP_ENABLE_TRACING="true"))
    return proc, experiment


def rows_of(experiment):
    """{location name index: {call path (region names): visits}} from profile.json."""
    profile = json.loads((experiment / "profile.json").read_text())
    path = call_path_of(profile)
    rows = collections.defaultdict(dict)
    for row in profile["rows"]:
        rows[row["location"]][path(row["callpath"])] = row["visits"]
    return rows, [r["name"] for r in profile["regions"]]


def construct(name):
    """"!$omp parallel @omp_constructs.c:27" -> "!$omp parallel" """
    return name.split(" @")[0]


@pytest.fixture(params=["preloaded", "linked"])
def run(request, build_dir, tmp_path):
    if shutil.which("gcc") is None:
        pytest.skip("no gcc")
    plain = run_program([compile_plain(tmp_path)], None, ENV)
    assert plain.returncode == 0, plain.stderr
    proc, experiment = measured(request, build_dir, tmp_path, request.param)
    return plain, proc, experiment, request.param


def test_program_output_is_unchanged_under_measurement(run):
    plain, proc, _, _ = run
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == plain.stdout
    assert f"threads {THREADS} " in plain.stdout
    assert f"items {REGIONS * ITEMS} singles {REGIONS} tasks {REGIONS * THREADS}" in plain.stdout


def test_every_team_member_records_each_construct_as_often_as_the_source_says(run):
    _, proc, experiment, _ = run
    assert proc.returncode == 0, proc.stderr
    rows, _ = rows_of(experiment)
    assert len(rows) == THREADS, rows.keys()
    per_location = {}
    for location, paths in rows.items():
        counts = collections.Counter()
        for path, visits in paths.items():
            counts[construct(path[-1])] += visits
        per_location[location] = counts
        # every member: each region once, its loop, barrier, task, taskwait once per region, two singles
        assert counts["!$omp parallel"] == REGIONS, (location, counts)
        assert counts["!$omp for"] == REGIONS, (location, counts)
        assert counts["!$omp barrier"] == REGIONS, (location, counts)
        assert counts["!$omp create task"] == REGIONS, (location, counts)
        assert counts["!$omp taskwait"] == REGIONS, (location, counts)
        assert counts["!$omp single"] == 2 * REGIONS, (location, counts)
    # the loop's critical sections and the singles' blocks, summed over the team
    assert sum(c["!$omp critical"] for c in per_location.values()) == REGIONS * ITEMS
    assert sum(c["!$omp critical sblock"] for c in per_location.values()) == REGIONS * ITEMS
    assert sum(c["!$omp single sblock"] for c in per_location.values()) == 2 * REGIONS
    # each member's task runs once, on whichever member, inside whichever construct
    assert sum(c["!$omp task"] for c in per_location.values()) == REGIONS * THREADS


def test_team_members_work_nests_under_the_forking_threads_call_path(run):
    """The worker's constructs continue the master's call path (the program
    region, and with compiler instrumentation main), not a root of their own."""
    _, proc, experiment, mode = run
    rows, _ = rows_of(experiment)
    master_paths = {p for p in rows[0] if construct(p[-1]) == "!$omp parallel"}
    for location, paths in rows.items():
        parallel = {p for p in paths if construct(p[-1]) == "!$omp parallel"}
        assert parallel == master_paths, (location, parallel, master_paths)
        roots = {path[0] for path in paths}
        assert roots == {next(iter(master_paths))[0]}, (location, roots)
    if mode == "linked":   # compiler instrumentation: main, and work() inside the loop on both threads
        assert all(p[1] == "main" for p in master_paths), master_paths
        work = {loc: sum(v for p, v in paths.items() if p[-1] == "work" and construct(p[-2]) == "!$omp for")
                for loc, paths in rows.items()}
        assert sum(work.values()) == REGIONS * ITEMS, work


def test_parallel_regions_are_named_after_their_source_line(run):
    _, _, experiment, _ = run
    _, names = rows_of(experiment)
    source = PROGRAM.read_text().splitlines()
    parallel_lines = [i + 1 for i, line in enumerate(source) if re.search(r"#pragma omp parallel\s*$", line)]
    assert f"!$omp parallel @omp_constructs.c:{parallel_lines[0]}" in names, names
    critical_lines = [i + 1 for i, line in enumerate(source) if "#pragma omp critical" in line]
    assert any(n.startswith("!$omp critical @omp_constructs.c:") for n in names), names
    assert critical_lines


def test_trace_has_a_fork_join_per_region_and_a_team_begin_end_per_member(run):
    _, proc, experiment, _ = run
    otf2_print = shutil.which("otf2-print")
    if otf2_print is None:
        pytest.skip("no otf2-print")
    events = subprocess.run([otf2_print, str(experiment / "traces.otf2")], capture_output=True, text=True,
                            check=True).stdout
    kinds = collections.Counter(line.split()[0] for line in events.splitlines() if line.startswith("THREAD_"))
    assert kinds["THREAD_FORK"] == REGIONS, kinds
    assert kinds["THREAD_JOIN"] == REGIONS, kinds
    assert kinds["THREAD_TEAM_BEGIN"] == REGIONS * THREADS, kinds
    assert kinds["THREAD_TEAM_END"] == REGIONS * THREADS, kinds
    forks = [line for line in events.splitlines() if line.startswith("THREAD_FORK")]
    assert all(f"# Requested Threads: {THREADS}" in line for line in forks), forks
    assert all('Model: "OpenMP"' in line for line in forks), forks
    # every team record names the team of the two locations (otf2-print's definitions)
    definitions = subprocess.run([otf2_print, "-G", str(experiment / "traces.otf2")], capture_output=True,
                                 text=True, check=True).stdout
    teams = set(re.findall(r"^THREAD_TEAM_(?:BEGIN|END) .*Thread Team: (\"[^\"]*\" <\d+>)", events, re.M))
    assert len(teams) == 1, teams
    comm = re.search(r"^COMM\s+(\d+)\s+Name: " + re.escape(teams.pop().rsplit(" <", 1)[0]) + r".*Group: \"[^\"]*\" <(\d+)>",
                     definitions, re.M)
    assert comm, definitions
    group = re.search(rf"^GROUP\s+{comm.group(2)}\s+.*Type: COMM_GROUP, Paradigm: \"OpenMP\".*2 Members: "
                      r'0 \("Master thread" <\d+>\), 1 \("OMP thread 1" <\d+>\)', definitions, re.M)
    assert group, definitions


def test_each_task_is_created_run_and_completed_in_the_trace_as_score_p_numbers_tasks(run):
    """omp_task_records.check: each thread creates one task per region."""
    _, proc, experiment, _ = run
    otf2_print = shutil.which("otf2-print")
    if otf2_print is None:
        pytest.skip("no otf2-print")
    events = subprocess.run([otf2_print, str(experiment / "traces.otf2")], capture_output=True, text=True,
                            check=True).stdout.splitlines()
    omp_task_records.check(events, {"0": "Master thread", "1": "OMP thread 1"}, REGIONS)


def test_trace_and_cube_name_the_worker_location_omp_thread_1(run):
    _, _, experiment, _ = run
    definitions = subprocess.run(["otf2-print", "-G", str(experiment / "traces.otf2")], capture_output=True,
                                 text=True, check=True).stdout
    names = re.findall(r'^LOCATION .*?Name: "([^"]+)"', definitions, re.M)
    assert sorted(names) == ["Master thread", "OMP thread 1"], names
    if cube_tools.bin_dir() is None:
        pytest.skip(cube_tools.MISSING)
    dump = cube_tools.run("cube_dump", "-w", experiment / "profile.cubex")
    assert dump.returncode == 0, dump.stderr
    assert re.search(r"OMP thread 1 \(id=\d+, type=thread", dump.stdout), dump.stdout


NESTED = HERE / "programs" / "omp_nested.c"
ROUNDS = 4   # omp_nested.c


def test_nested_teams_keep_one_location_per_member_across_rounds(request, tmp_path):
    """omp_nested.c: ROUNDS times an outer team of 2 whose members each fork
    an inner team of 2. Each member of each team has one location for all
    rounds (the master, the outer member, one inner member per outer
    member: 4), every call path continues the master's, and the trace has
    the three teams with their two members each (otf2-print)."""
    program = tmp_path / "omp_nested"
    subprocess.run(["gcc", "-fopenmp", "-g", "-O2", str(NESTED), "-o", str(program)], check=True)
    plain = run_program([program], None, {"OMP_WAIT_POLICY": "passive"})
    experiment = tmp_path / "experiment"
    proc = run_program([request.getfixturevalue("installed_prefix") / "bin" / "scorep-exec", "--thread=omp", "--",
                        program], experiment, {"OMP_WAIT_POLICY": "passive", "SCOREP_ENABLE_TRACING": "true"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == plain.stdout == f"calls {ROUNDS * 4}\n"
    rows, _ = rows_of(experiment)
    assert len(rows) == 4, sorted(rows)
    roots = {path[0] for paths in rows.values() for path in paths}
    assert roots == {"omp_nested"}, roots
    parallel = collections.Counter()
    for paths in rows.values():
        for path, visits in paths.items():
            if construct(path[-1]) == "!$omp parallel":
                parallel[len([p for p in path if construct(p) == "!$omp parallel"])] += visits
    assert parallel == {1: ROUNDS * 2, 2: ROUNDS * 4}, parallel
    definitions = subprocess.run(["otf2-print", "-G", str(experiment / "traces.otf2")], capture_output=True,
                                 text=True, check=True).stdout
    teams = re.findall(r"^GROUP .*Type: COMM_GROUP, Paradigm: \"OpenMP\".*?(\d+) Members", definitions, re.M)
    assert teams == ["2", "2", "2"], teams
    events = subprocess.run(["otf2-print", str(experiment / "traces.otf2")], capture_output=True, text=True,
                            check=True).stdout
    begins = collections.Counter(line.split("Thread Team: ")[1] for line in events.splitlines()
                                 if line.startswith("THREAD_TEAM_BEGIN"))
    # the outer team ROUNDS times with 2 members, each inner team ROUNDS times with 2
    assert sorted(begins.values()) == [2 * ROUNDS] * 3, begins


FORTRAN = HERE / "programs" / "omp_constructs_f.f90"


@pytest.mark.parametrize("mode", ["preloaded", "linked"])
def test_fortran_constructs_are_counted_and_named_as_fortran_says(request, build_dir, tmp_path, mode):
    """omp_constructs_f.f90 (gfortran's OpenMP reaches libgomp the same way):
    the same counts per member as the C program, its loop "!$omp do", and
    each section of its sections construct counted in one section region."""
    if shutil.which("gfortran") is None:
        pytest.skip("no gfortran")
    plain_program = tmp_path / "omp_constructs_f_plain"
    subprocess.run(["gfortran", "-fopenmp", "-g", "-O2", str(FORTRAN), "-o", str(plain_program)], check=True)
    plain = run_program([plain_program], None, ENV)
    if mode == "preloaded":
        program = plain_program
        prefix = [request.getfixturevalue("installed_prefix") / "bin" / "scorep-exec", "--thread=omp", "--"]
    else:
        program, prefix = tmp_path / "omp_constructs_f", []
        built = subprocess.run(scorep(build_dir) + ["gfortran", "-fopenmp", "-g", "-O2", str(FORTRAN), "-o",
                                                    str(program)], capture_output=True, text=True)
        assert built.returncode == 0, built.stderr
    experiment = tmp_path / "experiment"
    proc = run_program([*prefix, program], experiment, ENV)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == plain.stdout
    assert f"items {REGIONS * ITEMS} singles {REGIONS} sections {2 * REGIONS} tasks {REGIONS * THREADS}" in proc.stdout
    rows, names = rows_of(experiment)
    assert len(rows) == THREADS
    totals = collections.Counter()
    for location, paths in rows.items():
        counts = collections.Counter()
        for path, visits in paths.items():
            counts[construct(path[-1])] += visits
        totals.update(counts)
        for each in ("!$omp parallel", "!$omp do", "!$omp barrier", "!$omp single", "!$omp sections",
                     "!$omp create task", "!$omp taskwait"):
            assert counts[each] == REGIONS, (location, each, counts)
    assert totals["!$omp critical"] == REGIONS * ITEMS
    assert totals["!$omp section"] == 2 * REGIONS
    assert totals["!$omp task"] == REGIONS * THREADS
    assert len([n for n in names if construct(n) == "!$omp section"]) == 1, names
    assert not any(construct(n) == "!$omp for" for n in names), names


def test_openmp_and_pthread_adapters_together_give_one_location_per_thread(request, tmp_path):
    """--thread=omp,pthread (and the memory adapter): libgomp's threads are
    pthreads, but they are the OpenMP adapter's: one location per thread,
    with the same constructs as with the OpenMP adapter alone."""
    program = compile_plain(tmp_path)
    plain = run_program([program], None, ENV)
    experiment = tmp_path / "experiment"
    proc = run_program([request.getfixturevalue("installed_prefix") / "bin" / "scorep-exec",
                        "--thread=omp,pthread", "--memory", "--", program], experiment, ENV)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == plain.stdout
    profile = json.loads((experiment / "profile.json").read_text())
    assert len(profile["locations"]) == THREADS, profile["locations"]
    rows, _ = rows_of(experiment)
    for location, paths in rows.items():
        counts = collections.Counter()
        for path, visits in paths.items():
            counts[construct(path[-1])] += visits
        assert counts["!$omp parallel"] == REGIONS and counts["!$omp for"] == REGIONS, (location, counts)


LOCKS = HERE / "programs" / "omp_locks.c"
LOCK_ROUNDS = 25   # omp_locks.c


def test_lock_api_and_critical_sections_are_the_traces_openmp_locks(request, tmp_path):
    """omp_locks.c: each thread sets the lock LOCK_ROUNDS times and once by
    omp_test_lock, and takes a named critical section LOCK_ROUNDS times; the
    master sets a nested lock twice. otf2-print's OpenMP lock records: an
    acquisition and a release for each set (also the nested one, whose two
    share the outer hold's order, as Score-P records them), three locks,
    the acquisition orders of each lock 1, 2, ... without a gap."""
    program = tmp_path / "omp_locks"
    subprocess.run(["gcc", "-fopenmp", "-g", "-O2", str(LOCKS), "-o", str(program)], check=True)
    plain = run_program([program], None, ENV)
    experiment = tmp_path / "experiment"
    proc = run_program([request.getfixturevalue("installed_prefix") / "bin" / "scorep-exec", "--thread=omp", "--",
                        program], experiment, dict(ENV, SCOREP_ENABLE_TRACING="true"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == plain.stdout
    assert proc.stdout == f"threads {THREADS} counted {THREADS * (LOCK_ROUNDS + 1)} named {THREADS * LOCK_ROUNDS}\n"
    events = subprocess.run(["otf2-print", str(experiment / "traces.otf2")], capture_output=True, text=True,
                            check=True).stdout
    locks = collections.defaultdict(list)
    for line in events.splitlines():
        m = re.match(r"^THREAD_(ACQUIRE|RELEASE)_LOCK\s+\d+\s+\d+\s+Model: \"OpenMP\".*Lock: (\d+), "
                     r"Acquisition Order: (\d+)", line)
        if m:
            locks[int(m.group(2))].append((m.group(1), int(m.group(3))))
    sets = sorted(len(records) // 2 for records in locks.values())
    # the nested lock twice, the named critical section and omp_lock_t
    assert sets == sorted([2, THREADS * LOCK_ROUNDS, THREADS * (LOCK_ROUNDS + 1)]), sets
    for lock, records in locks.items():
        orders = [order for kind, order in records if kind == "ACQUIRE"]
        assert sorted(set(orders)) == list(range(1, len(set(orders)) + 1)), (lock, records)
        assert sorted(order for kind, order in records if kind == "RELEASE") == sorted(orders), (lock, records)
    nested = next(records for records in locks.values() if len(records) == 4)
    assert [order for _, order in nested] == [1, 1, 1, 1], nested


STENCIL = HERE / "programs" / "omp_stencil.c"


def test_sigterm_inside_parallel_regions_leaves_a_whole_profile_and_trace(request, tmp_path):
    """SIGTERM while the team works, five times: every run leaves a readable
    profile whose program region has its one visit (a member's open team
    part ends at the forker's call path, which it never entered) and a
    trace scorep-check finds consistent, with both locations."""
    import signal
    import time
    program = tmp_path / "omp_stencil"
    subprocess.run(["gcc", "-fopenmp", "-g", "-O2", str(STENCIL), "-o", str(program)], check=True)
    exec_ = request.getfixturevalue("installed_prefix") / "bin" / "scorep-exec"
    check = request.getfixturevalue("installed_prefix") / "bin" / "scorep-check"
    env = {k: v for k, v in __import__("os").environ.items() if k != "LD_PRELOAD"}
    env.update(ENV, SCOREP_ENABLE_TRACING="true")
    whole = 0
    for run in range(5):
        experiment = tmp_path / f"experiment{run}"
        env["SCOREP_EXPERIMENT_DIRECTORY"] = str(experiment)
        proc = subprocess.Popen([str(exec_), "--thread=omp", "--", str(program), "1000000"], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(1.5)
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)
        assert proc.returncode == -signal.SIGTERM, proc.returncode
        rows, _ = rows_of(experiment)
        assert len(rows) == THREADS, sorted(rows)
        program_visits = sum(v for paths in rows.values() for p, v in paths.items() if p == ("omp_stencil",))
        parallel = sum(v for paths in rows.values() for p, v in paths.items() if construct(p[-1]) == "!$omp parallel")
        checked = subprocess.run([str(check), str(experiment)], capture_output=True, text=True, timeout=120)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert program_visits == 1 and parallel > 0, (program_visits, parallel)
        whole += 1
    assert whole == 5


TAIL_BARRIER = HERE / "programs" / "omp_tail_barrier.c"


def test_a_barrier_the_outlined_function_tail_calls_is_named_after_the_program_not_the_adapter(request, tmp_path):
    """omp_tail_barrier.c at -O2: the outlined function jumps to
    GOMP_barrier as its last act, so the call returns into the adapter's
    trampoline. The barrier is the program's, named after the line the
    debug information gives the jump (the region's closing brace), once per
    member and round; no region is named after the adapter's code."""
    program = tmp_path / "omp_tail_barrier"
    subprocess.run(["gcc", "-fopenmp", "-g", "-O2", str(TAIL_BARRIER), "-o", str(program)], check=True)
    listing = subprocess.run(["objdump", "-dl", "--no-show-raw-insn", str(program)], capture_output=True, text=True,
                             check=True).stdout
    outlined = listing.split("<main._omp_fn.0>:", 1)[1].split("\n\n", 1)[0]
    tail = re.search(r"^(\S+):(\d+)\n\s*\w+:\s+jmp\s+\w+ <GOMP_barrier@plt>", outlined, re.M)
    if tail is None:
        pytest.skip("this GCC does not end the outlined function with a jump to GOMP_barrier")
    line = int(tail.group(2))
    plain = run_program([program], None, {"OMP_WAIT_POLICY": "passive"})
    experiment = tmp_path / "experiment"
    proc = run_program([request.getfixturevalue("installed_prefix") / "bin" / "scorep-exec", "--thread=omp", "--",
                        program], experiment, {"OMP_WAIT_POLICY": "passive"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == plain.stdout == "sum 1498500.0\n"
    rows, names = rows_of(experiment)
    assert not [n for n in names if "scorep" in n], names
    barriers = collections.Counter()
    for paths in rows.values():
        for path, visits in paths.items():
            if construct(path[-1]) == "!$omp barrier":
                barriers[path[-1]] += visits
    assert barriers == {f"!$omp barrier @omp_tail_barrier.c:{line}": 3 * 2}, barriers


IO_MEMORY = HERE / "programs" / "omp_io_memory.c"


def test_io_and_memory_adapters_record_inside_parallel_regions_on_each_threads_location(request, tmp_path):
    """omp_io_memory.c under --thread=omp --io=posix --memory: each thread's
    writes (12 of 4 KiB) and allocations (20 malloc/free pairs) are on its
    own location, under the parallel region, with the bytes the program
    counts; the program's output (its bytes and the files' sizes) is the
    same measured."""
    program = tmp_path / "omp_io_memory"
    subprocess.run(["gcc", "-fopenmp", "-g", "-O2", str(IO_MEMORY), "-o", str(program)], check=True)
    plain_dir, measured_dir = tmp_path / "plain", tmp_path / "measured"
    plain_dir.mkdir()
    measured_dir.mkdir()
    plain = run_program([program, plain_dir], None, ENV)
    experiment = tmp_path / "experiment"
    proc = run_program([request.getfixturevalue("installed_prefix") / "bin" / "scorep-exec", "--thread=omp",
                        "--io=posix", "--memory", "--", program, measured_dir], experiment, ENV)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == plain.stdout
    assert proc.stdout == "".join(f"thread {t} wrote {12 * 4096} bytes, file {12 * 4096}\n" for t in range(THREADS))
    profile = json.loads((experiment / "profile.json").read_text())
    path = call_path_of(profile)
    per_location = collections.defaultdict(collections.Counter)
    for row in profile["rows"]:
        p = [construct(n) for n in path(row["callpath"])]
        if "!$omp parallel" not in p:
            continue
        per_location[row["location"]][p[-1]] += row["visits"]
        per_location[row["location"]]["bytes_written"] += row["bytes_written"]
    assert len(per_location) == THREADS, dict(per_location)
    for location, counts in per_location.items():
        assert counts["write"] == 12 and counts["bytes_written"] == 12 * 4096, (location, counts)
        assert counts["malloc"] == 20 and counts["free"] == 20, (location, counts)
