"""Coarray Fortran end to end: tests/caf/programs/caf_constructs.f90 built with
OpenCoarrays' caf, plain and with `scorep caf`, run on 2 and 4 images with
cafrun. The output is unchanged; the profile has the visits of every construct
and the bytes of every remote put and get per target image, all computed here
from the program's constants and array shapes; the OTF2 trace (otf2-print) has
one RMA put / get record per remote access with the target's rank and bytes.
"""
import json
import re
import shutil
import subprocess
import sys
from collections import Counter

import pytest

import trace_consistency
from conftest import REPO, mpi_env, scorep

PROGRAM = REPO / "tests" / "caf" / "programs" / "caf_constructs.f90"
NX, NY, NSTEPS, NCRITICAL = 6, 5, 3, 2        # the program's constants
REAL8, INT = 8, 4

pytestmark = pytest.mark.skipif(not (shutil.which("caf") and shutil.which("cafrun")),
                                reason="OpenCoarrays (caf, cafrun) not installed")


@pytest.fixture(scope="module")
def programs(build_dir, tmp_path_factory):
    if not (build_dir / "runtime" / "caf_adapter" / "scorep_caf_wrap.flags").exists():
        pytest.fail("the build has no CAF adapter (libcaf.h missing at configure time?)")
    out = tmp_path_factory.mktemp("caf")
    built = {}
    for kind, prefix in (("plain", []), ("measured", scorep(build_dir))):
        d = out / kind
        d.mkdir()
        subprocess.run(prefix + ["caf", str(PROGRAM), "-o", str(d / "caf_constructs")],
                       check=True, capture_output=True, text=True, cwd=d)
        built[kind] = d / "caf_constructs"
    return built


def cafrun(images, program, cwd, env=None):
    environment = mpi_env(env)
    forwarded = [a for key in (env or {}) for a in ("-x", key)]
    started = trace_consistency.run_started()
    proc = subprocess.run(["cafrun", "-n", str(images), "--oversubscribe", *forwarded, str(program)],
                          env=environment, cwd=cwd, capture_output=True, text=True, timeout=120)
    trace_consistency.check_run(env, cwd, started, proc.returncode)   # as conftest.mpirun does
    return proc


def expected(images):
    """Per image (1-based): visits per region and bytes per (region, target image)."""
    visits, put, got = {}, {}, {}
    for me in range(1, images + 1):
        left = images if me == 1 else me - 1
        right = 1 if me == images else me + 1
        v = Counter()
        p, g = Counter(), Counter()
        v["_gfortran_caf_sync_all"] = 1 + 2 * NSTEPS + 1
        # halo: a contiguous column to the right, a strided row to the left,
        # a strided row from the right
        v["_gfortran_caf_send"] += 2 * NSTEPS
        p[right] += NSTEPS * NX * REAL8
        p[left] += NSTEPS * NY * REAL8
        v["_gfortran_caf_get"] += NSTEPS
        g[right] += NSTEPS * NY * REAL8
        # pipeline
        v["_gfortran_caf_sync_images"] = (me > 1) + (me < images)
        if me > 1:
            v["_gfortran_caf_get"] += 1
            g[me - 1] += INT
        # critical sections (a lock of the construct's own lock variable) and a lock:
        # each reads and writes one integer on image 1 (on image 1 itself a
        # call, but no remote access)
        v["_gfortran_caf_lock"] = v["_gfortran_caf_unlock"] = NCRITICAL + 1
        v["_gfortran_caf_get"] += NCRITICAL + 1
        v["_gfortran_caf_send"] += NCRITICAL + 1
        if me != 1:
            g[1] += (NCRITICAL + 1) * INT
            p[1] += (NCRITICAL + 1) * INT
        v["_gfortran_caf_co_sum"] = v["_gfortran_caf_co_broadcast"] = 1
        v["_gfortran_caf_event_post"] = images - 1 if me == 1 else 0
        v["_gfortran_caf_event_wait"] = 0 if me == 1 else 1
        v["_gfortran_caf_init"] = v["_gfortran_caf_finalize"] = 1
        visits[me], put[me], got[me] = v, p, g
    return visits, put, got


