"""The release tarball: `make dist` makes scorep-wrapgen-<version>.tar.gz from
the committed tree; unpacked, `make demo` builds and runs the demo with the
generator's dependencies hidden (importing jinja2 or clang fails and is
logged; the log must stay empty), and its generated/ is the repository's.
One unpacked build serves every check. Kept lean: no Fortran compiler (FC),
Open MPI only."""
import json
import os
import re
import subprocess
import sys
import tarfile

import pytest

from conftest import REPO

HIDDEN = ("jinja2", "clang")
STUB = '''import os, sys
with open(os.environ["HIDDEN_IMPORT_LOG"], "a") as log:
    log.write("{name} imported by " + repr(sys.argv) + "\\n")
raise ImportError("{name} is hidden: a build from the release tarball must not need it")
'''


def project_version():
    text = (REPO / "meson.build").read_text()
    return re.search(r"project\([^)]*?\bversion\s*:\s*'([^']+)'", text).group(1)


@pytest.fixture(scope="module")
def tarball(build_dir):
    proc = subprocess.run(["make", "-C", str(REPO), "dist", f"BUILD={build_dir}"], capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    path = build_dir / "meson-dist" / f"scorep-wrapgen-{project_version()}.tar.gz"
    assert path.is_file(), proc.stdout
    return path


@pytest.fixture(scope="module")
def hidden_env(tmp_path_factory):
    """An environment in which every Python interpreter fails to import
    jinja2 and clang (stub packages first on PYTHONPATH), logging each try."""
    root = tmp_path_factory.mktemp("hidden")
    for name in HIDDEN:
        (root / "stubs" / name).mkdir(parents=True)
        (root / "stubs" / name / "__init__.py").write_text(STUB.format(name=name))
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCOREP_")}
    env.update({"PYTHONPATH": str(root / "stubs"), "HIDDEN_IMPORT_LOG": str(root / "imports.log"),
                "FC": "false"})   # no Fortran adapters: the demo is C, the test stays short
    return env, root / "imports.log"


@pytest.fixture(scope="module")
def unpacked_demo(tarball, hidden_env, tmp_path_factory):
    env, log = hidden_env
    work = tmp_path_factory.mktemp("dist")
    with tarfile.open(tarball) as archive:
        for member in archive.getmembers():   # our own tarball, but check anyway
            assert not member.name.startswith("/") and ".." not in member.name.split("/"), member.name
        archive.extractall(work)
    tree = work / tarball.name[:-len(".tar.gz")]
    proc = subprocess.run(["make", "demo", "BUILD=build", "MPI=openmpi"], cwd=tree, env=env,
                          capture_output=True, text=True, timeout=900)
    return tree, proc, log


def test_hidden_modules_cannot_be_imported_by_the_builds_interpreter(hidden_env, tmp_path):
    env, _ = hidden_env
    env = dict(env, HIDDEN_IMPORT_LOG=str(tmp_path / "imports.log"))
    for python in ("python3", "/usr/bin/python3"):
        for name in HIDDEN:
            proc = subprocess.run([python, "-c", f"import {name}"], env=env, capture_output=True, text=True)
            assert proc.returncode != 0 and "is hidden" in proc.stderr
    assert (tmp_path / "imports.log").read_text().count("imported by") == 2 * len(HIDDEN)


def test_demo_builds_and_runs_from_the_tarball_without_jinja2_or_libclang(unpacked_demo):
    tree, proc, log = unpacked_demo
    assert proc.returncode == 0, proc.stdout[-5000:] + proc.stderr[-5000:]
    assert not log.exists(), "the build tried to import: " + log.read_text()
    # the demo ran measured on 4 ranks: its report and trace export are there
    experiments = sorted((tree / "build" / "demo").glob("scorep-halo2d-*"))
    assert len(experiments) == 1
    report = (experiments[0] / "profile.txt").read_text()
    assert "ranks:     4" in report
    tree_section = report.split("Call tree", 1)[1].split("MPI summary", 1)[0]
    for region in ("MPI_Waitall", "MPI_Isend", "MPI_Allreduce"):
        assert region in tree_section
    assert json.loads((experiments[0] / "trace.json").read_text())["otherData"]["messages"] > 0


def test_tarball_generated_tree_equals_the_repositorys(tarball):
    listing = subprocess.run(["git", "-C", str(REPO), "ls-tree", "-r", "HEAD", "generated"],
                             capture_output=True, text=True, check=True).stdout
    committed = {}
    for line in listing.splitlines():
        meta, path = line.split("\t", 1)
        committed[path] = meta.split()[2]
    assert len(committed) > 50
    prefix = tarball.name[:-len(".tar.gz")] + "/"
    shipped = {}
    with tarfile.open(tarball) as archive:
        for member in archive.getmembers():
            if member.isfile() and member.name.startswith(prefix + "generated/"):
                shipped[member.name[len(prefix):]] = archive.extractfile(member).read()
    assert sorted(shipped) == sorted(committed)
    for path, blob in committed.items():
        content = subprocess.run(["git", "-C", str(REPO), "cat-file", "blob", blob], capture_output=True,
                                 check=True).stdout
        assert shipped[path] == content, path


def test_version_comes_from_meson_build(tarball, unpacked_demo, build_dir):
    version = project_version()
    assert tarball.name == f"scorep-wrapgen-{version}.tar.gz"
    tree, proc, _ = unpacked_demo
    assert proc.returncode == 0
    intro = json.loads((build_dir / "meson-info" / "intro-projectinfo.json").read_text())
    assert intro["version"] == version
    for command in (tree / "build" / "runtime" / "mpi_adapter" / "scorep", build_dir / "runtime" / "mpi_adapter" /
                    "scorep"):
        out = subprocess.run([sys.executable, str(command), "--version"], capture_output=True, text=True)
        assert out.stdout.strip() == f"scorep (scorep-wrapgen) {version}"
    for info in (tree / "tools" / "scorep-info", REPO / "tools" / "scorep-info"):
        out = subprocess.run([sys.executable, str(info), "--version"], capture_output=True, text=True)
        assert out.stdout.strip() == f"scorep-info (scorep-wrapgen) {version}"


def test_installed_commands_show_the_version(installed_prefix):
    version = project_version()
    assert (installed_prefix / "share" / "scorep-wrapgen" / "VERSION").read_text().strip() == version
    for command, name in (("scorep", "scorep"), ("scorep-info", "scorep-info")):
        out = subprocess.run([str(installed_prefix / "bin" / command), "--version"], capture_output=True, text=True)
        assert out.stdout.strip() == f"{name} (scorep-wrapgen) {version}"
