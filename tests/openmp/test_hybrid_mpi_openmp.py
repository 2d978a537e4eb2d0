"""MPI and OpenMP together: hybrid_ring.c (a ring of ROUNDS rounds whose
local work is an OpenMP loop; with "multiple", every thread also sends its
own message around the ring) built with scorep mpicc -fopenmp, on RANKS
ranks of THREADS threads. Oracles: the program's output without
measurement and its source (which thread calls what how often),
otf2-print, Scalasca 2.6's hybrid analyser on the trace, and Score-P 8.4's
measurement of the same source."""
import collections
import json
import pathlib
import re
import shutil
import subprocess

import pytest

import cube_tools
from conftest import mpi_env, mpirun, scorep
from scorep_comparison import PREFIX, comparable, construct_paths, reference_tool, thread_records

HERE = pathlib.Path(__file__).resolve().parent
PROGRAM = HERE / "programs" / "hybrid_ring.c"
RANKS, THREADS, ROUNDS = 4, 2, 5
ENV = {"OMP_NUM_THREADS": str(THREADS), "OMP_WAIT_POLICY": "passive"}
LAUNCH = ["-x", "OMP_NUM_THREADS", "-x", "OMP_WAIT_POLICY"]


@pytest.fixture(scope="module")
def programs(build_dir, tmp_path_factory):
    if shutil.which("mpicc") is None:
        pytest.skip("no mpicc")
    work = tmp_path_factory.mktemp("hybrid")
    plain, measured = work / "hybrid_plain", work / "hybrid_ring"
    subprocess.run(["mpicc", "-fopenmp", "-O2", str(PROGRAM), "-o", str(plain)], check=True)
    built = subprocess.run(scorep(build_dir) + ["mpicc", "-fopenmp", "-g", "-O2", str(PROGRAM), "-o", str(measured)],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    return work, plain, measured


def run(programs, tmp_path, *args, tracing=False):
    work, plain, measured = programs
    expected = mpirun(RANKS, [plain, *args], env=ENV, cwd=tmp_path, launcher_args=LAUNCH)
    experiment = tmp_path / "experiment"
    env = dict(ENV, SCOREP_EXPERIMENT_DIRECTORY=str(experiment), SCOREP_ENABLE_TRACING=str(tracing).lower())
    proc = mpirun(RANKS, [measured, *args], env=env, cwd=tmp_path,
                  launcher_args=LAUNCH + ["-x", "SCOREP_EXPERIMENT_DIRECTORY", "-x", "SCOREP_ENABLE_TRACING"])
    assert sorted(proc.stdout.splitlines()) == sorted(expected.stdout.splitlines())
    return json.loads((experiment / "profile.json").read_text()), experiment


def visits_by_location(profile):
    """{(rank, team member or 0): {call path (region names): (visits, bytes sent)}}"""
    regions = {r["id"]: r["name"] for r in profile["regions"]}
    callpaths = {c["id"]: c for c in profile["callpaths"]}
    locations = {loc["id"]: (loc["rank"], loc.get("team_member", 0)) for loc in profile["locations"]}

    def path(cid):
        names = []
        while cid is not None:
            names.append(re.sub(r" @\S+$", "", regions[callpaths[cid]["region"]]))
            cid = callpaths[cid]["parent"]
        return tuple(reversed(names))
    result = collections.defaultdict(dict)
    for row in profile["rows"]:
        result[locations[row["location"]]][path(row["callpath"])] = (row["visits"], row["bytes_sent"])
    return result


def test_every_thread_of_every_rank_is_a_location_with_its_share_of_the_loops(programs, tmp_path):
    profile, _ = run(programs, tmp_path)
    rows = visits_by_location(profile)
    assert sorted(rows) == [(rank, member) for rank in range(RANKS) for member in range(THREADS)]
    for location, paths in rows.items():
        parallel = [visits for path, (visits, _) in paths.items() if path[-1] == "!$omp parallel"]
        loops = [visits for path, (visits, _) in paths.items() if path[-1] == "!$omp for"]
        assert parallel == [ROUNDS] and loops == [ROUNDS], (location, paths)
        # the master's MPI calls outside the team, none on the other member
        sendrecv = sum(v for p, (v, _) in paths.items() if p[-1] == "MPI_Sendrecv")
        assert sendrecv == (ROUNDS if location[1] == 0 else 0), (location, paths)
        # every path continues the rank's program and main
        assert all(p[:2] == ("hybrid_ring", "main") for p in paths if len(p) >= 2), (location, paths)


def test_mpi_calls_of_team_members_are_recorded_on_their_own_locations(programs, tmp_path):
    profile, _ = run(programs, tmp_path, "multiple")
    rows = visits_by_location(profile)
    for location, paths in rows.items():
        in_team = [(v, b) for p, (v, b) in paths.items() if p[-1] == "MPI_Sendrecv" and "!$omp parallel" in p]
        assert in_team == [(1, 8)], (location, paths)   # one long each, inside the second region


def test_scalasca_finds_the_openmp_wait_states_in_the_hybrid_trace(programs, tmp_path):
    prefix = cube_tools.reference("scalasca") or pathlib.Path("/opt/scalasca")
    scout = prefix / "bin" / "scout.hyb"
    if not scout.exists():
        pytest.skip(f"no Scalasca 2.6 with scout.hyb in {prefix} (set SCALASCA_REFERENCE_PREFIX)")
    cube_dump = (cube_tools.reference("scorep") or pathlib.Path("/opt/scorep")) / "bin" / "cube_dump"
    if not cube_dump.exists():
        pytest.skip("no Cube cube_dump of a Score-P installation to read Scalasca's report")
    _, experiment = run(programs, tmp_path, tracing=True)
    analysis = subprocess.run(["mpirun", "--oversubscribe", *LAUNCH, "-n", str(RANKS), str(scout),
                               str(experiment / "traces.otf2")], env=mpi_env(ENV), cwd=tmp_path,
                              capture_output=True, text=True, timeout=600)
    assert analysis.returncode == 0, analysis.stdout[-3000:] + analysis.stderr[-3000:]
    report = experiment / "scout.cubex"
    assert report.exists()
    dump = subprocess.run([str(cube_dump), "-m", "omp_ibarrier_wait,omp_management,delay_ompidle", "-z", "incl", "-s", "csv2",
                           str(report)], capture_output=True, text=True, timeout=120)
    assert dump.returncode == 0, dump.stderr
    totals = collections.Counter()
    lines = dump.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("Cnode ID"))
    names = lines[header].split(",")
    for line in lines[header + 1:]:
        values = line.split(",")
        if len(values) == len(names):
            for name, value in zip(names[2:], values[2:]):
                totals[name] += float(value)
    # the loop's implicit barrier waits (dynamic schedule, passive waiting), the fork/join management,
    # and the master's serial work that leaves the worker threads idle
    assert totals["omp_ibarrier_wait"] > 0 and totals["omp_management"] > 0, totals
    assert totals["delay_ompidle"] > 0, totals


