"""scorep-score's estimate against the trace the same program then writes.

Programs of several shapes (score_shapes.c: user function calls, MPI
point-to-point and collectives, POSIX I/O, allocations measured with
--memory, threads) are measured with a profile; scorep-score estimates from
it the event trace's size and the SCOREP_TOTAL_MEMORY that holds it. Then
the program is traced with that SCOREP_TOTAL_MEMORY. Oracles: the bytes of
the written event files (traces/*.evt, what Score-P's "estimated aggregate
size of event trace" means), within 10 %; and otf2-print, which must show no
buffer flush in that trace (neither a TRACE_BUFFER_FLUSH region, a flush
during the run, nor an OTF2 BufferFlush record, one while the trace was
written), while a budget of half the hint does flush."""
import pathlib
import re
import subprocess
import sys

import pytest

from conftest import MPI_COMPILERS, mpirun, run_program, scorep

HERE = pathlib.Path(__file__).resolve().parent
RANKS = 4
SHAPES = {          # shape: size n, MPI?
    "calls": (30000, False),
    "mpi": (1000, True),
    "io": (6000, False),
    "alloc": (30000, False),
    "threads": (20000, False),
}


@pytest.fixture(scope="module")
def programs(build_dir, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("score_shapes")
    built = {}
    for mpi, compiler, flags in ((False, "gcc", []), (True, MPI_COMPILERS["openmpi"]["c"], ["-DWITH_MPI"])):
        exe = tmp / ("score_shapes_mpi" if mpi else "score_shapes")
        cmd = scorep(build_dir) + ["--memory", "--io=posix", "--thread=pthread", compiler, "-O1", "-pthread",
                                   *flags, str(HERE / "score_shapes.c"), "-o", str(exe)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=tmp)
        assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stdout}\n{proc.stderr}"
        built[mpi] = exe
    return built


def measure(programs, shape, experiment, env):
    n, mpi = SHAPES[shape]
    args = [shape, n]
    if shape == "io":
        args.append(experiment.parent / f"{experiment.name}.data")
    env = {"SCOREP_EXPERIMENT_DIRECTORY": str(experiment), **env}
    if mpi:
        mpirun(RANKS, [programs[True], *args], env=env,
               launcher_args=[a for name in env for a in ("-x", name)])
    else:
        proc = run_program([programs[False], *args], env=env, timeout=120)
        assert proc.returncode == 0, proc.stderr
    return experiment


def score(build_dir, target):
    proc = subprocess.run([sys.executable, str(build_dir / "runtime" / "scorep-score"), str(target)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    total = int(re.search(r"^\s+ALL\s+[\d,]+\s+([\d,]+)\s", proc.stdout, re.M).group(1).replace(",", ""))
    hint = int(re.search(r"SCOREP_TOTAL_MEMORY=(\d+)kB to avoid", proc.stdout).group(1))
    return total, hint, proc.stdout


def event_file_bytes(experiment):
    files = list((experiment / "traces").glob("*.evt"))
    assert files, f"no event files in {experiment}/traces"
    return sum(f.stat().st_size for f in files)


def flushes(experiment):
    """Buffer flushes in the trace, as otf2-print shows them."""
    out = subprocess.run(["otf2-print", str(experiment / "traces.otf2")], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    return sum(1 for line in out.stdout.splitlines()
               if line.startswith("BUFFER_FLUSH") or (line.startswith("ENTER") and '"TRACE_BUFFER_FLUSH"' in line))


@pytest.mark.parametrize("shape", list(SHAPES))
def test_estimate_is_the_trace_the_program_then_writes(build_dir, programs, tmp_path, shape):
    profiled = measure(programs, shape, tmp_path / "profile", {})
    estimate, hint, report = score(build_dir, profiled)
    traced = measure(programs, shape, tmp_path / "trace",
                     {"SCOREP_ENABLE_TRACING": "true", "SCOREP_ENABLE_PROFILING": "false",
                      "SCOREP_TOTAL_MEMORY": f"{hint}k"})
    written = event_file_bytes(traced)
    assert abs(estimate - written) <= 0.10 * written, (shape, estimate, written, report)
    assert flushes(traced) == 0, (shape, hint, report)


def test_allocations_metric_records_are_counted_and_their_memory_hint_holds(build_dir, programs, tmp_path):
    """The memory adapter writes a Metric record per allocation and per free
    of a known block: about as many bytes as the allocation calls' enter and
    leave. The estimate from profile.cubex is the one from profile.json (the
    CUBE file carries allocation_size and deallocation_size), and half the
    hinted SCOREP_TOTAL_MEMORY does not hold this trace."""
    profiled = measure(programs, "alloc", tmp_path / "profile", {})
    from_json, hint, report = score(build_dir, profiled / "profile.json")
    from_cube, cube_hint, _ = score(build_dir, profiled / "profile.cubex")
    assert (from_cube, cube_hint) == (from_json, hint)
    half = measure(programs, "alloc", tmp_path / "half",
                   {"SCOREP_ENABLE_TRACING": "true", "SCOREP_ENABLE_PROFILING": "false",
                    "SCOREP_TOTAL_MEMORY": f"{hint // 2}k"})
    assert flushes(half) > 0, (hint, report)
    metric_records = subprocess.run(["otf2-print", str(half / "traces.otf2")], capture_output=True,
                                    text=True, timeout=300).stdout.count("\nMETRIC ")
    # malloc per iteration, calloc + realloc (and its free) every third, free per
    # iteration: far more metric records than iterations
    assert metric_records > SHAPES["alloc"][0] * 2, metric_records
