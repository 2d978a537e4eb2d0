"""The installed commands find the installation's parts through the layout
meson was configured with, not a fixed bin/../share: a build with bindir,
datadir and includedir away from their defaults (-Dmpi=none: the core and the
commands, seconds to build), installed under a destdir and then moved, still
finds its data directory (the version, the generator package), its include
directory (a library wrapper is built against it) and the wrapper layout
under its prefix (the default of make install and of the lookups)."""
import re
import shutil
import subprocess

import pytest

from conftest import REPO, install_build

LAYOUT = {"bindir": "tools/bin", "datadir": "lib/data", "includedir": "headers/scorep"}


@pytest.fixture(scope="module")
def moved_layout(tmp_path_factory):
    work = tmp_path_factory.mktemp("layout")
    build = work / "build"
    subprocess.run(["meson", "setup", str(build), "-Dmpi=none", "--prefix=/opt/scorep-wrapgen",
                    *(f"-D{k}={v}" for k, v in LAYOUT.items())],
                   cwd=REPO, check=True, capture_output=True, text=True)
    subprocess.run(["ninja", "-C", str(build)], check=True, capture_output=True, text=True)
    installed = install_build(build, work / "destdir")
    moved = work / "moved"
    shutil.copytree(installed, moved, symlinks=True)
    shutil.rmtree(work / "destdir")
    return moved


def test_installed_scorep_info_reads_the_version_from_the_configured_datadir(moved_layout):
    assert (moved_layout / LAYOUT["datadir"] / "scorep-wrapgen" / "VERSION").is_file()
    version = re.search(r"project\([^)]*?\bversion\s*:\s*'([^']+)'", (REPO / "meson.build").read_text()).group(1)
    out = subprocess.run([str(moved_layout / LAYOUT["bindir"] / "scorep-info"), "--version"],
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() == f"scorep-info (scorep-wrapgen) {version}"


def test_library_wrapper_is_built_against_the_configured_includedir_and_found_after_install(moved_layout,
                                                                                           tmp_path):
    bindir = moved_layout / LAYOUT["bindir"]
    work = tmp_path / "wrap-z"
    subprocess.run([str(bindir / "scorep-libwrap-init"), "--name", "z", "-x", "c", "--libs", "-lz",
                    "--header", "zlib.h", str(work)], check=True, capture_output=True, text=True)
    for target in ((), ("install",)):
        make = subprocess.run(["make", "-C", str(work), *target], capture_output=True, text=True)
        assert make.returncode == 0, make.stdout + make.stderr
    # the wrapper's sources include the core's headers from there (the build above succeeded)
    assert f"SCOREP_WRAPGEN_INCLUDEDIR = {moved_layout / LAYOUT['includedir']}\n" in (work / "Makefile").read_text()
    assert (moved_layout / "share" / "scorep-wrapgen" / "libwrap" / "z.libwrap.json").is_file()
    summary = subprocess.run([str(bindir / "scorep-info"), "libwrap-summary", "z"],
                             capture_output=True, text=True, check=True).stdout
    assert str(moved_layout / "share" / "scorep-wrapgen" / "libwrap" / "z.libwrap.json") in summary
