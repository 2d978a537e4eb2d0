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


def scratch(tmpdir):
    return sorted(p.name for p in tmpdir.iterdir() if p.name.startswith("scorep-wrapgen-trace-"))


def start_waiting(build_dir, cwd, tmpdir):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCOREP_")}
    env.update(TRACING, TMPDIR=str(tmpdir))
    proc = subprocess.Popen([str(program(build_dir, PROGRAM)), "wait"], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().startswith("experiment: ")
    assert proc.stdout.readline() == "ready\n"
    return proc


def test_nothing_of_runs_killed_with_sigkill_stays_in_tmpdir_and_nothing_else_is_removed(build_dir, tmp_path):
    tmpdir, work = tmp_path / "tmp", tmp_path / "work"
    tmpdir.mkdir()
    work.mkdir()
    # what others made there: never removed
    foreign = tmpdir / "scorep-wrapgen-trace-someone"
    foreign.mkdir()
    (foreign / "data").write_text("not ours")
    forged = tmpdir / "scorep-wrapgen-trace-forged"
    forged.mkdir()
    (forged / ".owner").write_text("written by hand\n")
    others = scratch(tmpdir)
    kills = 8
    for _ in range(kills):
        proc = start_waiting(build_dir, work, tmpdir)
        proc.kill()
        proc.communicate()
        assert proc.returncode == -signal.SIGKILL
    # each run removes what the killed ones before it left: the last one's stays until the next run
    assert len(scratch(tmpdir)) <= len(others) + 1, scratch(tmpdir)
    alive = start_waiting(build_dir, work, tmpdir)
    try:
        live = set(scratch(tmpdir)) - set(others)
        run(build_dir, PROGRAM, "chdir", work, cwd=work, env={**TRACING, "TMPDIR": str(tmpdir)})
        # the live run's directory is kept, and nothing else but the foreign ones
        assert set(scratch(tmpdir)) == set(others) | live and len(live) == 1
    finally:
        alive.kill()
        alive.communicate()
    run(build_dir, PROGRAM, "chdir", work, cwd=work, env={**TRACING, "TMPDIR": str(tmpdir)})
    assert scratch(tmpdir) == others
    assert (foreign / "data").read_text() == "not ours"
    assert (forged / ".owner").read_text() == "written by hand\n"
    # every experiment (killed or not) is still there: the trace of the whole runs reads
    experiments = [p.parent for p in work.glob("*/.scorep-wrapgen-experiment")]
    assert len(experiments) == kills + 3
    whole = [e for e in experiments if (e / "traces.otf2").exists()]
    assert len(whole) == 2
    for e in whole:
        assert otf2_kinds(e / "traces.otf2").count("ENTER") == 7


def children_listed(root):
    """children.txt of the root experiment: {directory: (pid, K)} from each line's command."""
    listed = {}
    for line in (root / "children.txt").read_text().splitlines():
        name, pid, parent, command = line.split("\t")
        assert pid.startswith("pid ") and parent.startswith("parent ")
        assert command.split()[1:3][0] == "child", command
        listed[name] = (int(pid[4:]), int(command.split()[2]))
    return listed


@pytest.mark.parametrize("configured", [None, "e", "absolute"])
def test_the_children_a_measured_tool_runs_through_sh_join_its_run_whole_and_silent(build_dir, tmp_path,
                                                                                     configured):
    work = tmp_path / "work"
    work.mkdir()
    env = dict(TRACING)
    if configured:
        env["SCOREP_EXPERIMENT_DIRECTORY"] = str(tmp_path / "e") if configured == "absolute" else configured
    n = 12
    proc = run(build_dir, PROGRAM, "spawn", n, cwd=work, env=env)
    # the program's own output, unchanged: nothing of the measurement on stderr
    assert proc.stderr == ""
    assert proc.stdout.splitlines()[1:] == [f"child {k}" for k in range(1, n + 2)]
    # one experiment: the tool's; the children's are inside it
    tops = sorted(p.parent for p in tmp_path.glob("**/.scorep-wrapgen-experiment")
                  if "children" not in p.parent.parts)
    assert tops == [experiment_from(proc)], tops
    root = tops[0]
    if configured:
        assert root == (work / "e" if configured == "e" else tmp_path / "e")
    listed = children_listed(root)
    assert sorted(k for _, k in listed.values()) == list(range(1, n + 2))
    made = sorted(p.name for p in (root / "children").iterdir() if not p.name.startswith("."))
    assert sorted(name.split("/")[1] for name in listed) == made
    # numbered in the order they started: the tool ran them one after the other
    by_k = {k: name for name, (_, k) in listed.items()}
    assert [int(by_k[k].split("/")[1].split("_")[0]) for k in range(1, n + 2)] == list(range(1, n + 2))
    for name, (pid, k) in listed.items():
        child = root / name
        assert f"by process {pid} " in (child / ".scorep-wrapgen-experiment").read_text()
        data = load_profile(child / "profile.json")
        assert data["experiment"]["partial"] is False, name   # the odd ones ended with _exit
        assert Profile(data).row(f"{PROGRAM}/work")["visits"] == k
        assert not (child / "scorep.log").exists() or (child / "scorep.log").read_text() == ""
        if k in (1, 2, n + 1):   # ended by _exit, normally, and after a cd (otf2-print takes its time)
            assert otf2_kinds(child / "traces.otf2").count("ENTER") == k
    assert Profile(load_profile(root / "profile.json")).row(f"{PROGRAM}/main/step")["visits"] == 5


def test_children_started_at_once_each_get_a_number_and_whole_data(build_dir, tmp_path):
    n = 16
    proc = run(build_dir, PROGRAM, "parallel", n, cwd=tmp_path, env={"SCOREP_EXPERIMENT_DIRECTORY": "e"})
    assert proc.stderr == ""
    assert proc.stdout.splitlines()[1:] == [f"child {k}" for k in range(1, n + 1)]
    listed = children_listed(tmp_path / "e")
    assert sorted(int(name.split("/")[1].split("_")[0]) for name in listed) == list(range(1, n + 1))
    assert sorted(k for _, k in listed.values()) == list(range(1, n + 1))
    for name, (_, k) in listed.items():
        data = load_profile(tmp_path / "e" / name / "profile.json")
        assert data["experiment"]["partial"] is False
        assert Profile(data).row(f"{PROGRAM}/work")["visits"] == k


def test_a_child_told_to_measure_elsewhere_is_a_run_of_its_own(build_dir, tmp_path):
    proc = run(build_dir, PROGRAM, "elsewhere", cwd=tmp_path, env={"SCOREP_EXPERIMENT_DIRECTORY": "e"})
    assert proc.stderr == "" and proc.stdout.splitlines()[1:] == ["child 2"]
    assert not (tmp_path / "e" / "children").exists()
    assert Profile(load_profile(tmp_path / "other" / "profile.json")).row(f"{PROGRAM}/work")["visits"] == 2


def test_what_a_measured_child_has_to_say_goes_to_its_log_not_onto_the_programs_stderr(build_dir, tmp_path):
    proc = run(build_dir, PROGRAM, "spawn", 2, cwd=tmp_path,
               env={"SCOREP_EXPERIMENT_DIRECTORY": "e", "SCOREP_TOTAL_MEMORY": "bogus"})
    # the tool's own measurement warns, as before; its children's add nothing
    assert proc.stderr.count("SCOREP_TOTAL_MEMORY") == 1 and proc.stderr.count("\n") == 1, proc.stderr
    logs = sorted((tmp_path / "e" / "children").glob("*/scorep.log"))
    assert len(logs) == 3
    for log in logs:
        text = log.read_text()
        assert text.startswith("[Score-P] Warning: ") and "SCOREP_TOTAL_MEMORY" in text, text


# Real programs nobody here wrote, measured unmodified (scorep-exec preloads the core and
# the POSIX I/O adapter into them and into everything they start).

def preloaded(installed_prefix, argv):
    return [str(installed_prefix / "bin" / "scorep-exec"), "--io=posix", "--", *argv]


def measured_env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCOREP_")}
    env.update(TRACING, **extra)
    return env


def whole_experiments(root):
    """Every experiment under root (the root and its children): none partial, profile and trace readable."""
    found = [p.parent for p in root.rglob(".scorep-wrapgen-experiment")]
    for experiment in found:
        data = load_profile(experiment / "profile.json")
        assert data["experiment"]["partial"] is False, experiment
        assert "PARTIAL" not in (experiment / "profile.txt").read_text()
        assert not (experiment / "scorep.log").exists(), (experiment / "scorep.log").read_text()
    return found


def test_git_clone_measured_keeps_every_profile_and_says_nothing(installed_prefix, tmp_path):
    if not shutil.which("git"):
        pytest.skip("git not installed")
    git = ["git", "-c", "user.email=t@example.org", "-c", "user.name=t", "-c", "init.defaultBranch=main"]
    src = tmp_path / "src"
    subprocess.run([*git, "init", "-q", str(src)], check=True)
    (src / "a").write_text("a\n")
    subprocess.run([*git, "-C", str(src), "add", "a"], check=True)
    subprocess.run([*git, "-C", str(src), "commit", "-qm", "one"], check=True)
    work = tmp_path / "work"
    work.mkdir()
    # --no-local: git runs git-upload-pack (through sh), which changes into the repository
    proc = subprocess.run(preloaded(installed_prefix, ["git", "clone", "--no-local", str(src), "dst"]),
                          cwd=work, env=measured_env(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout == "", proc.stderr
    assert proc.stderr == "Cloning into 'dst'...\n"
    assert (work / "dst" / "a").read_text() == "a\n"
    tops = [p for p in work.iterdir() if p.name.startswith("scorep-")]
    assert len(tops) == 1, list(work.iterdir())
    experiments = whole_experiments(tops[0])
    commands = (tops[0] / "children.txt").read_text()
    assert "git-upload-pack" in commands
    assert len(experiments) == 1 + len(commands.splitlines()) >= 3
    for experiment in experiments:
        assert otf2_kinds(experiment / "traces.otf2").count("PROGRAM_END") == 1


def test_sh_that_changes_directory_and_runs_children_measured(installed_prefix, tmp_path):
    """dash ends every run with _exit and changes directory before its first measured call."""
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "file").write_text("hello\n")
    script = 'echo start; cd repo && sh -c "cat file" && sh -c "cat file >/dev/null; echo x"; echo done'
    plain = subprocess.run(["/bin/sh", "-c", script], cwd=tmp_path, capture_output=True, text=True)
    proc = subprocess.run(preloaded(installed_prefix, ["/bin/sh", "-c", script]), cwd=tmp_path,
                          env=measured_env(SCOREP_EXPERIMENT_DIRECTORY="e"), capture_output=True, text=True,
                          timeout=120)
    assert (proc.returncode, proc.stdout, proc.stderr) == (plain.returncode, plain.stdout, plain.stderr)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["e", "repo"]
    assert sorted(p.name for p in (tmp_path / "repo").iterdir()) == ["file"]
    experiments = whole_experiments(tmp_path / "e")
    assert len(experiments) == 1 + len((tmp_path / "e" / "children.txt").read_text().splitlines()) >= 3
