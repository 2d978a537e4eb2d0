"""Every profile.cubex the test suite writes is compared with the
profile.json beside it: every metric of every call path on every location,
exact for counts and bytes, and nothing in the CUBE file that profile.json
does not have. A partial experiment's profile.rank<R>.cubex is compared with
its profile.rank<R>.json.

The values are read twice. CubeLib's own tools (tests/cube_tools.py, built by
`make cube-tools` from the Score-P release beside the checkout) are the
oracle: what cube_dump reads is what Cube, Scalasca and scorep-score show,
inclusive and exclusive time included (to the 6 digits cube_dump prints), and
cube_info must open the file and cube_sanity find no negative value. The
independent reader (tests/cube_reader.py) checks the structure and, where the
tools are absent, the values, to the nanosecond.

Two hooks: conftest.mpirun calls check_run after each MPI run (the test that
ran it fails); conftest's session fixture calls sweep at the end over the
session's temporary directories, for the runs of other launchers (serial
programs, compiler, library-wrapping and coarray tests), skipping files
already checked and pairs a test has changed since (profile.json newer than
its profile.cubex, which the measurement writes after it).

compare(cubex, json) returns the list of differences (empty: they agree)."""
import concurrent.futures
import json
import os
import pathlib
import re
import socket
import threading
import time

import cube_reader
import cube_tools
import trace_consistency

CHECKED = {"files": 0, "seconds": 0.0}
_SEEN = set()   # (path, mtime) of the files already compared
_LOCK = threading.Lock()

# profile.json row field -> (CUBE metric, scale of the stored value to the field's unit)
ROW_METRICS = {
    "visits": ("visits", 1),
    "time_incl_ns": ("time", 1e9),
    "time_min_ns": ("min_time", 1e9),
    "time_max_ns": ("max_time", 1e9),
    "bytes_sent": ("bytes_sent", 1),
    "bytes_received": ("bytes_received", 1),
    "bytes_put": ("bytes_put", 1),
    "bytes_get": ("bytes_get", 1),
    "bytes_read": ("io_bytes_read", 1),
    "bytes_written": ("io_bytes_written", 1),
}
# Score-P's metric definitions the tools key on: (dtype, uom, type)
SCOREP_METRICS = {
    "visits": ("UINT64", "occ", "EXCLUSIVE"),
    "time": ("DOUBLE", "sec", "INCLUSIVE"),
    "min_time": ("MINDOUBLE", "sec", "EXCLUSIVE"),
    "max_time": ("MAXDOUBLE", "sec", "EXCLUSIVE"),
    "bytes_sent": ("UINT64", "bytes", "EXCLUSIVE"),
    "bytes_received": ("UINT64", "bytes", "EXCLUSIVE"),
    "bytes_put": ("UINT64", "bytes", "EXCLUSIVE"),
    "bytes_get": ("UINT64", "bytes", "EXCLUSIVE"),
    "io_bytes_read": ("UINT64", "bytes", "EXCLUSIVE"),
    "io_bytes_written": ("UINT64", "bytes", "EXCLUSIVE"),
}


def _json_frame(profile, callpath, regions):
    """A frame's identity: its region's (name, file, line, paradigm, role), as
    Score-P tells regions apart (two "step" in one file at two lines are two),
    and its parameter."""
    r = regions[callpath["region"]]
    region = (r["name"], r["file"] or "", r["line"] or -1, r["paradigm"], r["role"])
    params = ()
    if "parameter" in callpath:
        p = callpath["parameter"]
        kind = "string" if isinstance(p["value"], str) or p["value"] is None else "numeric"
        params = ((kind, p["name"], "" if p["value"] is None else str(p["value"])),)
    return (region, params)



def omp_thread_part(profile, loc):
    """What follows "OMP thread " in Score-P's name of a team member: its
    number in the master's outermost team; "0", ":0" per further level and
    ":N" in a team the master forks inside its own; the forking member's
    part, ":0" per own team it is nested in and ":N" in another member's
    team (docs/PROFILE_FORMAT.md)."""
    level, member = loc.get("team_level", 0), loc["team_member"]
    forker = next((other for other in profile["locations"]
                   if other["rank"] == loc["rank"] and other["thread"] == loc.get("creator")), None)
    if forker is None:
        return str(member)
    if forker["thread"] == 0:
        return str(member) if level == 0 else "0" + ":0" * (level - 1) + f":{member}"
    if forker.get("team_member"):
        return omp_thread_part(profile, forker) + ":0" * level + f":{member}"
    return str(member)

