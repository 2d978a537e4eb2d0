"""Experiment directory: naming, never overwriting, fallbacks, and data kept
when the program ends abnormally."""
import os
import pathlib
import re
import subprocess
import sys
import time

import pytest

from runtime_programs import Profile, load_profile, run

# the root of the call tree: the program region, named after the executable
PROGRAM = "test_experiment"


def experiment_from(proc):
    match = re.search(r"^experiment: (.*)$", proc.stdout, re.M)
    assert match, proc.stdout
    return match.group(1)


def is_default_in(used, directory):
    """used is the absolute path of a default-named experiment in directory
    (names are taken against the working directory of the start, once)."""
    path = pathlib.Path(used)
    return (path.is_absolute() and path.parent == pathlib.Path(directory)
            and re.fullmatch(r"scorep-\d{8}_\d{4}_\d+", path.name) is not None)


def test_default_directory_name_follows_score_p_pattern(build_dir, tmp_path):
    proc = run(build_dir, "test_experiment", "normal", cwd=tmp_path)
    name = experiment_from(proc)
    assert is_default_in(name, tmp_path), name
    assert sorted(p.name for p in (tmp_path / name).iterdir()) == [
        ".scorep-wrapgen-experiment", "profile.cubex", "profile.folded", "profile.json", "profile.txt", "scorep.cfg"]


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


MARKER = ".scorep-wrapgen-experiment"
OVERWRITE = {"SCOREP_OVERWRITE_EXPERIMENT_DIRECTORY": "true"}


def snapshot(root):
    """Every file and symlink under root with its bytes / target: the user's data."""
    found = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = pathlib.Path(dirpath) / name
            if path.is_symlink():
                found[str(path)] = ("link", os.readlink(path))
            elif path.is_file():
                found[str(path)] = ("file", path.read_bytes())
    return found


def only_warning_about(proc, wanted, used):
    lines = [line for line in proc.stderr.splitlines() if "SCOREP_EXPERIMENT_DIRECTORY" in line]
    assert len(lines) == 1, proc.stderr
    assert f"'{wanted}'" in lines[0] and f"'{used}'" in lines[0], lines[0]
    assert "nothing in it was changed" in lines[0], lines[0]
    return lines[0]


def test_every_created_experiment_carries_the_marker(build_dir, tmp_path):
    proc = run(build_dir, "test_experiment", "normal", cwd=tmp_path)
    marker = (tmp_path / experiment_from(proc) / MARKER).read_text()
    assert marker.startswith("scorep-wrapgen experiment directory\n"), marker
    assert "never deletes" in marker


@pytest.mark.parametrize("wanted, cwd_below", [(".", ""), ("..", "sub"), ("./", "")])
def test_overwrite_never_touches_the_working_directory_or_its_parents(build_dir, tmp_path, wanted, cwd_below):
    parent = tmp_path / "project"
    cwd = parent / cwd_below if cwd_below else parent
    cwd.mkdir(parents=True)
    (parent / "input.dat").write_bytes(bytes(range(256)))
    (cwd / "notes.txt").write_text("user's notes")
    before = snapshot(tmp_path)
    proc = run(build_dir, "test_experiment", "normal", cwd=cwd,
               env={"SCOREP_EXPERIMENT_DIRECTORY": wanted, **OVERWRITE})
    used = experiment_from(proc)
    # the data goes to a fresh default-named directory in the working directory
    assert is_default_in(used, cwd), used
    assert (cwd / used / "profile.json").exists()
    after = snapshot(tmp_path)
    assert {k: v for k, v in after.items() if used not in k} == before
    line = only_warning_about(proc, wanted.rstrip("/") or wanted, used)
    assert "working directory, one of its parents" in line
    assert "overwrite" not in line.replace(used, "").lower().replace("scorep_overwrite_experiment_directory", "")


@pytest.mark.parametrize("overwrite", [True, False])
def test_directory_with_a_users_files_is_never_changed(build_dir, tmp_path, overwrite):
    directory = tmp_path / "e"
    directory.mkdir()
    (directory / "precious").write_text("keep me")
    (directory / "sub").mkdir()
    (directory / "sub" / "data.bin").write_bytes(b"\x00\x01\xff" * 1000)
    before = snapshot(directory)
    proc = run(build_dir, "test_experiment", "normal",
               env={"SCOREP_EXPERIMENT_DIRECTORY": str(directory), **(OVERWRITE if overwrite else {})})
    assert snapshot(directory) == before
    assert sorted(p.name for p in directory.iterdir()) == ["precious", "sub"]
    used = experiment_from(proc)
    assert used.startswith(str(directory) + "_"), used
    assert (pathlib.Path(used) / "profile.json").exists()
    line = only_warning_about(proc, directory, used)
    assert ("not an experiment directory of this measurement" in line) == overwrite, line
    assert ("SCOREP_OVERWRITE_EXPERIMENT_DIRECTORY is false" in line) == (not overwrite), line