def profile_counts(profile):
    """visits per (rank, region), and bytes put / got per (rank, target image)
    from the image=N parameter nodes under _gfortran_caf_send / _get."""
    regions = {r["id"]: r for r in profile["regions"]}
    callpaths = {c["id"]: c for c in profile["callpaths"]}
    rank_of = {loc["id"]: loc["rank"] for loc in profile["locations"]}
    visits = Counter()
    put, got = Counter(), Counter()
    put_visits = Counter()
    for row in profile["rows"]:
        cp = callpaths[row["callpath"]]
        region = regions[cp["region"]]
        rank = rank_of[row["location"]]
        if cp.get("parameter"):
            if cp["parameter"]["name"] != "image":
                continue
            target = int(cp["parameter"]["value"])
            if region["name"] == "_gfortran_caf_send":
                put[rank, target] += row["bytes_put"]
                put_visits[rank, target] += row["visits"]
            elif region["name"] == "_gfortran_caf_get":
                got[rank, target] += row["bytes_get"]
            continue
        visits[rank, region["name"]] += row["visits"]
        if region["name"].startswith("_gfortran_caf_"):
            assert region["paradigm"] == "caf", region
    return visits, put, got


RMA = re.compile(r"^(RMA_PUT|RMA_GET)\s+(\d+)\s+\d+\s+Window: .*?, Remote: (\d+) .*?Bytes: (\d+), Matching: (\d+)")
ATOMIC = re.compile(r"^RMA_ATOMIC\s+(\d+)\s+\d+\s+Window: .*?, Remote: (\d+) .*?Matching: (\d+)")
COMPLETE = re.compile(r"^RMA_OP_COMPLETE_BLOCKING\s+(\d+)\s+\d+\s+Window: .*?, Matching: (\d+)")


def trace_counts(experiment):
    """bytes and records of RMA puts / gets per (rank, target rank) from otf2-print,
    and whether every operation completes."""
    printed = subprocess.run(["otf2-print", str(experiment / "traces.otf2")], capture_output=True,
                             text=True, check=True)
    # MPI groups (OpenCoarrays' windows) beside communicators: comm ids without gaps
    assert "warning" not in printed.stderr, printed.stderr
    out = printed.stdout
    # every coarray's window, registered at start-up or by allocate, ends:
    # by deallocate, or in the finalisation that frees what is left
    windows = Counter(line.split()[0] for line in out.splitlines() if line.startswith("RMA_WIN_"))
    assert windows["RMA_WIN_CREATE"] == windows["RMA_WIN_DESTROY"] > 0, windows
    put, got, records = Counter(), Counter(), Counter()
    issued, completed = set(), set()
    for line in out.splitlines():
        m = RMA.match(line)
        if m:
            kind, location, remote, nbytes, matching = m.groups()
            rank = int(location) >> 32
            (put if kind == "RMA_PUT" else got)[rank, int(remote)] += int(nbytes)
            records[kind, rank, int(remote)] += 1
            issued.add((rank, int(matching)))
            continue
        m = ATOMIC.match(line)
        if m:          # event post: an atomic increment of the target's event variable
            records["RMA_ATOMIC", int(m.group(1)) >> 32, int(m.group(2))] += 1
            issued.add((int(m.group(1)) >> 32, int(m.group(3))))
            continue
        m = COMPLETE.match(line)
        if m:
            completed.add((int(m.group(1)) >> 32, int(m.group(2))))
    return put, got, records, issued, completed


@pytest.mark.parametrize("images", [2, 4])
def test_constructs_profile_and_trace(programs, tmp_path, images):
    plain = cafrun(images, programs["plain"], tmp_path)
    assert plain.returncode == 0, plain.stderr
    experiment = tmp_path / "experiment"
    measured = cafrun(images, programs["measured"], tmp_path,
                      {"SCOREP_EXPERIMENT_DIRECTORY": str(experiment), "SCOREP_ENABLE_TRACING": "true"})
    assert measured.returncode == 0, measured.stderr
    assert sorted(measured.stdout.splitlines()) == sorted(plain.stdout.splitlines())
    assert f"counters: {NCRITICAL * images} {images}" in plain.stdout

    want_visits, want_put, want_got = expected(images)
    profile = json.loads((experiment / "profile.json").read_text())
    # OpenCoarrays' own MPI calls are not recorded by default: one statement, one region
    assert mpi_visits(profile) == 0
    assert profile["experiment"]["ranks"] == images
    visits, put, got = profile_counts(profile)
    for me in range(1, images + 1):
        for region, n in want_visits[me].items():
            assert visits[me - 1, region] == n, (me, region)
        for target in range(1, images + 1):
            assert put[me - 1, target] == want_put[me][target], ("put", me, target)
            assert got[me - 1, target] == want_got[me][target], ("get", me, target)

    tput, tgot, records, issued, completed = trace_counts(experiment)
    for me in range(1, images + 1):
        for target in range(1, images + 1):
            # the trace names the target by its rank: image - 1
            assert tput[me - 1, target - 1] == want_put[me][target], ("trace put", me, target)
            assert tgot[me - 1, target - 1] == want_got[me][target], ("trace get", me, target)
    # every call is a remote access but image 1's critical sections and lock on itself
    assert sum(n for (kind, _, _), n in records.items() if kind == "RMA_PUT") == \
        sum(want_visits[me]["_gfortran_caf_send"] for me in want_visits) - (NCRITICAL + 1)
    assert sum(n for (kind, _, _), n in records.items() if kind == "RMA_GET") == \
        sum(want_visits[me]["_gfortran_caf_get"] for me in want_visits) - (NCRITICAL + 1)
    assert not [key for key in records if key[1] == key[2]], "an access to the own image recorded as remote"
    assert records["RMA_ATOMIC", 0, 1] == (1 if images > 1 else 0)
    assert sum(n for (kind, _, _), n in records.items() if kind == "RMA_ATOMIC") == images - 1
    assert issued and issued == completed

    check_export_arrows(experiment, tmp_path)
    check_text_report(experiment, images, want_visits, want_put, want_got)