def compare(cubex_path, json_path, host=None):
    problems = []
    cube = cube_reader.read(cubex_path)
    profile = json.loads(pathlib.Path(json_path).read_text())
    regions = {r["id"]: r for r in profile["regions"]}
    callpaths = {c["id"]: c for c in profile["callpaths"]}

    for uniq, (dtype, uom, kind) in SCOREP_METRICS.items():
        try:
            m = cube.metric(uniq)
        except KeyError:
            problems.append(f"metric {uniq} is missing")
            continue
        if (m["dtype"], m["uom"], m["type"]) != (dtype, uom, kind):
            problems.append(f"metric {uniq}: {m['dtype']}/{m['uom']}/{m['type']}, Score-P has {dtype}/{uom}/{kind}")
    if cube.attrs.get("CUBE_CT_AGGR") != "SUM":
        problems.append("anchor.xml lacks the attribute CUBE_CT_AGGR=SUM")

    # regions: the same definitions
    for rid, region in regions.items():
        if region.get("filtered"):
            continue
        c = cube.regions.get(rid)
        if c is None:
            problems.append(f"region {rid} {region['name']} is missing")
            continue
        want = (region["name"], region["file"] or "", region["line"] or -1, region["paradigm"], region["role"])
        got = (c["name"], c["mod"], c["begin"], c["paradigm"], c["role"])
        if want != got:
            problems.append(f"region {rid}: {got} in CUBE, {want} in profile.json")

    # call paths: the same tree, by the path of frames from the root
    def json_path_of(cid):
        frames = []
        while cid is not None:
            frames.append(_json_frame(profile, callpaths[cid], regions))
            cid = callpaths[cid]["parent"]
        return tuple(frames[::-1])

    def cube_path_of(cnode):
        frames = []
        while cnode is not None:
            c = cube.cnodes[cnode]
            r = cube.regions[c["callee"]]
            frames.append(((r["name"], r["mod"], r["begin"], r["paradigm"], r["role"]), tuple(c["parameters"])))
            cnode = c["parent"]
        return tuple(frames[::-1])

    by_path = {cube_path_of(c): c for c in cube.cnodes}
    if len(by_path) != len(cube.cnodes):
        problems.append("two cnodes have the same call path")
    json_to_cnode = {}
    for cid in callpaths:
        path = json_path_of(cid)
        if path not in by_path:
            problems.append(f"call path {' / '.join(f[0][0] for f in path)} is not a cnode")
        else:
            json_to_cnode[cid] = by_path[path]
    if len(cube.cnodes) != len(callpaths):
        problems.append(f"{len(cube.cnodes)} cnodes, {len(callpaths)} call paths in profile.json")

    # locations: process "MPI Rank N" on a node named by its host, thread names as in the OTF2 trace
    loc_of = {}
    cube_loc = {(l["process"]["rank"], l["rank"]): l for l in cube.locations.values()}
    for loc in profile["locations"]:
        c = cube_loc.get((loc["rank"], loc["thread"]))
        if c is None:
            problems.append(f"location rank {loc['rank']} thread {loc['thread']} is missing")
            continue
        loc_of[loc["id"]] = c["id"]
        # Score-P's names: "Pthread thread N", an OpenMP team's member "OMP thread N"
        # (nested: omp_thread_part), and "Process" where MPI took no part
        name = ("Master thread" if loc["thread"] == 0 else f"OMP thread {omp_thread_part(profile, loc)}"
                if loc.get("team_member") else f"Pthread thread {loc['thread']}")
        process = f"MPI Rank {loc['rank']}" if profile["experiment"].get("mpi", True) else "Process"
        classes = [k for k, _ in c["tree"]]
        if (c["name"], c["type"], c["process"]["name"], c["process"]["type"], classes) != (
                name, "thread", process, "process", ["machine", "node"]):
            problems.append(f"location {c}: not machine/node/'{process}'/'{name}'")
        # each rank's own host where profile.json names it (several nodes), else this machine's
        hosts = profile.get("experiment", {}).get("hosts") or []
        want_host = hosts[loc["rank"]] if loc["rank"] < len(hosts) else host
        if want_host and c["node"] != f"node {want_host}":
            problems.append(f"location {c['id']}: node {c['node']!r}, the host is {want_host!r}")
    if len(cube.locations) != len(profile["locations"]):
        problems.append(f"{len(cube.locations)} locations, {len(profile['locations'])} in profile.json")

    # every metric of every (call path, location)
    expected = {uniq: {} for uniq, _ in ROW_METRICS.values()}
    # a strict metric's (SCOREP_METRIC_RUSAGE, _PERF) unique name is its name
    # as CubePL takes it (task-clock: task_clock), its value inclusive
    users = {m["id"]: (re.sub(r"[^A-Za-z0-9_]", "_", m["name"]) if m.get("kind", "").startswith("strict_")
                       else m["name"]) for m in profile["metrics"]}
    strict = {name for m, name in users.items()
              if next(x for x in profile["metrics"] if x["id"] == m).get("kind", "").startswith("strict_")}
    for name in users.values():
        expected.setdefault(name, {})
    # a sampled profile's hits (SCOREP_ENABLE_UNWINDING), a metric as Score-P defines it
    if any(row.get("hits") for row in profile["rows"]):
        expected["hits"] = {}
        try:
            m = cube.metric("hits")
            if (m["dtype"], m["uom"], m["type"]) != ("UINT64", "occ", "EXCLUSIVE"):
                problems.append(f"metric hits: {m['dtype']}/{m['uom']}/{m['type']}, Score-P has UINT64/occ/EXCLUSIVE")
        except KeyError:
            pass   # reported below with its values
    for row in profile["rows"]:
        if row["location"] is None or row["callpath"] not in json_to_cnode or row["location"] not in loc_of:
            continue
        key = (json_to_cnode[row["callpath"]], loc_of[row["location"]])
        for field, (uniq, _) in ROW_METRICS.items():
            value = row[field] if (field != "time_min_ns" or row["visits"]) else 0
            cell = expected[uniq]
            if uniq == "min_time" and key in cell:
                cell[key] = min(cell[key], value)
            elif uniq == "max_time" and key in cell:
                cell[key] = max(cell[key], value)
            else:
                cell[key] = cell.get(key, 0) + value
        for mid, value in row.get("metrics", {}).items():
            cell = expected[users[int(mid)]]
            cell[key] = cell.get(key, 0) + value
        if "hits" in expected:
            expected["hits"][key] = expected["hits"].get(key, 0) + row.get("hits", 0)
    scale = {uniq: s for uniq, s in ROW_METRICS.values()}
    for uniq, want in expected.items():
        try:
            got = cube.values(uniq)
        except KeyError:
            problems.append(f"metric {uniq} is missing")
            continue
        s = scale.get(uniq, 1)
        for key in set(want) | set(got):
            w = want.get(key, 0)
            g = got.get(key, 0)
            if s != 1:
                g = round(g * s)   # seconds back to nanoseconds: exact while below 2^53 ns
            if w != g:
                problems.append(f"{uniq} at cnode {key[0]} ({' / '.join(f[0] for f in cube.call_path(key[0]))}), "
                                f"location {key[1]}: {g} in CUBE, {w} in profile.json")
    if cube_tools.bin_dir() is not None:
        excl = {}
        for row in profile["rows"]:
            if row["location"] is not None and row["callpath"] in json_to_cnode and row["location"] in loc_of:
                key = (json_to_cnode[row["callpath"]], loc_of[row["location"]])
                excl[key] = excl.get(key, 0) + row["time_excl_ns"]
        problems += _compare_with_tools(cubex_path, cube, expected, excl, scale, strict)
    return problems


