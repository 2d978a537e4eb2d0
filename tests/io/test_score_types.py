"""scorep-score's region types for the system adapters (Score-P's names):
IO for the I/O adapters' regions, PTHREAD for the POSIX threads adapter's
(its start routine regions too), MEMORY for the memory adapter's; a user
function is COM when a call path through it leads to any of them (or MPI,
CAF), else USR. The program (score_types.c) is measured with compiler
instrumentation and --io=posix --thread=pthread --memory; oracle: its
source (which function calls what, how often). profile.cubex gives the same
report as profile.json. The trace size estimate counts the adapters' own
records (I/O operations and handles, thread create/begin/end/wait): oracle,
the size of the run's real trace."""
import pathlib
import re
import subprocess
import sys

import pytest

from conftest import run_program, scorep

HERE = pathlib.Path(__file__).resolve().parent
SAVES, COMPUTES = 5, 10


def report(build_dir, target):
    """({type: visits} of the type lines, in their order, {(type, region): visits} of -r's region
    lines, the text)."""
    proc = subprocess.run([sys.executable, str(build_dir / "runtime" / "scorep-score"), "-r", str(target)],
                          capture_output=True, text=True, check=True)
    lines = proc.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[:2] == ["flt", "type"]) + 1
    types, regions = {}, {}
    blank = lines.index("", start)
    for line in lines[start:blank]:
        typ, _mb, _tb, visits, *_rest, name = line.split()
        assert typ == name
        types[typ] = int(visits.replace(",", ""))
    for line in lines[blank + 1:]:
        typ, _mb, _tb, visits, *_rest, name = line.split()
        key = (typ, name)
        regions[key] = regions.get(key, 0) + int(visits.replace(",", ""))
    return types, regions, proc.stdout


@pytest.fixture(scope="module")
def experiment(build_dir, tmp_path_factory):
    """score_types.c measured, profile and trace."""
    tmp = tmp_path_factory.mktemp("score_types")
    program = tmp / "score_types"
    subprocess.run(scorep(build_dir) + ["--io=posix", "--thread=pthread", "--memory", "gcc", "-O1", "-pthread",
                                        str(HERE / "score_types.c"), "-o", str(program)],
                   check=True, capture_output=True, text=True)
    experiment = tmp / "experiment"
    proc = run_program([program, tmp / "out.bin"], experiment, {"SCOREP_ENABLE_TRACING": "true"})
    assert (proc.returncode, proc.stderr) == (0, "")
    return experiment


def test_system_adapter_regions_have_score_p_types(build_dir, experiment):
    types, regions, text = report(build_dir, experiment / "profile.json")
    # the C library may allocate for itself (pthread_create, printf): the
    # worker's malloc and free at least, all of them MEMORY
    memory = {name: visits for (typ, name), visits in regions.items() if typ == "MEMORY"}
    assert set(memory) == {"malloc", "free"} and min(memory.values()) >= 1
    assert regions == {
        ("IO", "open"): 1, ("IO", "write"): SAVES, ("IO", "close"): 1,
        ("PTHREAD", "pthread_create"): 1, ("PTHREAD", "pthread_join"): 1,
        ("COM", "worker"): 1,                      # the start routine's own (the compiler's) region in
                                                   # place of the adapter's: leads to malloc
        ("COM", "main"): 1, ("COM", "save"): SAVES,   # lead to I/O and pthread calls
        ("USR", "compute"): COMPUTES + 1,          # leads to nothing of a paradigm
        ("SCOREP", "score_types"): 1,              # the program region, the measurement's
        **{("MEMORY", name): visits for name, visits in memory.items()}}
    assert types == {"ALL": sum(regions.values()), "IO": SAVES + 2, "PTHREAD": 2, "MEMORY": sum(memory.values()),
                     "COM": SAVES + 2, "USR": COMPUTES + 1, "SCOREP": 1}
    # Score-P's order: the paradigms' types, then COM, USR, SCOREP
    assert list(types) == ["ALL", "PTHREAD", "MEMORY", "IO", "COM", "USR", "SCOREP"]
    # the CUBE4 profile of the same run: the same report
    assert report(build_dir, experiment / "profile.cubex")[2] == text


def test_trace_estimate_counts_the_adapters_records(build_dir, experiment):
    """The ALL line's total[B] within 10 % of the real event files (without
    the I/O and thread records the estimate is about 20 % short here)."""
    _, _, text = report(build_dir, experiment / "profile.json")
    estimate = int(re.search(r"^\s+ALL\s+[\d,]+\s+([\d,]+)\s", text, re.M).group(1).replace(",", ""))
    real = sum(f.stat().st_size for f in (experiment / "traces").glob("*.evt"))
    assert abs(estimate - real) <= 0.10 * real, (estimate, real)
