"""scorep-score: the estimated event trace size against real traces of the
same runs (within 10 %), -f, and -g's filter accepted by scorep
--instrument-filter and by SCOREP_FILTERING_FILE."""
import pathlib
import re
import subprocess
import sys

from compiler_runs import HERE, below_program, compile_program, load, run, visits_by_path, visits_by_region
from conftest import MPI_COMPILERS, mpirun


def score(build, experiment, *options):
    proc = subprocess.run([sys.executable, str(pathlib.Path(build) / "runtime" / "scorep-score"), *options,
                           str(experiment)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def estimated_bytes(report):
    """The ALL line's total[B] column."""
    m = re.search(r"^\s+ALL\s+([\d,]+)\s+([\d,]+)\s", report, re.M)
    return int(m.group(2).replace(",", ""))


def real_event_bytes(experiment):
    files = list((pathlib.Path(experiment) / "traces").glob("*.evt"))
    assert files
    return sum(f.stat().st_size for f in files)


def test_estimate_matches_demo_trace(build_dir, tmp_path):
    exe, _ = compile_program(build_dir, tmp_path, HERE.parent.parent / "examples" / "halo2d.c", "halo2d",
                             compiler=MPI_COMPILERS["openmpi"]["c"], flags=("-O2", "-lm"))
    exp = tmp_path / "exp"
    mpirun(4, [exe, 32, 300], env={"SCOREP_EXPERIMENT_DIRECTORY": str(exp), "SCOREP_ENABLE_TRACING": "true"},
           launcher_args=["-x", "SCOREP_EXPERIMENT_DIRECTORY", "-x", "SCOREP_ENABLE_TRACING"])
    report = score(build_dir, exp, "-r")
    estimate, real = estimated_bytes(report), real_event_bytes(exp)
    assert abs(estimate - real) <= 0.10 * real, (estimate, real)
    assert re.search(r"^\s+MPI\s", report, re.M) and re.search(r"^\s+COM\s.*\bexchange$", report, re.M)
    assert re.search(r"^\s+USR\s.*\brelax$", report, re.M)


def test_estimate_user_calls_generated_filter(build_dir, tmp_path):
    n = 20000
    exe, _ = compile_program(build_dir, tmp_path, "calls.c", "calls", options=["--nompi"])
    exp = tmp_path / "exp"
    run(exe, [n], exp, env={"SCOREP_ENABLE_TRACING": "true"})
    report = score(build_dir, exp, "-r")
    estimate, real = estimated_bytes(report), real_event_bytes(exp)
    assert abs(estimate - real) <= 0.10 * real, (estimate, real)
    # visits as the program's loop makes them: main 1, twice n, leaf 2n, filtered_leaf 3n,
    # and the program region (type SCOREP) once
    assert re.search(rf"^\s+ALL\s+[\d,]+\s+[\d,]+\s+{2 + 6 * n:,}\s", report, re.M)
    assert re.search(r"^\s+SCOREP\s+[\d,]+\s+[\d,]+\s+1\s.*\bcalls$", report, re.M)

    flt = tmp_path / "initial.filter"
    out = score(build_dir, exp, "-g", "-o", str(flt))
    text = flt.read_text()
    excluded = {line.split(None, 1)[1] for line in text.splitlines() if line.strip().startswith("EXCLUDE")}
    # the short, frequent user functions; never main
    assert excluded == {"leaf", "filtered_leaf", "twice"}, out
    # -f: the estimate with the filter drops their records
    filtered = score(build_dir, exp, "-r", "-f", str(flt))
    assert re.search(r"^\s+-\s+USR.*\bleaf$", filtered, re.M)
    assert estimated_bytes(filtered) < estimated_bytes(report) / 100
    # accepted at run time ...
    run(exe, [50], tmp_path / "exp_rt", env={"SCOREP_FILTERING_FILE": str(flt)})
    profile = load(tmp_path / "exp_rt")
    assert {r["name"] for r in profile["regions"] if r["filtered"]} >= excluded
    assert below_program(visits_by_path(profile), "calls") == {("main",): 1}
    # ... and at compile time: the functions are not instrumented at all
    exe2, _ = compile_program(build_dir, tmp_path, "calls.c", "calls2",
                              options=["--nompi", f"--instrument-filter={flt}"])
    run(exe2, [50], tmp_path / "exp_ct")
    assert visits_by_region(load(tmp_path / "exp_ct")) == {"calls2": 1, "main": 1}


def test_memory_hint_holds_the_trace_without_a_flush(build_dir, tmp_path):
    """The SCOREP_TOTAL_MEMORY that scorep-score advises holds the run's trace
    (raw buffer and OTF2 chunks) without an intermediate flush, where a
    quarter of it does not."""
    n = 60000
    exe, _ = compile_program(build_dir, tmp_path, "calls.c", "calls", options=["--nompi"])
    run(exe, [n], tmp_path / "exp", env={"SCOREP_ENABLE_TRACING": "true", "SCOREP_TOTAL_MEMORY": "1M"})
    report = score(build_dir, tmp_path / "exp")
    hinted = int(re.search(r"SCOREP_TOTAL_MEMORY=(\d+)kB to avoid", report).group(1))

    def flushes(memory_kb, name):
        run(exe, [n], tmp_path / name, env={"SCOREP_ENABLE_TRACING": "true",
                                           "SCOREP_TOTAL_MEMORY": f"{memory_kb}k"})
        return visits_by_region(load(tmp_path / name)).get("TRACE_BUFFER_FLUSH", 0)

    assert flushes(hinted, "exp_hinted") == 0, hinted
    assert flushes(hinted // 4, "exp_quarter") > 0, hinted
