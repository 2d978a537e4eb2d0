"""Sampling with unwinding (SCOREP_ENABLE_UNWINDING): the functions samples
see join the call tree beside the recorded regions. The oracles are the
programs' own CPU-time readings of their functions, Score-P 8.4's sampling
of the same source, and Cube's own cube_calltree reading our profile.cubex."""
import json
import pathlib
import re
import subprocess

import pytest

import cube_tools
from conftest import call_path_of, mpi_build, mpirun, run_program, scorep

HERE = pathlib.Path(__file__).resolve().parent
SAMPLED = {"SCOREP_ENABLE_UNWINDING": "true"}


def scorep_exec(prefix):
    return [str(prefix / "bin" / "scorep-exec")]


def build_plain(source, tmp, *flags):
    exe = tmp / pathlib.Path(source).stem
    proc = subprocess.run(["gcc", "-O2", "-g", str(HERE / source), "-o", str(exe), *flags],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return exe


def own_cpu(stdout):
    """{function: CPU nanoseconds} from the program's 'cpu_ns f1 N f2 M' line"""
    words = next(line for line in stdout.splitlines() if line.startswith("cpu_ns")).split()[1:]
    return {words[i]: int(words[i + 1]) for i in range(0, len(words), 2)}


def cube_hits(cubex):
    """{call path as '/'-joined region names: hits} as Cube's cube_calltree reads profile.cubex"""
    tool = cube_tools.bin_dir()
    if tool is None:
        pytest.skip("CubeLib's tools are not built (make cube-tools): Cube's reading of the hits is skipped")
    proc = subprocess.run([str(tool / "cube_calltree"), "-m", "hits", "-c", str(cubex)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    hits = {}
    for line in proc.stdout.splitlines():
        m = re.match(r"^\s*(\d+)\s+.*?\s(/\S.*)$", line)
        if m:
            path = "/".join(m.group(2).split("/")[2:])   # without the program region
            hits[path] = hits.get(path, 0) + int(m.group(1))
    return hits


def below_the_program(profile, name=lambda name: name):
    """below_the_program(profile)(callpath id): its region names below the program region, '/'-joined"""
    path = call_path_of(profile)
    return lambda cid: "/".join(name(n) for n in path(cid)[1:])


def share(hits, a, b):
    return hits[a] / (hits[a] + hits[b])


def test_an_unmodified_program_gets_main_and_its_two_hot_functions_each_with_its_share(installed_prefix, tmp_path):
    # some 750 samples (3 s of CPU time): the share's sampling error is under a third of the tolerance
    exe = build_plain("two_hot.c", tmp_path)
    plain = run_program([exe, "1200000000"], timeout=120)
    assert plain.returncode == 0, plain.stderr
    experiment = tmp_path / "sampled"
    measured = run_program(scorep_exec(installed_prefix) + [exe, "1200000000"], experiment, SAMPLED, timeout=120)
    assert measured.returncode == 0, measured.stderr
    assert measured.stderr == ""
    # the program's result is unchanged
    assert measured.stdout.splitlines()[0] == plain.stdout.splitlines()[0]
    hits = cube_hits(experiment / "profile.cubex")
    assert set(hits) >= {"main", "main/alpha", "main/beta"}, hits
    # nothing of the C library's start or of the measurement stands above main
    assert all(path == "" or path.startswith("main") for path in hits), hits
    own = own_cpu(measured.stdout)
    assert hits["main/alpha"] + hits["main/beta"] >= 0.9 * sum(hits.values())
    assert abs(share(hits, "main/alpha", "main/beta") - own["alpha"] / (own["alpha"] + own["beta"])) < 0.05, \
        (hits, own)
    profile = json.loads((experiment / "profile.json").read_text())
    regions = {r["name"]: r for r in profile["regions"]}
    assert regions["alpha"]["paradigm"] == "sampling" and regions["alpha"]["file"].endswith("two_hot.c")
    assert regions["alpha"]["line"] > 0


def test_score_p_samples_the_same_program_in_the_same_shares(installed_prefix, tmp_path):
    reference = cube_tools.reference("scorep") or pathlib.Path("/opt/scorep")
    if not (reference / "bin" / "scorep").exists():
        pytest.skip(f"no Score-P installation in {reference} (set SCOREP_REFERENCE_PREFIX to one): "
                    f"the comparison with Score-P's sampling is skipped")
    exe = build_plain("two_hot.c", tmp_path)
    ours = run_program(scorep_exec(installed_prefix) + [exe, "1200000000"], tmp_path / "ours", SAMPLED, timeout=120)
    assert ours.returncode == 0, ours.stderr
    # Score-P's measurement of the same source and flags (its sampling needs it linked in)
    theirs_exe = tmp_path / "two_hot_scorep"
    proc = subprocess.run([str(reference / "bin" / "scorep"), "--nocompiler", "--user", "--thread=none",
                           "--mpp=none", "gcc", "-O2", "-g", str(HERE / "two_hot.c"), "-o", str(theirs_exe)],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    # perf_cycles, Score-P's default source, needs a PMU; its timer is the one both have
    theirs = run_program([theirs_exe, "1200000000"], tmp_path / "theirs",
                         {**SAMPLED, "SCOREP_SAMPLING_EVENTS": "timer@1000"}, timeout=120)
    assert theirs.returncode == 0, theirs.stderr
    assert theirs.stdout.splitlines()[0] == ours.stdout.splitlines()[0]
    our_hits = cube_hits(tmp_path / "ours" / "profile.cubex")
    their_hits = cube_hits(tmp_path / "theirs" / "profile.cubex")
    # every function Score-P's samples saw and named, ours saw too (the vDSO's code has no name in Score-P)
    assert {p for p in their_hits if their_hits[p] and "UNKNOWN" not in p} <= set(our_hits), (our_hits, their_hits)
    assert abs(share(our_hits, "main/alpha", "main/beta") - share(their_hits, "main/alpha", "main/beta")) < 0.06, \
        (our_hits, their_hits)


def test_each_thread_samples_fall_under_its_own_start_routine(installed_prefix, tmp_path):
    exe = build_plain("thread_hot.c", tmp_path, "-pthread")
    experiment = tmp_path / "sampled"
    # long enough for some 300 samples on the shorter thread (the kernel's 250 a second of CPU time)
    measured = run_program(scorep_exec(installed_prefix) + ["--thread=pthread", exe, "500000000"], experiment,
                           SAMPLED, timeout=120)
    assert measured.returncode == 0, measured.stderr
    hits = cube_hits(experiment / "profile.cubex")
    gamma = {p: h for p, h in hits.items() if p.endswith("gamma_work") and h}
    delta = {p: h for p, h in hits.items() if p.endswith("delta_work") and h}
    assert list(gamma) == ["THREADS/worker_a/gamma_work"], hits
    assert list(delta) == ["THREADS/worker_b/delta_work"], hits
    own = own_cpu(measured.stdout)
    want = own["gamma_work"] / (own["gamma_work"] + own["delta_work"])
    got = gamma["THREADS/worker_a/gamma_work"] / (gamma["THREADS/worker_a/gamma_work"] +
                                                  delta["THREADS/worker_b/delta_work"])
    assert abs(got - want) < 0.06, (hits, own)


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_mpi_calls_stay_recorded_regions_among_the_sampled_functions(mpi, tmp_path):
    build = mpi_build(mpi)
    compiler = {"openmpi": "mpicc", "mpich": "mpicc.mpich"}[mpi]
    exe = tmp_path / "mpi_hot"
    proc = subprocess.run(scorep(build) + ["--nocompiler", compiler, "-O2", "-g", str(HERE / "mpi_hot.c"), "-o",
                                           str(exe)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    plain = mpirun(2, [exe, "200000000"], mpi=mpi, cwd=tmp_path, env={"SCOREP_ENABLE_PROFILING": "false"})
    measured = mpirun(2, [exe, "200000000"], mpi=mpi, cwd=tmp_path,
                      env={**SAMPLED, "SCOREP_EXPERIMENT_DIRECTORY": str(tmp_path / "sampled")})
    assert measured.stdout == plain.stdout
    profile = json.loads((tmp_path / "sampled" / "profile.json").read_text())
    regions = {r["id"]: r for r in profile["regions"]}
    path = below_the_program(profile)
    visits, hits = {}, {}
    for row in profile["rows"]:
        visits[path(row["callpath"])] = visits.get(path(row["callpath"]), 0) + row["visits"]
        hits[path(row["callpath"])] = hits.get(path(row["callpath"]), 0) + row.get("hits", 0)
    # recorded: the exact visits, under the functions that called them
    assert visits["main/exchange/MPI_Sendrecv"] == 2 * 20
    assert visits["main/MPI_Allreduce"] == 2 and visits["main/MPI_Init"] == 2
    # sampled: compute, under main, no visits and most of the hits
    assert visits["main/compute"] == 0 and hits["main/compute"] > 0.5 * sum(hits.values()), hits
    assert not [p for p in visits if p.startswith("main/MPI_Sendrecv")], "MPI_Sendrecv outside exchange"
    name_of_paradigm = {r["name"]: r["paradigm"] for r in regions.values()}
    assert name_of_paradigm["compute"] == "sampling" and name_of_paradigm["MPI_Sendrecv"] == "mpi"
    # the MPI library's insides stay hidden: nothing below a recorded MPI call
    assert not [p for p in visits if "MPI_" in p and not p.split("/")[-1].startswith("MPI_")], visits


def test_an_openmp_region_stands_under_the_sampled_function_that_forks_it_on_every_thread(installed_prefix,
                                                                                          tmp_path):
    exe = build_plain("omp_hot.c", tmp_path, "-fopenmp")
    plain = run_program([exe], env={"OMP_NUM_THREADS": "2"}, timeout=120)
    experiment = tmp_path / "sampled"
    measured = run_program(scorep_exec(installed_prefix) + ["--thread=omp", exe], experiment,
                           {**SAMPLED, "OMP_NUM_THREADS": "2"}, timeout=120)
    assert measured.returncode == 0 and measured.stdout == plain.stdout, measured.stderr
    profile = json.loads((experiment / "profile.json").read_text())
    path = below_the_program(profile, lambda name: name.split(" @")[0])
    by_location = {}
    for row in profile["rows"]:
        by_location.setdefault(row["location"], {})[path(row["callpath"])] = row
    assert len(by_location) == 2
    for rows in by_location.values():
        # the same tree on both threads: main, the region it forks, the function inside
        assert rows["main/!$omp parallel"]["visits"] == 1, rows.keys()
        assert rows["main/!$omp parallel/work"].get("hits", 0) > 0, rows.keys()
        assert not [p for p in rows if p.startswith("!$omp")], rows.keys()
        assert not [p for p in rows if "_omp_fn" in p or "GOMP" in p], rows.keys()


def test_a_program_that_profiles_itself_with_sigprof_keeps_it(installed_prefix, tmp_path):
    exe = build_plain("own_sigprof.c", tmp_path)
    experiment = tmp_path / "sampled"
    measured = run_program(scorep_exec(installed_prefix) + [exe], experiment, SAMPLED, timeout=120)
    assert measured.returncode == 0 and measured.stdout == "own ticks enough\n", (measured.stdout, measured.stderr)
    hits = cube_hits(experiment / "profile.cubex")
    assert hits.get("main", 0) > 0, hits


@pytest.mark.parametrize("events, complaint", [
    ("perf_nonsense@100", "'perf_nonsense@100' is no sampling source"),
    ("timer@-5", "'timer@-5': the interval after '@' must be a positive number of microseconds"),
])
def test_a_bad_sampling_source_is_named_and_the_program_runs_unchanged(installed_prefix, tmp_path, events,
                                                                        complaint):
    exe = build_plain("two_hot.c", tmp_path)
    plain = run_program([exe, "20000000"])
    measured = run_program(scorep_exec(installed_prefix) + [exe, "20000000"], tmp_path / "e",
                           {**SAMPLED, "SCOREP_SAMPLING_EVENTS": events})
    assert measured.returncode == plain.returncode == 0
    assert measured.stdout.splitlines()[0] == plain.stdout.splitlines()[0]
    assert "SCOREP_SAMPLING_EVENTS" in measured.stderr and complaint in measured.stderr, measured.stderr
    # the measurement goes on without samples: the profile is there, with no hits
    profile = json.loads((tmp_path / "e" / "profile.json").read_text())
    assert not any(row.get("hits") for row in profile["rows"])
