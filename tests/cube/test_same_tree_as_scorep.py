"""The same MPI program measured by Score-P 8.4 and by this measurement gives
the same call tree in Cube: Cube's own tools (cube_calltree, cube_diff, the
oracle here) find the same call paths in both profile.cubex files, and the
difference of the two has no call path of one side only and zero visits on
every call path (docs/PROFILE_FORMAT.md, "The call tree").

Needs a Score-P installation with its Cube tools: SCOREP_REFERENCE_PREFIX, by
default /opt/scorep. Machines without one (CI) skip these tests."""
import os
import pathlib
import re
import shutil
import subprocess

import pytest

from conftest import REPO, mpi_env, mpirun, scorep

HERE = pathlib.Path(__file__).resolve().parent
PREFIX = pathlib.Path(os.environ.get("SCOREP_REFERENCE_PREFIX", "/opt/scorep"))
TOOLS = ("scorep", "cube_calltree", "cube_diff")
RANKS = 2


def reference_tool(name):
    path = PREFIX / "bin" / name
    if not path.exists():
        pytest.skip(f"no Score-P installation with Cube tools in {PREFIX} ({path} missing; set "
                    f"SCOREP_REFERENCE_PREFIX to one): the comparison with Score-P's call tree is skipped")
    return path


@pytest.fixture(scope="module")
def experiments(build_dir, tmp_path_factory):
    """(ours, Score-P's) experiment directories of same_tree.c, each program
    named same_tree (the program region is named after the executable) and
    built from the same source file (compiler regions name its path)."""
    for tool in TOOLS:
        reference_tool(tool)
    if shutil.which("mpicc") is None:
        pytest.skip("no mpicc")
    work = tmp_path_factory.mktemp("same-tree")
    source = work / "same_tree.c"
    shutil.copy(HERE / "same_tree.c", source)
    out = {}
    for who, instrumenter in (("ours", scorep(build_dir)), ("scorep", [str(PREFIX / "bin" / "scorep")])):
        (work / who).mkdir()
        program = work / who / "same_tree"
        # -O0: no inlining decides what either compiler plugin sees
        subprocess.run(instrumenter + ["mpicc", "-O0", str(source), "-o", str(program)], check=True,
                       capture_output=True, text=True, cwd=work, timeout=300)
        experiment = work / who / "experiment"
        env = {"SCOREP_EXPERIMENT_DIRECTORY": str(experiment), "SCOREP_ENABLE_PROFILING": "true",
               "SCOREP_ENABLE_TRACING": "false"}
        if who == "ours":
            proc = mpirun(RANKS, [program], env=env, cwd=work / who)
        else:
            # Score-P's run: not through conftest.mpirun, whose checks are for our experiments
            proc = subprocess.run(["mpirun", "--oversubscribe", "-n", str(RANKS), str(program)],
                                  env=mpi_env({k: v for k, v in env.items()}), cwd=work / who,
                                  capture_output=True, text=True, timeout=120)
            assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == f"sum {sum(range(RANKS))}"
        assert (experiment / "profile.cubex").exists(), list(experiment.iterdir())
        out[who] = experiment / "profile.cubex"
    return out, work


def calltree(cube, metric=None, cwd=None):
    """cube_calltree's lines as [(value or None, call path)], exclusive values
    per call path (cube_calltree -c prints each node's full call path)."""
    argv = [str(reference_tool("cube_calltree")), "-c"]
    if metric:
        argv += ["-m", metric]
    proc = subprocess.run(argv + [str(cube)], capture_output=True, text=True, cwd=cwd, timeout=120)
    assert proc.returncode == 0, proc.stderr
    rows = []
    for line in proc.stdout.splitlines():
        if not line.strip():
            continue
        # "<value> <indented tree name> <call path>" or, without a metric, "<name> <call path>"
        path = line.split()[-1]
        if not path.startswith("/"):
            continue
        value = None
        if metric:
            value = float(line.split()[0])
        rows.append((value, path))
    return rows


def test_both_tools_give_the_same_call_paths(experiments):
    cubes, work = experiments
    ours = sorted(path for _, path in calltree(cubes["ours"], cwd=work))
    theirs = sorted(path for _, path in calltree(cubes["scorep"], cwd=work))
    assert ours == theirs
    # the shape: the program region above main, MPI_Init below main
    assert "/same_tree/main/MPI_Init" in ours and "/same_tree/main/exchange/MPI_Sendrecv" in ours


@pytest.fixture(scope="module")
def difference(experiments):
    cubes, work = experiments
    diff = work / "diff.cubex"
    proc = subprocess.run([str(reference_tool("cube_diff")), "-o", str(diff), str(cubes["ours"]),
                           str(cubes["scorep"])], capture_output=True, text=True, cwd=work, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return diff, work


def test_difference_has_no_call_path_of_one_side_only(experiments, difference):
    """cube_diff unites the two trees, matching regions by name, file, begin
    and end line: a call path whose regions differ in any of them would
    appear twice in the difference."""
    cubes, _ = experiments
    diff, work = difference
    paths = [path for _, path in calltree(diff, cwd=work)]
    assert len(paths) == len(set(paths)), sorted(paths)
    assert sorted(paths) == sorted(path for _, path in calltree(cubes["ours"], cwd=work))


def test_difference_has_zero_visits_on_every_call_path(difference):
    diff, work = difference
    rows = calltree(diff, "visits", cwd=work)
    assert rows and all(value == 0 for value, _ in rows), [(v, p) for v, p in rows if v]


@pytest.mark.parametrize("metric", ["bytes_sent", "bytes_received"])
def test_difference_has_zero_point_to_point_bytes(difference, metric):
    """Point-to-point bytes are the message sizes in both tools; collective
    calls' byte counts follow each tool's own rule (docs/MPI_ADAPTER.md)."""
    diff, work = difference
    rows = calltree(diff, metric, cwd=work)
    assert rows
    point_to_point = [(value, path) for value, path in rows if not re.search(r"/MPI_(All|Barrier|Bcast|Reduce|"
                                                                             r"Gather|Scatter|Finalize|Init)", path)]
    assert point_to_point and all(value == 0 for value, _ in point_to_point), point_to_point
