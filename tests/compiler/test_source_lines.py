"""Regions carry their source line, so that a report points into the source:
compiler-instrumented
functions the line of their definition, user regions the line of their BEGIN
macro, through unification across ranks to profile.json ("line"), profile.txt
(file:line) and the OTF2 region definitions (begin line number). The expected
lines come from the test sources' text, not from the tool."""
import re
import shutil
import subprocess

import pytest

from compiler_runs import HERE, compile_program, load, run
from conftest import MPI_COMPILERS, mpirun

RANKS = 2
N = 5


def definition_line(source, name):
    """The line of a function's definition: its name followed by '(' on a
    line that starts in column 0 (calls are indented) and is no prototype."""
    hits = [i for i, line in enumerate(source.read_text().splitlines(), 1)
            if re.match(rf"^(?:[A-Za-z_].*\W)?{re.escape(name)}\s*\(", line) and not line.rstrip().endswith(";")]
    assert len(hits) == 1, (name, hits)
    return hits[0]


def lines_containing(source, text):
    return [i for i, line in enumerate(source.read_text().splitlines(), 1) if text in line]


def regions_by_name(profile):
    out = {}
    for r in profile["regions"]:
        out.setdefault(r["name"], []).append(r)
    return out


@pytest.fixture(scope="module")
def lines_experiment(build_dir, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("lines")
    exe, _ = compile_program(build_dir, tmp, "lines.c", "lines", options=["--user"],
                             compiler=MPI_COMPILERS["openmpi"]["c"])
    experiment = tmp / "exp"
    proc = mpirun(RANKS, [exe, N], env={"SCOREP_EXPERIMENT_DIRECTORY": str(experiment),
                                       "SCOREP_ENABLE_TRACING": "true"})
    assert "total=" in proc.stdout
    return experiment


def test_function_lines_in_profile_after_unification(lines_experiment):
    source = HERE / "lines.c"
    profile = load(lines_experiment)
    regions = regions_by_name(profile)
    expected = {name: definition_line(source, name) for name in ("main", "alpha", "beta")}
    # beta's prototype is not its line
    assert lines_containing(source, "static double beta(int n);")[0] != expected["beta"]
    for name, line in expected.items():
        # one region for all ranks (rank 1 defined beta before alpha)
        assert len(regions[name]) == 1, regions[name]
        r = regions[name][0]
        assert r["paradigm"] == "compiler"
        assert r["file"].endswith("tests/compiler/lines.c")
        assert r["line"] == line, (name, r)
    # both ranks visited each function through its one global region
    cps = {c["id"]: c for c in profile["callpaths"]}
    ranks_of = {name: set() for name in expected}
    rank_of_location = {loc["id"]: loc["rank"] for loc in profile["locations"]}
    by_id = {r["id"]: r["name"] for r in profile["regions"]}
    for row in profile["rows"]:
        name = by_id[cps[row["callpath"]]["region"]]
        if name in ranks_of and row["visits"]:
            ranks_of[name].add(rank_of_location[row["location"]])
    assert all(ranks == set(range(RANKS)) for ranks in ranks_of.values()), ranks_of
    # regions without a line (MPI wrappers use scorep_region_define): null
    assert regions["MPI_Allreduce"][0]["line"] is None


def test_user_regions_get_their_macros_line(lines_experiment):
    source = HERE / "lines.c"
    begins = lines_containing(source, 'SCOREP_USER_REGION_BEGIN(')
    assert len(begins) == 2
    steps = regions_by_name(load(lines_experiment))["step"]
    # same name and file, different lines: two regions (Score-P's identity includes the line)
    assert sorted(r["line"] for r in steps) == begins
    assert all(r["paradigm"] == "user" and r["file"].endswith("tests/compiler/lines.c") for r in steps)


def test_text_report_shows_file_and_line(lines_experiment):
    source = HERE / "lines.c"
    text = (lines_experiment / "profile.txt").read_text()
    imbalance = text[text.index("Per-rank imbalance"):]
    alpha = next(line for line in imbalance.splitlines() if re.search(r"\salpha\s", line))
    assert alpha.rstrip().endswith(f"lines.c:{definition_line(source, 'alpha')})"), alpha


def test_otf2_region_definitions_have_begin_lines(lines_experiment):
    otf2_print = shutil.which("otf2-print")
    if not otf2_print:
        pytest.skip("otf2-print not installed")
    source = HERE / "lines.c"
    proc = subprocess.run([otf2_print, "-G", str(lines_experiment / "traces.otf2")], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    begin = {}
    for line in proc.stdout.splitlines():
        m = re.match(r'^REGION\s+\d+\s+Name: "([^"]*)".*\bBegin: (\d+), End: (\d+)', line)
        if m:
            begin.setdefault(m.group(1), []).append(int(m.group(2)))
    for name in ("main", "alpha", "beta"):
        assert begin[name] == [definition_line(source, name)], (name, begin.get(name))
    assert sorted(begin["step"]) == lines_containing(source, "SCOREP_USER_REGION_BEGIN(")
    assert begin["MPI_Allreduce"] == [0]


def test_fortran_lines(build_dir, tmp_path):
    # compiler instrumentation: a module function's line is its function statement
    calls = HERE / "calls.f90"
    exe, _ = compile_program(build_dir, tmp_path, "calls.f90", "calls", flags=("-O0",))
    run(exe, [3], tmp_path / "exp")
    regions = regions_by_name(load(tmp_path / "exp"))
    assert [r["line"] for r in regions["geometry::area"]] == lines_containing(calls, "function area(")
    assert [r["line"] for r in regions["helper"]] == lines_containing(calls, "subroutine helper(")
    # user regions (scorep_user.inc): the line of the BEGIN macro
    user = HERE / "user.F90"
    exe, _ = compile_program(build_dir, tmp_path, "user.F90", "user", options=["--user", "--nocompiler"],
                             flags=("-O0",))
    run(exe, [3], tmp_path / "exp2")
    regions = regions_by_name(load(tmp_path / "exp2"))
    assert [r["line"] for r in regions["fortran_loop"]] == lines_containing(user, 'SCOREP_USER_REGION_BEGIN(loop')
    assert [r["line"] for r in regions["work"]] == lines_containing(user, 'SCOREP_USER_FUNC_BEGIN("work")')
