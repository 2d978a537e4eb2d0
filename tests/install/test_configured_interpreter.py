"""The repository's scripts and the installed commands run with the interpreter
the build was configured with (meson option python, the Makefile's PYTHON,
default /usr/bin/python3), whatever python3 comes first on PATH.

Every test here puts a python3 first on PATH that fails and logs each call (as
a module-loaded interpreter without pytest, Jinja2 or libclang would fail);
a script that still goes through PATH shows up in that log."""
import os
import pathlib
import subprocess

import pytest

from conftest import REPO, build_option

# the repository's scripts, run from the checkout
BENCH_SCRIPTS = sorted(p for p in (REPO / "bench").iterdir()
                       if p.is_file() and os.access(p, os.X_OK) and p.read_bytes().startswith(b"#!"))
SOURCE_SCRIPTS = [REPO / "tools" / "scorep-info", REPO / "tools" / "scorep-trace-export"]
# the build tree's commands, run as the README shows them (build/runtime/mpi_adapter/scorep ...);
# scorep-libwrap finds its generator only where it is installed
BUILD_COMMANDS = ["runtime/mpi_adapter/scorep", "runtime/scorep-score", "tools/scorep-exec",
                  "tools/scorep-view", "runtime/trace/scorep-trace-export"]


@pytest.fixture
def fake_python(tmp_path):
    """(environment with a failing python3 first on PATH, its call log)."""
    fake = tmp_path / "fake-bin"
    fake.mkdir()
    log = tmp_path / "fake-python3.log"
    (fake / "python3").write_text(f'#!/bin/sh\necho "$0 $*" >> "{log}"\n'
                                  'echo "python3 from PATH: this one cannot run the project" >&2\nexit 1\n')
    (fake / "python3").chmod(0o755)
    env = dict(os.environ, PATH=f"{fake}{os.pathsep}{os.environ.get('PATH', '')}")
    # the scenario is real: python3 from that PATH is the failing one
    probe = subprocess.run(["python3", "-c", "pass"], env=env, capture_output=True, text=True)
    assert probe.returncode == 1 and "cannot run the project" in probe.stderr
    log.unlink()
    return env, log


def run(command, env):
    return subprocess.run([str(c) for c in command], env=env, capture_output=True, text=True, timeout=120)


def python_shebang(path):
    first = pathlib.Path(path).read_text(errors="replace").split("\n", 1)[0]
    return first[2:].strip() if first.startswith("#!") and "python" in first else None


def test_repository_scripts_name_a_fixed_interpreter():
    assert len(BENCH_SCRIPTS) >= 8
    for script in BENCH_SCRIPTS + SOURCE_SCRIPTS + [REPO / "tests" / "run_all.py"]:
        assert python_shebang(script) == "/usr/bin/python3", script


@pytest.mark.parametrize("script", BENCH_SCRIPTS, ids=lambda p: p.name)
def test_bench_script_runs_with_another_python3_first_on_path(script, fake_python):
    env, log = fake_python
    proc = run([script, "--help"], env)
    assert proc.returncode == 0, proc.stderr
    # its own description, the docstring's first line
    first_line = script.read_text().split('"""', 2)[1].strip().splitlines()[0]
    assert proc.stdout.splitlines()[0] == first_line
    assert not log.exists(), log.read_text()


def test_source_tree_tools_run_with_another_python3_first_on_path(fake_python):
    env, log = fake_python
    info = run([REPO / "tools" / "scorep-info", "--version"], env)
    assert info.returncode == 0 and info.stdout.startswith("scorep-info (scorep-wrapgen) "), info.stderr
    export = run([REPO / "tools" / "scorep-trace-export", "--help"], env)
    assert export.returncode == 0 and "usage: scorep-trace-export" in export.stdout, export.stderr
    assert not log.exists(), log.read_text()


def test_build_tree_commands_run_with_another_python3_first_on_path(build_dir, fake_python):
    env, log = fake_python
    configured = build_option(build_dir, "python")
    for name in BUILD_COMMANDS:
        command = build_dir / name
        assert python_shebang(command) == configured, command
        proc = run([command, "--help"], env)
        assert proc.returncode == 0 and command.name in proc.stdout, f"{command}: {proc.stdout}{proc.stderr}"
    version = run([build_dir / "runtime/mpi_adapter/scorep", "--version"], env)
    assert version.stdout.startswith("scorep (scorep-wrapgen) "), version.stderr
    assert not log.exists(), log.read_text()


def test_installed_commands_use_the_configured_interpreter(build_dir, installed_prefix, fake_python):
    env, log = fake_python
    configured = build_option(build_dir, "python")
    commands = {p.name: p for p in (installed_prefix / "bin").iterdir() if python_shebang(p)}
    assert {"scorep", "scorep-info", "scorep-score", "scorep-exec", "scorep-view", "scorep-trace-export",
            "scorep-libwrap", "scorep-libwrap-init"} <= set(commands)
    for name, command in sorted(commands.items()):
        assert python_shebang(command) == configured, name
    for name in ("scorep", "scorep-info"):
        proc = run([commands[name], "--version"], env)
        assert proc.returncode == 0 and proc.stdout.startswith(f"{name} (scorep-wrapgen) "), proc.stderr
    for name in sorted(set(commands) - {"scorep", "scorep-info"}):
        proc = run([commands[name], "--help"], env)
        assert proc.returncode == 0 and name in proc.stdout, f"{name}: {proc.stdout}{proc.stderr}"
    assert not log.exists(), log.read_text()


def test_meson_setup_runs_its_probes_with_the_configured_interpreter(build_dir, tmp_path, fake_python):
    # the configure-time MPI probes (configure-checks/*.py) run under the python option
    env, log = fake_python
    proc = subprocess.run(["meson", "setup", str(tmp_path / "build"), "-Dmpi=" + build_option(build_dir, "mpi"),
                           "-Dpython=" + build_option(build_dir, "python")], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert (tmp_path / "build" / "runtime" / "mpi_adapter" / "scorep_mpi_probes.h").exists()
    assert not log.exists(), log.read_text()


def test_demo_script_runs_with_another_python3_first_on_path(build_dir, tmp_path, fake_python):
    # examples/run-demo.sh (make demo) with PYTHON unset, on a build seen through a
    # directory of its own so that the demo's files land in tmp_path
    env, log = fake_python
    env.pop("PYTHON", None)
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    build = tmp_path / "build"
    build.mkdir()
    (build / "runtime").symlink_to(build_dir / "runtime")
    proc = subprocess.run([str(REPO / "examples" / "run-demo.sh"), str(build)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    experiments = list((build / "demo").glob("scorep-halo2d-*"))
    assert len(experiments) == 1
    assert "ranks:     4" in (experiments[0] / "profile.txt").read_text()
    assert (experiments[0] / "trace.json").stat().st_size > 0
    assert not log.exists(), log.read_text()