def test_symlink_and_regular_file_are_never_replaced(build_dir, tmp_path):
    target = tmp_path / "users-dir"
    target.mkdir()
    (target / "precious").write_text("keep me")
    link = tmp_path / "link"
    link.symlink_to(target)
    plain = tmp_path / "plain-file"
    plain.write_text("a file, not a directory")
    for wanted, reason in ((link, "is a symbolic link"), (str(link) + "/", "is a symbolic link"),
                           (plain, "is not a directory")):
        before = snapshot(tmp_path)
        proc = run(build_dir, "test_experiment", "normal", cwd=tmp_path,
                   env={"SCOREP_EXPERIMENT_DIRECTORY": str(wanted), **OVERWRITE})
        used = experiment_from(proc)
        assert link.is_symlink() and os.readlink(link) == str(target)
        assert {k: v for k, v in snapshot(tmp_path).items() if used not in k} == before
        assert used.startswith(str(wanted).rstrip("/") + "_"), used
        assert (pathlib.Path(used) / "profile.json").exists()
        assert reason in only_warning_about(proc, str(wanted).rstrip("/"), used)


def test_overwrite_keeps_the_previous_own_experiment_under_a_new_name(build_dir, tmp_path):
    directory = tmp_path / "e"
    env = {"SCOREP_EXPERIMENT_DIRECTORY": str(directory), **OVERWRITE}
    first = run(build_dir, "test_experiment", "normal", env=env)
    assert experiment_from(first) == str(directory)
    old = snapshot(directory)
    second = run(build_dir, "test_experiment", "normal", env=env)
    assert experiment_from(second) == str(directory)
    assert (directory / "profile.json").exists()
    kept = list(tmp_path.glob("e-old-*"))
    assert len(kept) == 1 and re.fullmatch(r"e-old-\d{8}_\d{6}_\d+", kept[0].name), kept
    assert snapshot(kept[0]) == {k.replace(str(directory), str(kept[0]), 1): v for k, v in old.items()}
    assert f"the previous experiment '{directory}' is kept as '{kept[0]}'" in second.stderr


def test_a_forged_or_foreign_marker_is_not_proof(build_dir, tmp_path):
    directory = tmp_path / "e"
    directory.mkdir()
    (directory / MARKER).write_text("something else\n")
    (directory / "precious").write_text("keep me")
    before = snapshot(directory)
    proc = run(build_dir, "test_experiment", "normal",
               env={"SCOREP_EXPERIMENT_DIRECTORY": str(directory), **OVERWRITE})
    assert snapshot(directory) == before
    assert "not an experiment directory of this measurement" in only_warning_about(
        proc, directory, experiment_from(proc))


def test_home_is_never_replaced_even_with_a_marker_in_it(build_dir, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bashrc").write_text("export PATH\n")
    # as if copied there: a marker alone proves nothing about $HOME
    (home / MARKER).write_text("scorep-wrapgen experiment directory\ncreated by hand\n")
    work = tmp_path / "work"
    work.mkdir()
    before = snapshot(home)
    proc = run(build_dir, "test_experiment", "normal", cwd=work,
               env={"HOME": str(home), "SCOREP_EXPERIMENT_DIRECTORY": str(home), **OVERWRITE})
    assert snapshot(home) == before and sorted(p.name for p in tmp_path.iterdir()) == ["home", "work"]
    used = experiment_from(proc)
    assert is_default_in(used, work) and (work / used / "profile.json").exists()
    assert "/ or $HOME" in only_warning_about(proc, home, used)


def test_mpi_run_with_overwrite_keeps_the_previous_experiment(tmp_path):
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "mpi"))
    from measure import compile_program, load_profile as load_mpi_profile, run_measured
    program = compile_program("openmpi", "pingpong_long.c", tmp_path)
    first, experiment = run_measured("openmpi", 2, program, tmp_path, args=["10"], env=OVERWRITE)
    old = snapshot(experiment)
    second, again = run_measured("openmpi", 2, program, tmp_path, args=["20"], env=OVERWRITE)
    assert again == experiment
    kept = list(tmp_path.glob(experiment.name + "-old-*"))
    assert len(kept) == 1
    assert snapshot(kept[0]) == {k.replace(str(experiment), str(kept[0]), 1): v for k, v in old.items()}
    assert second.stderr.count("is kept as") == 1, second.stderr
    visits = {r["visits"] for r in load_mpi_profile(experiment)["rows"]}
    assert 20 in visits and 10 not in visits, visits