def _compare_with_tools(cubex_path, cube, expected, time_excl, scale, strict=frozenset()):
    """What CubeLib's cube_dump reads: every expected value, stored, and the
    exclusive time Cube derives from the inclusive one."""
    extrema = {m["uniq_name"] for m in cube.metrics if m["dtype"].upper() in ("MAXDOUBLE", "MINDOUBLE")}
    problems = cube_tools.problems(cubex_path, extrema)
    if problems:
        return problems
    # a call path's own value: -z excl (for the EXCLUSIVE metrics what is
    # stored); the inclusive time as Cube shows it, and the exclusive time it
    # derives by subtracting the children's
    names = sorted(set(expected) - {"time"} - set(strict))
    try:
        own = cube_tools.values(cubex_path, names, "excl")
        if strict:   # stored inclusive
            stored = cube_tools.values(cubex_path, sorted(strict), "incl")
            for key, cells in stored.items():
                own.setdefault(key, {}).update(cells)
        derived = cube_tools.values(cubex_path, ["time"], "excl")
        inclusive = cube_tools.values(cubex_path, ["time"], "incl")
    except RuntimeError as e:
        return [f"cube_dump: {e}"]
    wanted = {uniq: dict(cells) for uniq, cells in expected.items()}
    wanted["time (exclusive, derived by Cube)"] = time_excl
    read = {uniq: {key: cells.get(uniq) for key, cells in own.items()} for uniq in names + sorted(strict)}
    read["time"] = {key: cells.get("time") for key, cells in inclusive.items()}
    read["time (exclusive, derived by Cube)"] = {key: cells.get("time") for key, cells in derived.items()}
    for uniq, want in wanted.items():
        s = scale.get(uniq.split(" ")[0], 1)
        got = read[uniq]
        for key in set(want) | {k for k, v in got.items() if v is not None and v != 0 and abs(v) < 1.7e308}:
            w = want.get(key, 0)
            g = got.get(key)
            g = 0 if g is None or abs(g) >= 1.7e308 else g * s
            # cube_dump prints doubles with 6 significant digits
            if abs(g - w) > (max(1.0, 1e-5 * abs(w)) if s != 1 else 0):
                problems.append(f"cube_dump: {uniq} at cnode {key[0]} "
                                f"({' / '.join(f[0] for f in cube.call_path(key[0]))}), "
                                f"location {key[1]}: {g:g}, profile.json {w}")
    return problems


