"""Score-P's synchronous strict metrics (SCOREP_METRIC_RUSAGE, SCOREP_METRIC_PERF):
per call path values that agree with the program's own getrusage readings,
the same values in profile.cubex as Cube's cube_dump reads them, Metric
records before the trace's Enter and Leave, a warning for a name that is
unknown or an event the system does not count, and one value per rank."""
import json
import pathlib
import re
import shutil
import subprocess

import pytest

import cube_tools
from conftest import call_path_of, mpirun, run_program, scorep

HERE = pathlib.Path(__file__).resolve().parent
METRICS = {"SCOREP_METRIC_RUSAGE": "ru_utime,ru_minflt", "SCOREP_METRIC_PERF": "task-clock,page-faults"}
BURN_MS, TOUCH_MIB = 200, 64


def agree(measured, own, relative=0.03, absolute=0):
    return abs(measured - own) <= max(relative * own, absolute)


@pytest.fixture(scope="module")
def program(build_dir, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("metrics_program")
    exe = tmp / "burn_and_touch"
    cmd = scorep(build_dir) + ["gcc", "-O2", str(HERE / "burn_and_touch.c"), "-o", str(exe)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=tmp)
    assert proc.returncode == 0, proc.stderr
    return exe


def own_readings(stdout):
    """{function: {field: value}} from the program's lines"""
    out = {}
    for line in stdout.splitlines():
        words = line.split()
        if len(words) > 1 and len(words) % 2 == 1:
            out[words[0]] = {words[i]: int(words[i + 1]) for i in range(1, len(words), 2)}
    return out


def metric_rows(experiment):
    """{(region, ...) call path: {metric name: (inclusive, exclusive)}} summed over locations,
    and the profile"""
    profile = json.loads((experiment / "profile.json").read_text())
    names = {str(m["id"]): m["name"] for m in profile["metrics"]}
    path = call_path_of(profile)
    rows = {}
    for row in profile["rows"]:
        cell = rows.setdefault(path(row["callpath"]), {})
        for mid, name in names.items():
            incl = row.get("metrics", {}).get(mid, 0)
            excl = row.get("metrics_excl", {}).get(mid, 0)
            old = cell.get(name, (0, 0))
            cell[name] = (old[0] + incl, old[1] + excl)
    return rows, profile


def by_function(rows, function):
    found = [cell for p, cell in rows.items() if p[-1] == function]
    assert len(found) == 1, (function, list(rows))
    return found[0]


@pytest.fixture(scope="module")
def measured(program, tmp_path_factory):
    experiment = tmp_path_factory.mktemp("metrics_run") / "experiment"
    env = dict(METRICS, SCOREP_ENABLE_TRACING="true")
    proc = run_program([program, BURN_MS, TOUCH_MIB], experiment, env)
    assert proc.returncode == 0, proc.stderr
    assert "Warning" not in proc.stderr, proc.stderr
    return experiment, own_readings(proc.stdout)


def test_rusage_and_perf_values_per_call_path_agree_with_the_programs_getrusage(measured):
    experiment, own = measured
    rows, profile = metric_rows(experiment)
    assert {m["name"]: m["kind"] for m in profile["metrics"]} == {
        "ru_utime": "strict_rusage", "ru_minflt": "strict_rusage",
        "task-clock": "strict_perf", "page-faults": "strict_perf"}
    burn, touch = by_function(rows, "burn_cpu"), by_function(rows, "touch_pages")
    b, t = own["burn_cpu"], own["touch_pages"]
    assert b["ru_utime_us"] >= BURN_MS * 1000
    # user time in microseconds, task-clock in nanoseconds (user and system time)
    assert agree(burn["ru_utime"][0], b["ru_utime_us"]), (burn, b)
    assert agree(burn["task-clock"][0], 1000 * (b["ru_utime_us"] + b["ru_stime_us"]), absolute=2e6), (burn, b)
    # one minor fault per page touched (64 MiB: 16384), page-faults counts minor and major ones
    assert t["ru_minflt"] >= TOUCH_MIB * 256
    assert agree(touch["ru_minflt"][0], t["ru_minflt"], absolute=16), (touch, t)
    assert agree(touch["page-faults"][0], t["ru_minflt"] + t["ru_majflt"], absolute=16), (touch, t)
    # each where it belongs: no page faults to speak of while burning; the
    # touching's user time (a virtual machine counts its faults' time as the
    # user's) as the program saw it
    assert burn["ru_minflt"][0] < 50 and burn["page-faults"][0] < 50, burn
    assert agree(touch["ru_utime"][0], t["ru_utime_us"], absolute=2000), (touch, t)


def test_exclusive_values_are_inclusive_minus_the_callees(measured):
    experiment, _ = measured
    rows, _ = metric_rows(experiment)
    main = [p for p in rows if p[-1] == "main"]
    assert len(main) == 1
    children = [p for p in rows if p[:-1] == main[0]]
    assert {p[-1] for p in children} >= {"burn_cpu", "touch_pages"}
    for name in ("ru_utime", "ru_minflt", "task-clock", "page-faults"):
        incl, excl = rows[main[0]][name]
        assert excl == incl - sum(rows[c][name][0] for c in children), name
        # the whole program holds main and what ran before and after it
        assert rows[main[0][:1]][name][0] >= incl, name


def test_cube_dump_reads_the_metrics_with_the_profiles_values(measured):
    if cube_tools.bin_dir() is None:
        pytest.skip(cube_tools.MISSING)
    experiment, _ = measured
    cubex = experiment / "profile.cubex"
    listing = cube_tools.run("cube_dump", "-w", cubex)
    assert listing.returncode == 0, listing.stderr
    # Score-P's definitions: name, unique name, unit, type, inclusive values
    for line in ("ru_utime  ( id=", "ru_utime, 10^-6 s, UINT64", "ru_minflt, #, UINT64", "task_clock, #, UINT64",
                 "page_faults, #, UINT64"):
        assert line in listing.stdout, listing.stdout
    for name in ("ru_utime", "ru_minflt", "task-clock", "page-faults"):
        assert re.search(rf"^{name}  \(.*INCLUSIVE", listing.stdout, re.M), name
    uniq = {"ru_utime": "ru_utime", "ru_minflt": "ru_minflt", "task-clock": "task_clock",
            "page-faults": "page_faults"}
    incl = cube_tools.values(cubex, list(uniq.values()), "incl")
    excl = cube_tools.values(cubex, list(uniq.values()), "excl")
    rows, _ = metric_rows(experiment)
    # the cnodes in call-path order: match by the row's values, one function at a time
    for function in ("burn_cpu", "touch_pages", "main"):
        want = by_function(rows, function)
        wanted_incl = {uniq[n]: v[0] for n, v in want.items()}
        wanted_excl = {uniq[n]: v[1] for n, v in want.items()}
        cells = [key for key, cell in incl.items() if all(cell[u] == wanted_incl[u] for u in uniq.values())]
        assert len(cells) == 1, (function, wanted_incl, incl)
        assert {u: excl[cells[0]][u] for u in uniq.values()} == wanted_excl, function
    # cube_stat's flat profile: each region's exclusive value
    stat = cube_tools.run("cube_stat", "-m", "ru_utime,page_faults", "-t", "20", cubex)
    assert stat.returncode == 0, stat.stderr
    flat = {line.split(",")[0].strip('"'): line.split(",")[-2:] for line in stat.stdout.splitlines()[1:]}
    for function in ("burn_cpu", "touch_pages"):
        want = by_function(rows, function)
        assert [int(v) for v in flat[function]] == [want["ru_utime"][1], want["page-faults"][1]], (function, flat)


def otf2_print(*args):
    proc = subprocess.run(["otf2-print", *map(str, args)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_the_trace_has_the_values_before_every_enter_and_leave(measured):
    experiment, own = measured
    defs = otf2_print("-G", experiment / "traces.otf2")
    cls = [line for line in defs.splitlines() if line.startswith("METRIC_CLASS")]
    assert len(cls) == 1 and "SYNCHRONOUS_STRICT" in cls[0] and "4 Members" in cls[0], cls
    assert re.search(r'METRIC_MEMBER .*"ru_utime".*Type: RUSAGE, Mode: ACCUMULATED_START, Value Type: UINT64, '
                     r'Base: DECIMAL, Exponent: -6, Unit: "s"', defs), defs
    events = otf2_print(experiment / "traces.otf2").splitlines()
    last_metric = None
    enters = {}
    growth = []
    for line in events:
        words = line.split()
        if not words:
            continue
        if words[0] == "METRIC":
            last_metric = (words[2], dict(re.findall(r'\("([\w-]+)" <\d+>; UINT64; (\d+)\)', line)))
        elif words[0] in ("ENTER", "LEAVE"):
            assert last_metric is not None and last_metric[0] == words[2], line
            region = re.search(r'Region: "([^"]+)"', line).group(1)
            values = {k: int(v) for k, v in last_metric[1].items()}
            assert set(values) == {"ru_utime", "ru_minflt", "task-clock", "page-faults"}
            if words[0] == "ENTER":
                enters[region] = values
            elif region == "burn_cpu":
                growth.append(values["ru_utime"] - enters[region]["ru_utime"])
            last_metric = None
        elif words[0] in ("PROGRAM_BEGIN", "PROGRAM_END"):
            assert last_metric is None, line   # Score-P writes none there
    assert len(growth) == 1 and agree(growth[0], own["burn_cpu"]["ru_utime_us"]), (growth, own)


@pytest.mark.parametrize("variable,entry", [("SCOREP_METRIC_RUSAGE", "ru_nosuchfield"),
                                            ("SCOREP_METRIC_PERF", "no-such-event")])
def test_an_unknown_name_warns_and_the_run_is_unchanged(program, tmp_path, variable, entry):
    plain = run_program([program, 20, 1, "quiet"], tmp_path / "plain")
    bad = run_program([program, 20, 1, "quiet"], tmp_path / "bad", {variable: entry})
    assert (bad.returncode, bad.stdout) == (plain.returncode, plain.stdout) == (0, "done\n")
    warnings = [line for line in bad.stderr.splitlines() if "Warning" in line]
    assert len(warnings) == 1, bad.stderr
    assert variable in warnings[0] and f"'{entry}'" in warnings[0], warnings
    valid = "ru_utime, ru_stime" if variable.endswith("RUSAGE") else "task-clock, page-faults"
    assert valid in warnings[0], warnings
    profile = json.loads((tmp_path / "bad" / "profile.json").read_text())
    assert profile["metrics"] == []


def test_the_known_names_beside_an_unknown_one_and_a_separator_of_choice_are_recorded(program, tmp_path):
    env = {"SCOREP_METRIC_RUSAGE": "ru_minflt:bogus: ru_utime", "SCOREP_METRIC_RUSAGE_SEP": ":",
           "SCOREP_METRIC_PERF": "cs;task-clock", "SCOREP_METRIC_PERF_SEP": ";"}
    proc = run_program([program, 20, 1, "quiet"], tmp_path / "e", env)
    assert proc.returncode == 0 and proc.stdout == "done\n", proc.stderr
    assert proc.stderr.count("Warning") == 1 and "'bogus'" in proc.stderr, proc.stderr
    profile = json.loads((tmp_path / "e" / "profile.json").read_text())
    assert [m["name"] for m in profile["metrics"]] == ["ru_minflt", "ru_utime", "context-switches", "task-clock"]


def test_a_hardware_event_is_recorded_where_counted_and_warned_about_where_not(program, tmp_path):
    proc = run_program([program, 20, 1, "quiet"], tmp_path / "e", {"SCOREP_METRIC_PERF": "cycles,task-clock"})
    assert proc.returncode == 0 and proc.stdout == "done\n", proc.stderr
    names = [m["name"] for m in json.loads((tmp_path / "e" / "profile.json").read_text())["metrics"]]
    if "cycles" in names:   # a machine with a PMU
        assert "Warning" not in proc.stderr, proc.stderr
        return
    assert names == ["task-clock"]
    warnings = [line for line in proc.stderr.splitlines() if "Warning" in line]
    assert len(warnings) == 1, proc.stderr
    assert "SCOREP_METRIC_PERF" in warnings[0] and "'cycles'" in warnings[0], warnings
    assert "cannot be counted" in warnings[0] and "task-clock" in warnings[0].split("counts:")[1], warnings


def test_all_rusage_fields(program, tmp_path):
    proc = run_program([program, 20, 1, "quiet"], tmp_path / "e", {"SCOREP_METRIC_RUSAGE": "all"})
    assert proc.returncode == 0 and "Warning" not in proc.stderr, proc.stderr
    names = [m["name"] for m in json.loads((tmp_path / "e" / "profile.json").read_text())["metrics"]]
    assert names[:2] == ["ru_utime", "ru_stime"] and len(names) == 16 and names[-1] == "ru_nivcsw", names


def test_each_mpi_rank_records_its_own_rusage(build_dir, tmp_path):
    exe = tmp_path / "mpi_burn"
    cmd = scorep(build_dir) + ["mpicc", "-O2", str(HERE / "mpi_burn.c"), "-o", str(exe)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    experiment = tmp_path / "experiment"
    env = {"SCOREP_EXPERIMENT_DIRECTORY": str(experiment), "SCOREP_METRIC_RUSAGE": "ru_utime",
           "SCOREP_ENABLE_TRACING": "true"}
    proc = mpirun(2, [exe, 100], env=env, cwd=tmp_path)
    own = {int(m.group(1)): int(m.group(2))
           for m in re.finditer(r"rank (\d+) burn_cpu ru_utime_us (\d+)", proc.stdout)}
    assert set(own) == {0, 1}, proc.stdout
    profile = json.loads((experiment / "profile.json").read_text())
    rank_of = {loc["id"]: loc["rank"] for loc in profile["locations"]}
    (metric,) = [str(m["id"]) for m in profile["metrics"] if m["name"] == "ru_utime"]
    burn = [r["id"] for r in profile["regions"] if r["name"] == "burn_cpu"]
    paths = {c["id"] for c in profile["callpaths"] if c["region"] in burn}
    measured = {}
    for row in profile["rows"]:
        if row["callpath"] in paths:
            measured[rank_of[row["location"]]] = measured.get(rank_of[row["location"]], 0) + row["metrics"][metric]
    assert set(measured) == {0, 1}, measured
    for rank in (0, 1):
        assert own[rank] >= (rank + 1) * 100_000
        assert agree(measured[rank], own[rank]), (rank, measured, own)


def test_each_thread_records_its_own_rusage_and_perf_values(build_dir, tmp_path):
    exe = tmp_path / "thread_burn"
    cmd = scorep(build_dir) + ["--thread=pthread", "gcc", "-O2", "-pthread", str(HERE / "thread_burn.c"),
                               "-o", str(exe)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    env = {"SCOREP_METRIC_RUSAGE": "ru_utime", "SCOREP_METRIC_PERF": "task-clock"}
    proc = run_program([exe, 100], tmp_path / "e", env)
    assert proc.returncode == 0 and "Warning" not in proc.stderr, proc.stderr
    readings = sorted((int(m.group(1)), int(m.group(2)))
                      for m in re.finditer(r"burn_cpu ru_utime_us (\d+) cpu_ns (\d+)", proc.stdout))
    own = [utime for utime, _ in readings]
    # task-clock counts the thread's user and system time: its CPU-time clock's reading
    own_cpu = [cpu for _, cpu in readings]
    assert len(own) == 2 and own[0] >= 100_000 and own[1] >= 200_000, proc.stdout
    profile = json.loads((tmp_path / "e" / "profile.json").read_text())
    ids = {m["name"]: str(m["id"]) for m in profile["metrics"]}
    burn = {r["id"] for r in profile["regions"] if r["name"] == "burn_cpu"}
    paths = {c["id"] for c in profile["callpaths"] if c["region"] in burn}
    rows = [r for r in profile["rows"] if r["callpath"] in paths]
    # one location each, with its thread's own values
    assert len({r["location"] for r in rows}) == 2, rows
    utime = sorted(r["metrics"][ids["ru_utime"]] for r in rows)
    clock = sorted(r["metrics"][ids["task-clock"]] for r in rows)
    for measured, mine in zip(utime, own):
        assert agree(measured, mine), (utime, own)
    for measured, mine in zip(clock, own_cpu):
        assert agree(measured, mine, relative=0.05), (clock, own_cpu)


def test_profile_txt_lists_each_metrics_call_paths_with_the_profiles_values(measured):
    experiment, _ = measured
    rows, _ = metric_rows(experiment)
    text = (experiment / "profile.txt").read_text()
    for name, unit in (("ru_utime", "10^-6 s"), ("ru_minflt", "#"), ("task-clock", "#"), ("page-faults", "#")):
        section = text.split(f"Metric {name} [{unit}]", 1)
        assert len(section) == 2, text
        lines = section[1].split("\n\n", 1)[0].splitlines()[2:]
        # incl, excl, the call path's frames joined by " > ": by its last frame
        listed = {line.split()[-1]: (int(line.split()[0]), int(line.split()[1])) for line in lines}
        for function in ("burn_cpu", "touch_pages"):
            value = by_function(rows, function)[name]
            if value[0]:
                assert listed.get(function) == value, (name, function, lines)


def test_the_whole_programs_values_agree_with_perf_stat_and_time(program, tmp_path):
    """The program region (the tree's root: all the thread did while measured)
    against perf stat's and /usr/bin/time -v's readings of the same run, which
    also count what ran before the measurement started and after it ended."""
    experiment = tmp_path / "e"
    env = dict(METRICS, SCOREP_METRIC_RUSAGE="ru_utime,ru_stime,ru_minflt")
    perf = ["perf", "stat", "-x,", "-e", "task-clock,page-faults"] if shutil.which("perf") else []
    proc = run_program(perf + ["/usr/bin/time", "-v", program, BURN_MS, TOUCH_MIB], experiment, env)
    if perf and proc.returncode != 0 and "perf_event" in proc.stderr:
        pytest.skip(f"perf stat may not count here: {proc.stderr[-300:]}")
    assert proc.returncode == 0, proc.stderr
    time_v = dict(re.findall(r"^\s*(.+?): ([\d.]+)$", proc.stderr, re.M))
    rows, _ = metric_rows(experiment)
    (root,) = [cell for p, cell in rows.items() if len(p) == 1]
    assert agree(root["ru_minflt"][0], int(time_v["Minor (reclaiming a frame) page faults"])), (root, time_v)
    cpu_us = 1e6 * (float(time_v["User time (seconds)"]) + float(time_v["System time (seconds)"]))
    assert agree(root["ru_utime"][0] + root["ru_stime"][0], cpu_us, relative=0.05, absolute=20_000), (root, time_v)
    if perf:
        stat = {line.split(",")[2]: float(line.split(",")[0])
                for line in proc.stderr.splitlines() if line.count(",") >= 3 and line.split(",")[0][:1].isdigit()}
        assert agree(root["page-faults"][0], stat["page-faults"]), (root, stat)
        # perf stat gives milliseconds
        assert agree(root["task-clock"][0], 1e6 * stat["task-clock"], relative=0.06), (root, stat)


def test_openmp_members_values_on_the_forkers_call_path_they_continue(build_dir, tmp_path):
    exe = tmp_path / "omp_work"
    cmd = scorep(build_dir) + ["gcc", "-fopenmp", "-O2", "-g", str(HERE / "omp_work.c"), "-o", str(exe)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    proc = run_program([exe], tmp_path / "e", {"SCOREP_METRIC_RUSAGE": "ru_utime", "SCOREP_METRIC_PERF": "task-clock",
                                               "OMP_WAIT_POLICY": "passive"})
    assert proc.returncode == 0 and proc.stdout == "ok\n", proc.stderr
    profile = json.loads((tmp_path / "e" / "profile.json").read_text())
    regions = {r["id"]: r["name"] for r in profile["regions"]}
    cps = {c["id"]: c for c in profile["callpaths"]}
    work = [r for r in profile["rows"] if regions[cps[r["callpath"]]["region"]] == "work"]
    assert len({r["location"] for r in work}) == 2, work
    for row in profile["rows"]:
        # every location's call path holds its callees' values: none is negative
        for mid, value in row.get("metrics", {}).items():
            assert value >= 0, row
        for mid, value in row.get("metrics_excl", {}).items():
            assert value >= 0, (regions[cps[row["callpath"]]["region"]], row)
        if row in work:
            assert all(v > 0 for v in row["metrics"].values()), row


@pytest.mark.parametrize("event, where_not", [("PAPI_TOT_INS", "cannot be counted here (PAPI: "),
                                              ("PAPI_NO_SUCH_EVENT", "unknown PAPI event")])
def test_a_papi_event_is_recorded_where_papi_counts_it_and_warned_about_where_not(program, tmp_path, event,
                                                                                  where_not):
    plain = run_program([program, 20, 1, "quiet"], tmp_path / "plain")
    proc = run_program([program, 20, 1, "quiet"], tmp_path / "e",
                       {"SCOREP_METRIC_PAPI": event, "SCOREP_METRIC_PERF": "task-clock"})
    assert (proc.returncode, proc.stdout) == (plain.returncode, plain.stdout) == (0, "done\n"), proc.stderr
    profile = json.loads((tmp_path / "e" / "profile.json").read_text())
    kinds = {m["name"]: m.get("kind") for m in profile["metrics"]}
    if event in kinds:   # PAPI counts it on this machine (a PMU, PAPI installed)
        assert "Warning" not in proc.stderr and kinds[event] == "strict_papi", proc.stderr
        rows, _ = metric_rows(tmp_path / "e")
        assert by_function(rows, "burn_cpu")[event][0] > 0
        return
    assert list(kinds) == ["task-clock"]
    warnings = [line for line in proc.stderr.splitlines() if "Warning" in line]
    assert len(warnings) == 1 and "SCOREP_METRIC_PAPI" in warnings[0] and f"'{event}'" in warnings[0], warnings
    # where PAPI is installed, what it counts here; else that it is not
    assert (where_not in warnings[0] and "events this machine counts: " in warnings[0]) or \
        "PAPI is not installed" in warnings[0] or "without PAPI's header" in warnings[0], warnings
