"""`make viewer` (part of make check) says what its npm install does and how
long it takes, shows the elapsed time every 10 s while it runs, and on failure
shows the end of its log. Run with a made-up npm first on PATH (it takes 11 s,
or fails) and the meson build taken as present (make -o), so nothing is
downloaded or configured."""
import os
import re
import shutil
import subprocess

import pytest

from conftest import REPO

FAKE_NPM = """#!/bin/sh
# made-up npm: records its arguments, takes its time, installs speedscope's package.json
echo "npm $*"
prefix=$3
sleep "$FAKE_NPM_SECONDS"
[ -n "$FAKE_NPM_FAIL" ] && { echo "npm ERR! made-up failure"; exit 1; }
mkdir -p "$prefix/node_modules/speedscope"
printf '{\\n  "version": "%s"\\n}\\n' "$FAKE_NPM_VERSION" > "$prefix/node_modules/speedscope/package.json"
"""

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make not installed")


def make_viewer(tmp_path, seconds, fail=False):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "npm").write_text(FAKE_NPM)
    (bin_dir / "npm").chmod(0o755)
    version = re.search(r"^SPEEDSCOPE_VERSION = (\S+)$", (REPO / "Makefile").read_text(), re.M).group(1)
    build = tmp_path / "build"
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}", FAKE_NPM_SECONDS=str(seconds),
               FAKE_NPM_VERSION=version, **({"FAKE_NPM_FAIL": "1"} if fail else {}))
    proc = subprocess.run(["make", "-s", "-o", f"{build}/build.ninja", "viewer", f"BUILD={build}"], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=300)
    return proc, build, version


def test_viewer_install_says_what_it_does_and_shows_progress(tmp_path):
    proc, build, version = make_viewer(tmp_path, 11)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    log = build / "speedscope" / "npm-install.log"
    line = next(l for l in proc.stdout.splitlines() if "npm downloads" in l)
    assert "about a minute" in line and str(log) in line
    # the elapsed time while it ran, then its end
    assert re.search(r": 10s done$", line), line
    assert f"speedscope {version}" in proc.stdout and "scorep-view" in proc.stdout
    # npm's own output is in the log, not on the terminal
    assert f"speedscope@{version}" in log.read_text() and "npm install" not in proc.stdout
    assert (build / "speedscope/node_modules/speedscope/package.json").exists()
    # a second run finds it and says so at once
    again, _, _ = make_viewer(tmp_path, 0, fail=True)
    assert again.returncode == 0 and f"speedscope {version}: present" in again.stdout


def test_viewer_install_failure_shows_the_end_of_its_log(tmp_path):
    proc, build, _ = make_viewer(tmp_path, 0, fail=True)
    assert proc.returncode != 0
    assert "failed; the end of" in proc.stderr and "npm ERR! made-up failure" in proc.stderr
    assert not (build / "speedscope/node_modules/speedscope/package.json").exists()