EXPORT = REPO / "tools" / "scorep-trace-export"
RMA_RECORD = re.compile(r"^(RMA_PUT|RMA_GET|RMA_ATOMIC)\s+(\d+)\s+\d+\s+Window: .*?, Remote: (\d+)"
                        r"(?: .*?Bytes: (\d+))?.*?, Matching: (\d+)")


def check_export_arrows(experiment, tmp_path):
    """scorep-trace-export draws one arrow per RMA put / get / atomic record
    of otf2-print: same origin and target rank, bytes and matching id; a put
    goes from the origin's _gfortran_caf_send to the target, a get from the
    target to the origin's _gfortran_caf_get."""
    out = tmp_path / "trace.json"
    subprocess.run([sys.executable, str(EXPORT), str(experiment), "-o", str(out)], check=True,
                   capture_output=True, text=True)
    events = json.loads(out.read_text())["traceEvents"]
    printed = subprocess.run(["otf2-print", str(experiment / "traces.otf2")], capture_output=True,
                             text=True, check=True).stdout
    want = Counter()
    for line in printed.splitlines():
        m = RMA_RECORD.match(line)
        if m:
            kind, location, remote, nbytes, matching = m.groups()
            kind = kind[4:].lower()
            want[kind, int(location) >> 32, int(remote), int(nbytes or 0) if kind != "atomic" else None,
                 int(matching)] += 1
    assert sum(n for key, n in want.items() if key[0] == "put") and \
        sum(n for key, n in want.items() if key[0] == "get")
    tracks = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e["name"] == "thread_name"}
    starts = {e["id"]: e for e in events if e["ph"] == "s" and e["cat"].startswith("rma_")}
    ends = {e["id"]: e for e in events if e["ph"] == "f" and e["cat"].startswith("rma_")}
    assert starts.keys() == ends.keys()
    got = Counter()
    for flow, s in starts.items():
        f, args, kind = ends[flow], s["args"], s["cat"][4:]
        origin, target = (f, s) if kind == "get" else (s, f)
        assert origin["pid"] == args["origin"] and target["pid"] == args["target"], s
        assert not tracks[origin["pid"], origin["tid"]].startswith("RMA by")      # the image's own thread
        assert tracks[target["pid"], target["tid"]] == f"RMA by rank {args['origin']}"
        nbytes = args["bytes_sent"] if kind == "put" else args["bytes_received"] if kind == "get" else None
        got[kind, args["origin"], args["target"], nbytes, args["matching_id"]] += 1
    assert got == want


def check_text_report(experiment, images, want_visits, want_put, want_got):
    """profile.txt's CAF section: per image the syncs and the bytes put / got,
    per (image, target) the puts, gets, atomics and bytes: all from the
    program's logic (the atomics are image 1's event posts, 4 bytes each)."""
    text = (experiment / "profile.txt").read_text()
    section = text.split("Coarray Fortran per image", 1)[1].split("\n\n", 1)[0]
    head, targets = section.split("Coarray Fortran remote accesses per target image")
    rows = [line.split() for line in head.splitlines()[2:]]
    assert [int(r[0]) for r in rows] == list(range(1, images + 1))
    for r in rows:
        me = int(r[0])
        v = want_visits[me]
        posts = v["_gfortran_caf_event_post"]
        assert int(r[1]) == v["_gfortran_caf_sync_all"] + v["_gfortran_caf_sync_images"], r
        assert float(r[2]) > 0
        own = (NCRITICAL + 1) * (me == 1)     # image 1's accesses to itself are no puts or gets
        assert [int(x) for x in r[3:]] == [v["_gfortran_caf_send"] - own, sum(want_put[me].values()) + posts * INT,
                                           v["_gfortran_caf_get"] - own, sum(want_got[me].values()), posts], r
    pairs = {(int(r[0]), int(r[1])): [int(x) for x in r[2:]] for r in map(str.split, targets.splitlines()[2:])}
    want_pairs = {}
    for me in range(1, images + 1):
        for t in range(1, images + 1):
            critical = (NCRITICAL + 1) * (t == 1 and me != 1)
            puts = NSTEPS * ((t == right_of(me, images)) + (t == left_of(me, images))) + critical
            gets = NSTEPS * (t == right_of(me, images)) + (me > 1 and t == me - 1) + critical
            posts = int(me == 1 and t > 1)
            row = [puts, want_put[me][t] + posts * INT, gets, want_got[me][t], posts]
            if any(row):
                want_pairs[me, t] = row
    assert pairs == want_pairs