def check_experiment(experiment, host=None):
    """Differences of every profile*.cubex in an experiment directory with
    its JSON twin; a .cubex without one is one too. (A profile*.cubex.part
    is what a rank killed while writing leaves: never taken for the file.)"""
    experiment = pathlib.Path(experiment)
    problems = []
    pairs = []
    for cubex in sorted(experiment.glob("profile*.cubex")):
        twin = cubex.with_suffix(".json")
        if not twin.is_file():
            problems.append(f"{cubex.name}: no {twin.name} beside it")
            continue
        pairs.append((cubex, twin))
    for (cubex, _), found in zip(pairs, _compare_all(pairs, host)):
        problems += [f"{cubex.name}: {p}" for p in found]
    return problems


def _compare_all(pairs, host):
    """[differences of each (cubex, json)], the files compared on all cores
    at once: most of the time goes to CubeLib's tools, a process each."""
    if len(pairs) < 2:
        return [_compare_once(cubex, twin, host) for cubex, twin in pairs]
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        return list(pool.map(lambda pair: _compare_once(*pair, host), pairs))


def _compare_once(cubex, twin, host):
    began = time.perf_counter()
    with _LOCK:
        _SEEN.add((str(cubex), cubex.stat().st_mtime))
    try:
        return compare(cubex, twin, host)
    except cube_reader.CubeFormatError as e:
        return [f"unreadable: {e}"]
    finally:
        with _LOCK:
            CHECKED["files"] += 1
            CHECKED["seconds"] += time.perf_counter() - began


def sweep(root, host=None):
    """Compares every profile*.cubex under root not compared yet; returns
    the differences, each naming its file."""
    problems = []
    pairs = []
    for cubex in sorted(pathlib.Path(root).rglob("profile*.cubex")):
        twin = cubex.with_suffix(".json")
        try:
            if (str(cubex), cubex.stat().st_mtime) in _SEEN or not twin.is_file():
                continue
            # written by one measurement: the JSON first, the CUBE file right after
            if not 0 <= cubex.stat().st_mtime - twin.stat().st_mtime < 30:
                continue
        except OSError:
            continue
        pairs.append((cubex, twin))
    for (cubex, _), found in zip(pairs, _compare_all(pairs, host)):
        problems += [f"{cubex}: {p}" for p in found]
    return problems


def pytest_terminal_summary(terminalreporter):
    """(a pytest hook, imported by conftest.py) How many CUBE files were compared."""
    if CHECKED["files"]:
        terminalreporter.write_line(f"profile.cubex: {CHECKED['files']} files compared with their profile.json "
                                    f"in {CHECKED['seconds']:.1f} s")


def check_run(env, cwd, started):
    """Called by conftest.mpirun after a run: every profile.cubex the run
    wrote must agree with its profile.json."""
    merged = dict(os.environ)
    merged.update({k: str(v) for k, v in (env or {}).items()})
    for experiment in trace_consistency._experiments(merged, cwd, started):
        if not experiment.is_dir():
            continue
        fresh = [c for c in experiment.glob("profile*.cubex") if c.stat().st_mtime >= started - 0.05]
        if not fresh:
            continue
        problems = check_experiment(experiment, host=socket.gethostname())
        if problems:
            shown = "\n  ".join(problems[:30])
            raise AssertionError(f"profile.cubex of {experiment} disagrees with profile.json "
                                 f"({len(problems)} differences):\n  {shown}")
