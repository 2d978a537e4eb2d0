"""Programs that change directory, end with _exit, run measured children or
are killed: the experiment is where it was made at the start, whole, and the
program's own output is unchanged (runtime/tests/test_children.c;
docs/PROFILE_FORMAT.md, "The experiment directory")."""
import os
import pathlib
import shutil
import signal
import subprocess
import time

import pytest

from runtime_programs import Profile, load_profile, program, run

PROGRAM = "test_children"
TRACING = {"SCOREP_ENABLE_TRACING": "true"}


def experiment_from(proc):
    for line in proc.stdout.splitlines():
        if line.startswith("experiment: "):
            return pathlib.Path(line[len("experiment: "):])
    raise AssertionError(proc.stdout)


def otf2_kinds(archive):
    """Event kinds otf2-print reads from the archive (Score-P's reader, not ours)."""
    if not shutil.which("otf2-print"):
        pytest.skip("otf2-print not installed")
    out = subprocess.run(["otf2-print", str(archive)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return [line.split()[0] for line in out.stdout.splitlines() if line.split()]


@pytest.mark.parametrize("configured", [None, "e", "./rel/e"])
def test_a_program_that_changes_directory_writes_profile_and_trace_into_the_experiment_made_at_its_start(
        build_dir, tmp_path, configured):
    start, elsewhere = tmp_path / "start", tmp_path / "elsewhere"
    start.mkdir()
    elsewhere.mkdir()
    if configured and "/" in configured.strip("./"):
        (start / "rel").mkdir()
    env = dict(TRACING)
    if configured:
        env["SCOREP_EXPERIMENT_DIRECTORY"] = configured
    proc = run(build_dir, PROGRAM, "chdir", elsewhere, cwd=start, env=env)
    assert proc.stderr == ""
    # the program's own record of where it was: the one directory under start
    made = [p for p in start.rglob(".scorep-wrapgen-experiment")]
    assert len(made) == 1, made
    experiment = made[0].parent
    assert experiment_from(proc) == experiment
    if configured:
        assert experiment == (start / configured).resolve()
    assert list(elsewhere.iterdir()) == []
    profile = Profile(load_profile(experiment / "profile.json"))
    assert profile.row(f"{PROGRAM}/main/step")["visits"] == 6
    assert "PARTIAL" not in (experiment / "profile.txt").read_text()
    if (experiment / "traces.otf2").exists() or shutil.which("otf2-print"):
        kinds = otf2_kinds(experiment / "traces.otf2")
        # main, 6 steps (the program region is PROGRAM_BEGIN/END)
        assert kinds.count("ENTER") == 7 and kinds.count("LEAVE") == 7
        assert kinds.count("PROGRAM_END") == 1


@pytest.mark.parametrize("how", ["exit", "Exit"])
def test_an_end_through_exit_without_handlers_is_a_normal_end(build_dir, tmp_path, how):
    """Debian's /bin/sh ends every run with _exit: its data is whole, not partial."""
    directory = tmp_path / "e"
    proc = run(build_dir, PROGRAM, how, env={"SCOREP_EXPERIMENT_DIRECTORY": str(directory), **TRACING})
    assert proc.returncode == 0 and proc.stderr == ""
    data = load_profile(directory / "profile.json")
    assert data["experiment"]["partial"] is False
    assert "PARTIAL" not in (directory / "profile.txt").read_text()
    profile = Profile(data)
    assert profile.row(f"{PROGRAM}/main/step")["visits"] == 5
    assert profile.row(f"{PROGRAM}/main")["visits"] == 1
    kinds = otf2_kinds(directory / "traces.otf2")
    assert kinds.count("ENTER") == 6 and kinds.count("LEAVE") == 6 and kinds.count("PROGRAM_END") == 1