def left_of(me, images):
    return images if me == 1 else me - 1


def right_of(me, images):
    return 1 if me == images else me + 1


ERROR_STOP = REPO / "tests" / "caf" / "programs" / "caf_error_stop.f90"
NPUTS = 3                                       # caf_error_stop.f90's constant


def test_error_stop_leaves_every_image_readable(build_dir, tmp_path):
    program = tmp_path / "caf_error_stop"
    subprocess.run(scorep(build_dir) + ["caf", str(ERROR_STOP), "-o", str(program)],
                   check=True, capture_output=True, text=True, cwd=tmp_path)
    experiment = tmp_path / "experiment"
    images = 2
    proc = cafrun(images, program, tmp_path,
                  {"SCOREP_EXPERIMENT_DIRECTORY": str(experiment), "SCOREP_ENABLE_TRACING": "true"})
    assert proc.returncode != 0 and "not reached" not in proc.stdout
    for rank in range(images):
        profile = json.loads((experiment / f"profile.rank{rank}.json").read_text())
        assert profile["experiment"]["partial"] is True
        visits, put, _ = profile_counts(profile)
        # what every image did before image 2 stopped: its puts (to image 1:
        # remote but on image 1 itself) and one sync all
        remote = NPUTS if rank != 0 else 0
        assert visits[rank, "_gfortran_caf_send"] == NPUTS
        assert put[rank, 1] == remote * INT
        assert visits[rank, "_gfortran_caf_sync_all"] >= 1
        trace = subprocess.run(["otf2-print", str(experiment / f"traces.rank{rank}.otf2")],
                               capture_output=True, text=True, check=True).stdout
        assert len(re.findall(r"^RMA_PUT .*Remote: 0 .*Bytes: 4,", trace, re.M)) == remote
    error_stop = json.loads((experiment / "profile.rank1.json").read_text())
    v, _, _ = profile_counts(error_stop)
    assert v[1, "_gfortran_caf_error_stop"] == 1


def mpi_visits(profile):
    mpi = {r["id"] for r in profile["regions"] if r["paradigm"] == "mpi"}
    callpaths = {c["id"]: c for c in profile["callpaths"]}
    return sum(row["visits"] for row in profile["rows"]
               if callpaths[row["callpath"]]["region"] in mpi and not callpaths[row["callpath"]].get("parameter"))


def test_record_mpi_nests_opencoarrays_mpi_calls(programs, tmp_path):
    experiment = tmp_path / "experiment"
    proc = cafrun(2, programs["measured"], tmp_path,
                  {"SCOREP_EXPERIMENT_DIRECTORY": str(experiment), "SCOREP_CAF_RECORD_MPI": "true"})
    assert proc.returncode == 0, proc.stderr
    profile = json.loads((experiment / "profile.json").read_text())
    regions = {r["id"]: r for r in profile["regions"]}
    callpaths = {c["id"]: c for c in profile["callpaths"]}
    assert mpi_visits(profile) > 0
    for row in profile["rows"]:
        cp = callpaths[row["callpath"]]
        if regions[cp["region"]]["paradigm"] != "mpi" or cp.get("parameter"):
            continue
        # every recorded MPI call sits inside a CAF region (its parent, or a
        # parameter node of one)
        parent = callpaths[cp["parent"]] if cp["parent"] is not None else None
        assert parent is not None and regions[parent["region"]]["paradigm"] in ("caf", "mpi"), \
            regions[cp["region"]]["name"]
    sync_all = [c for c in profile["callpaths"] if regions[c["region"]]["name"] == "MPI_Barrier"
                and c["parent"] is not None
                and regions[callpaths[c["parent"]]["region"]]["name"] == "_gfortran_caf_sync_all"]
    assert sync_all
