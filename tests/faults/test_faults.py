"""The fault scenarios of tests/faults/run_faults.py, a short version: each
scenario three times; every run must leave every expected rank's profile and
trace readable (otf2-print, json) and warnings that match what survived.
The full version (20 runs each): tests/faults/run_faults.py."""
import importlib.machinery
import json
import os
import re
import shutil
import subprocess
import sys
import types

import pytest

import cube_consistency

sys.path.insert(0, os.path.dirname(__file__))
import run_faults  # noqa: E402

RUNS = 3


@pytest.fixture(scope="module")
def fault_program(build_dir, tmp_path_factory):
    options = json.loads((build_dir / "meson-info" / "intro-buildoptions.json").read_text())
    if next((o["value"] for o in options if o["name"] == "mpi"), "openmpi") != "openmpi":
        pytest.skip("the fault scenarios use Open MPI's mpirun")
    if not shutil.which("otf2-print"):
        pytest.skip("otf2-print not installed")
    if not (build_dir / "runtime" / "trace").exists():
        pytest.skip("built without the trace substrate")
    return run_faults.build_program(build_dir, tmp_path_factory.mktemp("faults"))


def run_scenario(scenario, program, tmp_path, calls=2):
    findings = []
    for i in range(RUNS):
        workdir = tmp_path / f"run{i}"
        workdir.mkdir()
        findings.append(run_faults.run_once(scenario, program, workdir, calls=calls, midway=1.0))
        # every rank's profile.rank<R>.cubex that is there agrees with its JSON twin
        if findings[-1]["experiment"].is_dir():
            findings[-1]["cube"] = cube_consistency.check_experiment(findings[-1]["experiment"])
        shutil.rmtree(workdir, ignore_errors=True)
    for i, f in enumerate(findings):
        detail = f"run {i + 1}: {run_faults.summarise(scenario, [f])}\nstderr:\n{f['stderr'][-3000:]}"
        assert not f.get("hung"), detail
        assert f["profiles"] == f["expected"], detail
        assert f["traces"] == f["expected"], detail
        assert f["message"], detail
        assert not f.get("cube"), detail + "\nprofile.cubex:\n" + "\n".join(f["cube"][:20])
    return findings


def test_kill_9_of_one_rank_leaves_every_other_ranks_profile_and_trace_readable(fault_program, tmp_path):
    run_scenario("kill9", fault_program, tmp_path)


def test_sigterm_to_mpirun_leaves_every_ranks_profile_and_trace_readable(fault_program, tmp_path):
    run_scenario("sigterm", fault_program, tmp_path)


def test_sigint_to_mpirun_leaves_every_ranks_profile_and_trace_readable(fault_program, tmp_path):
    run_scenario("sigint", fault_program, tmp_path)


def test_sigterm_to_ranks_with_their_own_late_handler_runs_it_and_keeps_every_ranks_data(fault_program, tmp_path):
    findings = run_scenario("sigterm_handler", fault_program, tmp_path)
    for i, f in enumerate(findings):
        assert f["cleaned"] == f["expected"], f"run {i + 1}: the program's handler ran on ranks {sorted(f['cleaned'])}"


def test_sigterm_to_mpirun_after_long_tracing_keeps_a_prefix_of_every_ranks_events(fault_program, tmp_path):
    """5 s of tracing are more than a rank encodes before Open MPI's SIGKILL
    follows the SIGTERM (about 1 s): each rank's trace keeps at least the
    prefix it had time for, readable, instead of no events at all."""
    for f in run_scenario("sigterm_long", fault_program, tmp_path, calls=10):
        assert all(n is not None and n >= run_faults.MIN_ENTERS for n in f["enters"].values()), \
            f"Enter records per rank: {f['enters']}\nstderr:\n{f['stderr'][-3000:]}"


def test_mpi_abort_on_every_rank_at_once_keeps_all_data_and_ranks_end_within_2_s(fault_program, tmp_path):
    for f in run_scenario("abort_all", fault_program, tmp_path):
        assert f["wait"] <= 2.0, f"the last rank ended {f['wait']:.1f} s after the last data was written"


@pytest.mark.skipif(os.geteuid() != 0, reason="mounts a tmpfs: needs root")
def test_full_disk_keeps_the_profile_and_a_readable_trace_and_says_what_is_missing(fault_program, tmp_path):
    for f in run_scenario("disk_full", fault_program, tmp_path):
        # the disk was too small: the trace stops early and the warning says where
        assert f["stops"], f["stderr"]
        assert re.search(r"no space left on the file system of .*: rank \d, location 0: its events from "
                         r"[0-9.]+ s after the start on \(\d+ bytes of records\) are missing", f["stderr"]), f["stderr"]


def test_tools_read_a_partial_experiment_and_name_the_rank_missing(fault_program, build_dir, tmp_path):
    """After kill -9 of rank 2: otf2-print reads each rank's part, the export
    merges ranks 0, 1, 3 and says rank 2 is missing, scorep-view serves every
    rank's profile and says the same, printing what it does at once."""
    f = run_faults.run_once("kill9", fault_program, tmp_path, calls=0, midway=0.5)
    experiment = f["experiment"]
    assert f["traces"] == f["profiles"] == {0, 1, 3}, f["stderr"]
    export = subprocess.run([sys.executable, str(run_faults.REPO / "tools" / "scorep-trace-export"),
                             str(experiment), "-o", str(tmp_path / "trace.json")],
                            capture_output=True, text=True, timeout=300)
    assert export.returncode == 0, export.stderr
    assert "no trace of rank(s) 2 " in export.stderr
    other = json.loads((tmp_path / "trace.json").read_text())["otherData"]
    assert other["partial"] is True and other["missing_ranks"] == [2]
    assert {e["pid"] for e in json.loads((tmp_path / "trace.json").read_text())["traceEvents"]} == {0, 1, 3}

    if not (build_dir / "speedscope").exists():
        pytest.skip("speedscope not installed in the build (make viewer)")
    view = subprocess.Popen([sys.executable, str(build_dir / "tools" / "scorep-view"), "--no-trace", str(experiment)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = view.stderr.readline()
        assert first.startswith("scorep-view: preparing the views of"), first
        url = view.stdout.readline()
        assert url.startswith("profile: http://127.0.0.1:"), url
    finally:
        view.terminate()
        view.wait(timeout=30)
    rest = view.stderr.read()   # through the reader's buffer (communicate() would bypass it)
    view.stdout.close()
    view.stderr.close()
    assert "no profile of rank(s) 2 " in first + rest
    # the document served: every rank's view, frames renumbered
    loader = importlib.machinery.SourceFileLoader("scorep_view", str(build_dir / "tools" / "scorep-view"))
    module = types.ModuleType(loader.name)
    module.__file__ = loader.path
    loader.exec_module(module)
    merged, written, missing = module.partial_profiles(experiment)
    assert (written, missing) == ([0, 1, 3], [2])
    assert [p["name"] for p in merged["profiles"]] == ["rank 0", "rank 1", "rank 3"]
    frames = len(merged["shared"]["frames"])
    assert all(0 <= i < frames for p in merged["profiles"] for s in p["samples"] for i in s)


def test_exit_without_finalize_on_every_rank_at_once_keeps_all_data_and_ranks_end_within_2_s(fault_program, tmp_path):
    """What a Fortran `error stop` on every image does: exit(3) everywhere."""
    for f in run_scenario("exit_all", fault_program, tmp_path):
        assert f["wait"] <= 2.0, f"the last rank ended {f['wait']:.1f} s after the last data was written"