def test_a_running_experiment_is_never_renamed_away(build_dir, tmp_path):
    directory = tmp_path / "e"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCOREP_")}
    env.update(SCOREP_EXPERIMENT_DIRECTORY=str(directory), **OVERWRITE)
    exe = str(build_dir / "runtime" / "tests" / "test_experiment")
    running = subprocess.Popen([exe, "wait"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        assert running.stdout.readline().strip() == f"experiment: {directory}"
        second = run(build_dir, "test_experiment", "normal", env=env)
    finally:
        out, err = running.communicate("\n", timeout=60)
    assert running.returncode == 0, err
    used = experiment_from(second)
    assert used != str(directory)
    assert "still running" in only_warning_about(second, directory, used)
    assert not list(tmp_path.glob("e-old-*"))
    # the first run's profile is whole, in the directory it was told
    assert Profile(load_profile(directory / "profile.json")).row(f"{PROGRAM}/main/step")["visits"] == 5


def round_with_overwrite(tmp_path, round_):
    """A round's experiment name "e" in a directory of its own, and the
    environment that measures into it with overwrite on."""
    directory = tmp_path / f"round{round_}" / "e"
    directory.parent.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCOREP_")}
    env.update(SCOREP_EXPERIMENT_DIRECTORY=str(directory), **OVERWRITE)
    return directory, env


def held_then_quick(exe, env, hold, head_start):
    """Starts test_experiment held by the test-only variable in hold and,
    head_start seconds later, a quick one with the same environment; each
    prints its experiment and waits until told to end. Returns (process,
    first line, stderr) of the quick run, then of the held one."""
    pipes = dict(stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    held = subprocess.Popen([exe, "wait"], env=dict(env, **hold), **pipes)
    time.sleep(head_start)
    quick = subprocess.Popen([exe, "wait"], env=env, **pipes)
    try:
        quick_line = quick.stdout.readline().strip()
        held_line = held.stdout.readline().strip()
    finally:
        _, quick_err = quick.communicate("\n", timeout=60)
        _, held_err = held.communicate("\n", timeout=60)
    return (quick, quick_line, quick_err), (held, held_line, held_err)


def test_a_run_that_locks_a_finished_marker_late_never_renames_the_next_runs_directory(build_dir, tmp_path):
    """The race behind runs started together: run C opens the marker of a
    finished experiment "e", and before C locks it, run B renames that
    experiment away, lets go of its lock and makes "e" anew. C's lock then
    succeeds on the marker that has left "e"; renaming "e" would move B's
    live experiment (B's profile then landed in C's directory, B's own kept
    only its marker and scorep.cfg). SCOREP_EXPERIMENT_TEST_LOCK_HOLD_US
    holds C between open and lock; three rounds."""
    exe = str(build_dir / "runtime" / "tests" / "test_experiment")
    for round_ in range(3):
        directory, env = round_with_overwrite(tmp_path, round_)
        run(build_dir, "test_experiment", "normal", env=env)          # A: a finished experiment at "e"
        # C opens A's marker within 0.5 s and is held there; B starts then
        (quick, quick_line, quick_err), (late, late_line, late_err) = held_then_quick(
            exe, env, {"SCOREP_EXPERIMENT_TEST_LOCK_HOLD_US": "1500000"}, 0.5)
        assert quick_line == f"experiment: {directory}", quick_err   # B renamed A's, made "e"
        assert (quick.returncode, late.returncode) == (0, 0), (quick_err, late_err)
        assert late_line != f"experiment: {directory}" and "still running" in late_err, late_err
        # B's experiment is where B was told, whole and marked by B
        assert f"by process {quick.pid} " in (directory / MARKER).read_text()
        assert Profile(load_profile(directory / "profile.json")).row(f"{PROGRAM}/main/step")["visits"] == 5
        late_dir = pathlib.Path(late_line.split(": ", 1)[1])
        assert f"by process {late.pid} " in (late_dir / MARKER).read_text()
        assert Profile(load_profile(late_dir / "profile.json")).row(f"{PROGRAM}/main/step")["visits"] == 5
        # A's kept, once, with its own profile
        kept = list(directory.parent.glob("e-old-*"))
        assert len(kept) == 1 and (kept[0] / "profile.json").exists(), kept


def test_a_directory_still_being_marked_is_never_seen_under_the_configured_name(build_dir, tmp_path):
    """Run A is held 1.5 s (SCOREP_EXPERIMENT_TEST_MARK_HOLD_US) between making
    its directory and marking it, longer than a run waits for a young
    directory's marker; run B starts meanwhile with the same name. B must find
    the name free (A's directory is not under it yet) and take it; A, when it
    comes to claim the name, finds B's experiment in use and writes to a fresh
    name saying so. Nobody reads the other's directory as a user's, and A's
    unfinished directory is not left behind. Three rounds."""
    exe = str(build_dir / "runtime" / "tests" / "test_experiment")
    for round_ in range(3):
        directory, env = round_with_overwrite(tmp_path, round_)
        # A has made its directory within 0.3 s and is held there; B starts then
        (quick, quick_line, quick_err), (held, held_line, held_err) = held_then_quick(
            exe, env, {"SCOREP_EXPERIMENT_TEST_MARK_HOLD_US": "1500000"}, 0.3)
        assert (quick.returncode, held.returncode) == (0, 0), (quick_err, held_err)
        assert "not an experiment directory" not in quick_err + held_err, (quick_err, held_err)
        assert quick_line == f"experiment: {directory}", (quick_line, quick_err)
        assert held_line != quick_line and "still running" in held_err, held_err
        held_dir = pathlib.Path(held_line.split(": ", 1)[1])
        for proc, experiment in ((quick, directory), (held, held_dir)):
            assert f"by process {proc.pid} " in (experiment / MARKER).read_text()
            assert Profile(load_profile(experiment / "profile.json")).row(f"{PROGRAM}/main/step")["visits"] == 5
        assert sorted(p.name for p in directory.parent.iterdir()) == sorted(["e", held_dir.name])


@pytest.mark.parametrize("mode", ["normal", "wait"])
def test_runs_started_together_with_one_name_keep_their_data_apart(build_dir, tmp_path, mode):
    """Several rounds of 6 runs started at the same moment with the same name and
    overwrite on: every run ends in a directory of its own (its marker names its
    process), no file of one run lands in another's, nothing is deleted. "wait":
    all 6 are alive together until each has created its experiment."""
    directory = tmp_path / "e"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCOREP_")}
    env.update(SCOREP_EXPERIMENT_DIRECTORY=str(directory), **OVERWRITE)
    exe = str(build_dir / "runtime" / "tests" / "test_experiment")
    pids = []
    for _ in range(4):
        procs = [subprocess.Popen([exe, mode], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for _ in range(6)]
        used = []
        if mode == "wait":
            used = [proc.stdout.readline() for proc in procs]
            assert len(set(used)) == 6, used
        for proc in procs:
            out, err = proc.communicate("\n", timeout=120)
            assert proc.returncode == 0, err
            # a run that lost the race says why: the other run's experiment is in use
            assert "not an experiment directory" not in err, err
            assert mode == "wait" or re.search(r"^experiment: (.*)$", out, re.M), out
            pids.append(proc.pid)
    # a run's directory may since have been kept as e-old-* by a later run: each
    # marker names the one process that created the directory and wrote into it
    experiments = [p for p in tmp_path.iterdir() if p.name.startswith("e")]
    owners = sorted(int(re.search(r"by process (\d+) ", (e / MARKER).read_text()).group(1)) for e in experiments)
    assert owners == sorted(pids), sorted(p.name for p in experiments)
    for experiment in experiments:
        names = sorted(p.name for p in experiment.iterdir())
        assert names == [MARKER, "profile.cubex", "profile.folded", "profile.json", "profile.txt", "scorep.cfg"], (experiment, names)
        assert Profile(load_profile(experiment / "profile.json")).row(f"{PROGRAM}/main/step")["visits"] == 5


def test_unwritable_directory_falls_back_to_a_fresh_one_with_an_error_message(build_dir, tmp_path):
    wanted = tmp_path / "missing-parent" / "deeper" / "e"
    proc = run(build_dir, "test_experiment", "normal", cwd=tmp_path,
               env={"SCOREP_EXPERIMENT_DIRECTORY": str(wanted)})
    assert "cannot create the experiment directory" in proc.stderr and str(wanted) in proc.stderr
    used = experiment_from(proc)
    assert is_default_in(used, tmp_path), used
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
    step = profile.row(f"{PROGRAM}/main/step")
    assert (step["visits"], step["bytes_sent"], step["messages_sent"]) == (5, 320, 5)
    # main was still open: closed at the moment of the abnormal end
    assert profile.row(f"{PROGRAM}/main")["visits"] == 1
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
