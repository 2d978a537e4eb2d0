"""A child of fork() without exec (a helper process, and whatever system()
and popen() start) records nothing and writes nothing: the experiment is
the parent's alone, whether the child ends before or after the parent
(docs/MAINTAINING.md, "The measurement's life cycle"). Each scenario runs
three times."""
import os
import pathlib
import shutil
import subprocess
import time

import pytest

from compiler_runs import HERE, compile_program, load, visits_by_region

RUNS = 3


def parent_visits(experiment):
    profile = load(experiment)
    assert profile["experiment"]["partial"] is False
    return visits_by_region(profile)


def wait_for_child(marker):
    deadline = time.monotonic() + 20
    while not marker.exists() or not marker.read_text().strip():
        assert time.monotonic() < deadline, "the child never finished"
        time.sleep(0.05)
    pid = int(marker.read_text())
    while os.path.exists(f"/proc/{pid}") and "Z" not in _state(pid):
        assert time.monotonic() < deadline, "the child never ended"
        time.sleep(0.05)
    time.sleep(0.2)


def _state(pid):
    try:
        return pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"


def measured_env(experiment, extra=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCOREP_")}
    env["SCOREP_EXPERIMENT_DIRECTORY"] = str(experiment)
    env.update(extra or {})
    return env


def test_a_child_that_outlives_the_parent_leaves_the_parents_profile_alone(build_dir, tmp_path):
    exe, _ = compile_program(build_dir, tmp_path, "forks.c", "forks", options=["--nompi"], flags=("-O1",))
    for run in range(RUNS):
        experiment, marker = tmp_path / f"e{run}", tmp_path / f"child{run}"
        proc = subprocess.run([exe, "outlive", marker], capture_output=True, text=True,
                              env=measured_env(experiment), timeout=60)
        assert proc.returncode == 0 and proc.stdout == "parent done\n", proc.stderr
        wait_for_child(marker)
        visits = parent_visits(experiment)
        assert visits.get("step") == 10 and visits.get("main") == 1, visits
        assert "child_work" not in visits


def test_children_of_fork_system_and_popen_record_and_write_nothing(build_dir, tmp_path):
    exe, _ = compile_program(build_dir, tmp_path, "forks.c", "forks", options=["--nompi"], flags=("-O1",))
    plain = tmp_path / "forks_plain"
    subprocess.run(["gcc", "-O1", str(HERE / "forks.c"), "-o", str(plain)], check=True)
    expected = subprocess.run([plain, "repeat"], capture_output=True, text=True, check=True).stdout
    assert "child 9 exited 9" in expected and "read: popen 2" in expected
    for run in range(RUNS):
        experiment = tmp_path / f"e{run}"
        proc = subprocess.run([exe, "repeat"], capture_output=True, text=True, timeout=60,
                              env=measured_env(experiment, {"SCOREP_VERBOSE": "true"}))
        assert proc.returncode == 0 and proc.stdout == expected
        # written once, by the parent (every child wrote a whole experiment before)
        assert proc.stderr.count("experiment written to") == 1, proc.stderr
        visits = parent_visits(experiment)
        assert visits.get("step") == 10 and "child_work" not in visits, visits


def test_children_leave_the_parents_trace_whole(build_dir, tmp_path):
    """The children share the parent's trace memory and spill files: they
    must neither write the archive nor remove what the parent needs."""
    if not shutil.which("otf2-print"):
        pytest.skip("otf2-print not installed")
    exe, _ = compile_program(build_dir, tmp_path, "forks.c", "forks", options=["--nompi"], flags=("-O1",))
    for run in range(RUNS):
        experiment = tmp_path / f"e{run}"
        proc = subprocess.run([exe, "repeat"], capture_output=True, text=True, timeout=60,
                              env=measured_env(experiment, {"SCOREP_ENABLE_TRACING": "true"}))
        assert proc.returncode == 0 and "Warning" not in proc.stderr, proc.stderr
        if not (experiment / "traces.otf2").exists():
            pytest.skip("built without the trace substrate")
        out = subprocess.run(["otf2-print", str(experiment / "traces.otf2")], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        enters = [line.split('"')[1] for line in out.stdout.splitlines() if line.startswith("ENTER")]
        assert enters.count("step") == 10 and "child_work" not in enters, enters