@pytest.mark.parametrize("variant", ["rebuilt", "unmodified"])
def test_the_hybrid_ring_measures_as_scorep_measures_it(programs, tmp_path, installed_prefix, build_dir, variant):
    """hybrid_ring.c, "multiple" (the team members' own MPI calls), on RANKS
    ranks of THREADS threads, measured by Score-P 8.4 (OPARI2, rebuilt with
    --nocompiler) and by ours, rebuilt by scorep (a filter excludes every
    function, as --nocompiler does) or the unmodified binary under
    scorep-exec --mpi --thread=omp: Cube's cube_calltree finds the same
    call paths (MPI calls and constructs; rebuilt with every construct's
    @file:line) with the same visits, cube_dump the same locations, and
    otf2-print the same fork/join, team and lock records per location."""
    for tool in ("scorep", "cube_calltree", "cube_dump"):
        reference_tool(tool)
    work, plain, _ = programs
    source = tmp_path / "hybrid_ring.c"
    shutil.copy(PROGRAM, source)
    (tmp_path / "all.filter").write_text("SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE *\nSCOREP_REGION_NAMES_END\n")
    builds = {"scorep": [str(PREFIX / "bin" / "scorep"), "--nocompiler"],
              "ours": scorep(build_dir) + [f"--instrument-filter={tmp_path / 'all.filter'}"]}
    results = {}
    for who in ("scorep", "ours"):
        (tmp_path / who).mkdir()
        if who == "ours" and variant == "unmodified":
            argv = [installed_prefix / "bin" / "scorep-exec", "--mpi", "--thread=omp", "--", plain]
        else:
            binary = tmp_path / who / "hybrid_ring"
            built = subprocess.run(builds[who] + ["mpicc", "-fopenmp", "-g", "-O2", str(source), "-o", str(binary)],
                                   capture_output=True, text=True, cwd=tmp_path, timeout=300)
            assert built.returncode == 0, f"{who}: {built.stderr}"
            argv = [binary]
        experiment = tmp_path / who / "experiment"
        env = dict(ENV, SCOREP_EXPERIMENT_DIRECTORY=str(experiment), SCOREP_ENABLE_TRACING="true")
        launch = LAUNCH + ["-x", "SCOREP_EXPERIMENT_DIRECTORY", "-x", "SCOREP_ENABLE_TRACING"]
        if who == "ours":   # with the checks of every traced run of ours (conftest.mpirun)
            proc = mpirun(RANKS, [*argv, "multiple"], env=env, cwd=tmp_path / who, launcher_args=launch)
        else:
            proc = subprocess.run(["mpirun", "--oversubscribe", *launch, "-n", str(RANKS), *map(str, argv),
                                   "multiple"], env=mpi_env(env), cwd=tmp_path / who, capture_output=True,
                                  text=True, timeout=300)
            assert proc.returncode == 0, proc.stderr[-3000:]
        # Score-P's own lines about its clock left out
        results[who] = experiment, sorted(line for line in proc.stdout.splitlines()
                                          if not re.match(r"^rank\[\d+\]:\s+frequency = ", line))
    assert results["ours"][1] == results["scorep"][1]
    lines = variant == "rebuilt"

    def view(path):
        """Unmodified, no lines: GCC may give a parallel loop's call the
        enclosing loop's line. And a combined parallel loop with a reduction
        is GOMP_parallel and a loop ended without a barrier: a binary cannot
        tell it from a loop with nowait, so its implicit barrier is the
        region's, beside the loop (docs/OPENMP_ADAPTER.md); Score-P's barrier
        inside the loop is moved there too."""
        if lines:
            return path
        parts = ["<program>"] + path.split("/")[1:]
        if parts[-3:] == ["!$omp parallel", "!$omp for", "!$omp implicit barrier"]:
            parts = parts[:-2] + parts[-1:]
        return "/".join(parts)
    paths = {who: collections.Counter() for who in results}
    for who, found in paths.items():
        for path, visits in comparable(construct_paths(results[who][0] / "profile.cubex", tmp_path, lines),
                                       variant)[0].items():
            found[view(path)] += visits
    assert paths["ours"] == paths["scorep"], sorted(set(paths["ours"].items()) ^ set(paths["scorep"].items()))
    assert any("MPI_Sendrecv" in p and "!$omp parallel" in p for p in paths["ours"]), paths["ours"]
    locations = {}
    for who in results:
        dump = subprocess.run([str(reference_tool("cube_dump")), "-w", str(results[who][0] / "profile.cubex")],
                              capture_output=True, text=True, cwd=tmp_path, timeout=120)
        assert dump.returncode == 0, dump.stderr
        locations[who] = sorted(re.findall(r"\|-((?:Master|OMP) thread[^(]*) \(id=", dump.stdout))
    assert locations["ours"] == locations["scorep"] and len(locations["ours"]) == RANKS * THREADS, locations
    records = {who: thread_records(results[who][0] / "traces.otf2", tmp_path) for who in results}
    assert records["ours"] == records["scorep"] and records["ours"], records
