"""The same MPI program measured by Score-P 8.4 and by this measurement gives
the same call tree in Cube: Cube's own tools (cube_calltree, cube_diff,
cube_dump: the oracle here) find the same call paths in both profile.cubex
files, and their difference has no call path of one side only and zero
visits and bytes on every call path (docs/PROFILE_FORMAT.md, "The call tree").

Needs a Score-P installation with its Cube tools: SCOREP_REFERENCE_PREFIX, by
default the one `make scorep-reference` builds, else /opt/scorep. Machines without one (CI) skip these tests."""
import pathlib
import re
import shutil
import subprocess

import pytest

import cube_tools
from conftest import mpi_env, mpirun, scorep

HERE = pathlib.Path(__file__).resolve().parent
PREFIX = cube_tools.reference("scorep") or pathlib.Path("/opt/scorep")
TOOLS = ("scorep", "cube_calltree", "cube_diff", "cube_dump")
RANKS = 2
METRICS = ("visits", "bytes_sent", "bytes_received")


def reference_tool(name):
    path = PREFIX / "bin" / name
    if not path.exists():
        pytest.skip(f"no Score-P installation with Cube tools in {PREFIX} ({path} missing; set "
                    f"SCOREP_REFERENCE_PREFIX to one): the comparison with Score-P's call tree is skipped")
    return path


@pytest.fixture(scope="module")
def experiments(build_dir, tmp_path_factory):
    """{"ours": profile.cubex, "scorep": profile.cubex} of same_tree.c, and the
    work directory. Both programs are named same_tree (the program region is
    named after the executable) and built from one source file (compiler
    regions name its path)."""
    for tool in TOOLS:
        reference_tool(tool)
    if shutil.which("mpicc") is None:
        pytest.skip("no mpicc")
    work = tmp_path_factory.mktemp("same-tree")
    source = work / "same_tree.c"
    shutil.copy(HERE / "same_tree.c", source)
    cubes = {}
    for who, instrumenter in (("ours", scorep(build_dir)), ("scorep", [str(PREFIX / "bin" / "scorep")])):
        (work / who).mkdir()
        program = work / who / "same_tree"
        # -O0: no inlining decides what either compiler plugin sees
        built = subprocess.run(instrumenter + ["mpicc", "-O0", str(source), "-o", str(program)],
                               capture_output=True, text=True, cwd=work, timeout=300)
        assert built.returncode == 0, f"{who}: {built.stderr}"
        experiment = work / who / "experiment"
        env = {"SCOREP_EXPERIMENT_DIRECTORY": str(experiment), "SCOREP_ENABLE_PROFILING": "true",
               "SCOREP_ENABLE_TRACING": "false"}
        if who == "ours":
            proc = mpirun(RANKS, [program], env=env, cwd=work / who)
        else:
            # not conftest.mpirun: its checks are those of our experiment directories
            proc = subprocess.run(["mpirun", "--oversubscribe", "-n", str(RANKS), str(program)], env=mpi_env(env),
                                  cwd=work / who, capture_output=True, text=True, timeout=120)
            assert proc.returncode == 0, proc.stderr
        # Score-P prints its timer check onto stdout ("rank[0]:  frequency = ... Hz (outlier)")
        output = [line for line in proc.stdout.splitlines() if not re.match(r"^rank\[\d+\]:\s+frequency = ", line)]
        assert sorted(output) == [f"rank {r} value {(r - 5) % RANKS}" for r in range(RANKS)]
        cubes[who] = experiment / "profile.cubex"
        assert cubes[who].exists(), sorted(p.name for p in experiment.iterdir())
    return cubes, work


def call_paths(cube, cwd):
    """cube_calltree -c: every call path as "/region/region/...", in its order."""
    proc = subprocess.run([str(reference_tool("cube_calltree")), "-c", str(cube)], capture_output=True, text=True,
                          cwd=cwd, timeout=120)
    assert proc.returncode == 0, proc.stderr
    # each line: the indented region name, then the call path (region names have no blanks here)
    return [line.split()[-1] for line in proc.stdout.splitlines() if line.split() and line.split()[-1][:1] == "/"]


@pytest.fixture(scope="module")
def difference(experiments):
    cubes, work = experiments
    diff = work / "diff.cubex"
    proc = subprocess.run([str(reference_tool("cube_diff")), "-o", str(diff), str(cubes["ours"]),
                           str(cubes["scorep"])], capture_output=True, text=True, cwd=work, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return diff, work


def test_both_tools_give_the_same_call_paths(experiments):
    cubes, work = experiments
    ours = call_paths(cubes["ours"], work)
    assert sorted(ours) == sorted(call_paths(cubes["scorep"], work))
    # the shape: the program region (the executable's name) above main
    assert {"/same_tree", "/same_tree/main", "/same_tree/main/MPI_Init", "/same_tree/main/exchange/MPI_Sendrecv",
            "/same_tree/main/meet/MPI_Barrier", "/same_tree/main/MPI_Finalize"} <= set(ours)


def test_difference_has_no_call_path_of_one_side_only(experiments, difference):
    """cube_diff unites the two trees, matching regions by name, file, begin
    and end line: a call path whose regions differ in any of them would be
    there twice."""
    cubes, _ = experiments
    diff, work = difference
    paths = call_paths(diff, work)
    assert len(paths) == len(set(paths)), sorted(paths)
    assert sorted(paths) == sorted(call_paths(cubes["ours"], work))


def test_difference_has_zero_visits_and_bytes_on_every_call_path(difference):
    diff, work = difference
    proc = subprocess.run([str(reference_tool("cube_dump")), "-m", ",".join(METRICS), "-c", "all", "-z", "excl",
                           "-t", "aggr", "-s", "csv2", str(diff)], capture_output=True, text=True, cwd=work,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("Cnode ID"))
    # cube_dump prints the metrics in the file's order, not in -m's
    columns = [column.strip() for column in lines[header].split(",")]
    assert columns[0] == "Cnode ID" and sorted(columns[1:]) == sorted(METRICS)
    rows = [[float(v) for v in line.split(",")] for line in lines[header + 1:] if line.strip()]
    assert len(rows) == len(call_paths(diff, work))
    nonzero = [row for row in rows if any(row[1:])]
    assert not nonzero, f"call paths ({', '.join(columns)}) that differ: {nonzero}"
