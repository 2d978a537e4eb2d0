"""Experiment directory: naming, never overwriting, fallbacks, and data kept
when the program ends abnormally."""
import os
import re

import pytest

from runtime_programs import Profile, load_profile, run


def experiment_from(proc):
    match = re.search(r"^experiment: (.*)$", proc.stdout, re.M)
    assert match, proc.stdout
    return match.group(1)


def test_default_directory_name_follows_score_p_pattern(build_dir, tmp_path):
    proc = run(build_dir, "test_experiment", "normal", cwd=tmp_path)
    name = experiment_from(proc)
    assert re.fullmatch(r"scorep-\d{8}_\d{4}_\d+", name), name
    assert sorted(p.name for p in (tmp_path / name).iterdir()) == [
        "profile.folded", "profile.json", "profile.txt", "scorep.cfg"]


def test_scorep_cfg_holds_the_effective_configuration(build_dir, tmp_path):
    directory = tmp_path / "e"
    run(build_dir, "test_experiment", "normal",
        env={"SCOREP_EXPERIMENT_DIRECTORY": str(directory), "SCOREP_TOTAL_MEMORY": "bogus"})
    cfg = (directory / "scorep.cfg").read_text()
    assert f"SCOREP_EXPERIMENT_DIRECTORY={directory}\n" in cfg
    assert "SCOREP_TOTAL_MEMORY=16384000\n" in cfg
    assert "SCOREP_ENABLE_PROFILING=true\n" in cfg


def test_existing_directory_is_never_overwritten(build_dir, tmp_path):
    directory = tmp_path / "e"
    directory.mkdir()
    (directory / "precious").write_text("keep me")
    proc = run(build_dir, "test_experiment", "normal", env={"SCOREP_EXPERIMENT_DIRECTORY": str(directory)})
    assert (directory / "precious").read_text() == "keep me"
    assert not (directory / "profile.json").exists()
    used = experiment_from(proc)
    assert used != str(directory) and used.startswith(str(directory) + "_")
    assert "SCOREP_EXPERIMENT_DIRECTORY" in proc.stderr and used in proc.stderr
    assert (tmp_path / os.path.basename(used) / "profile.json").exists()


def test_overwrite_flag_replaces_an_existing_directory(build_dir, tmp_path):
    directory = tmp_path / "e"
    directory.mkdir()
    (directory / "old").write_text("old run")
    proc = run(build_dir, "test_experiment", "normal",
               env={"SCOREP_EXPERIMENT_DIRECTORY": str(directory),
                    "SCOREP_OVERWRITE_EXPERIMENT_DIRECTORY": "true"})
    assert experiment_from(proc) == str(directory)
    assert not (directory / "old").exists()
    assert (directory / "profile.json").exists()


def test_unwritable_directory_falls_back_to_a_fresh_one_with_an_error_message(build_dir, tmp_path):
    wanted = tmp_path / "missing-parent" / "deeper" / "e"
    proc = run(build_dir, "test_experiment", "normal", cwd=tmp_path,
               env={"SCOREP_EXPERIMENT_DIRECTORY": str(wanted)})
    assert "cannot create the experiment directory" in proc.stderr and str(wanted) in proc.stderr
    used = experiment_from(proc)
    assert re.fullmatch(r"scorep-\d{8}_\d{4}_\d+", used)
    assert (tmp_path / used / "profile.json").exists()


@pytest.mark.parametrize("how, returncode", [("sigterm", -15), ("segv", -11), ("abort", 3)])
def test_abnormal_end_leaves_a_readable_partial_experiment(build_dir, tmp_path, how, returncode):
    directory = tmp_path / "e"
    proc = run(build_dir, "test_experiment", how, env={"SCOREP_EXPERIMENT_DIRECTORY": str(directory)},
               check=False)
    assert proc.returncode == returncode
    data = load_profile(directory / "profile.json")
    assert data["experiment"]["partial"] is True
    profile = Profile(data)
    step = profile.row("main/step")
    assert (step["visits"], step["bytes_sent"], step["messages_sent"]) == (5, 320, 5)
    # main was still open: closed at the moment of the abnormal end
    assert profile.row("main")["visits"] == 1
    assert "PARTIAL" in (directory / "profile.txt").read_text()


def test_profiling_disabled_writes_no_profile(build_dir, tmp_path):
    directory = tmp_path / "e"
    run(build_dir, "test_experiment", "normal",
        env={"SCOREP_EXPERIMENT_DIRECTORY": str(directory), "SCOREP_ENABLE_PROFILING": "false"})
    assert not (directory / "profile.json").exists()
    assert (directory / "scorep.cfg").exists()


def test_sigterm_with_tracing_leaves_a_readable_trace_of_a_serial_program(build_dir, tmp_path):
    import shutil
    import subprocess
    if not shutil.which("otf2-print"):
        pytest.skip("otf2-print not installed")
    directory = tmp_path / "e"
    proc = run(build_dir, "test_experiment", "sigterm", check=False,
               env={"SCOREP_EXPERIMENT_DIRECTORY": str(directory), "SCOREP_ENABLE_TRACING": "true"})
    assert proc.returncode == -15
    if not (directory / "traces.otf2").exists():
        pytest.skip("built without the trace substrate")
    out = subprocess.run(["otf2-print", str(directory / "traces.otf2")], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    kinds = [line.split()[0] for line in out.stdout.splitlines()
             if line.split() and line.split()[0] in ("ENTER", "LEAVE", "MPI_SEND")]
    # main, 5 x (step, send, leave step), and main closed at the signal
    assert kinds.count("ENTER") == 6 and kinds.count("LEAVE") == 6 and kinds.count("MPI_SEND") == 5
