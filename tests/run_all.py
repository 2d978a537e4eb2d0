#!/usr/bin/python3
"""Run every test (pytest drives the C unit tests too) and end with the totals line
`N passed, N failed, N skipped` that CI reads.

    tests/run_all.py [build-dir] [pytest arguments...]

Progress: one line per test as it runs, `[n/N] tests/file.py::test PASSED (12.3 s)`
(the name is printed when the test starts, the verdict and its time, setup
included, when it ends); a test still running after 30 s adds `[30 s]`,
`[60 s]`, ... to its line ($SCOREP_WRAPGEN_TEST_HEARTBEAT sets the interval), so that no minute passes without output. The ten
slowest steps are listed at the end, before the totals line.

This file is also the pytest plugin that does this (pytest -p run_all, with
tests/ on sys.path; main() starts pytest so)."""
import os
import pathlib
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent
HEARTBEAT = max(0.5, float(os.environ.get("SCOREP_WRAPGEN_TEST_HEARTBEAT") or 30))


# ---- the plugin ---------------------------------------------------------------------------


class Heartbeat:
    """Appends `[30 s]` to the running test's line every HEARTBEAT seconds.
    pytest captures the test's own output at file-descriptor level, so it writes
    to a copy of the terminal's descriptor taken before any test runs."""

    def __init__(self, fd):
        self.fd = fd
        self.lock = threading.Lock()
        self.started = None
        threading.Thread(target=self.run, daemon=True).start()

    def start(self):
        with self.lock:
            self.started = time.monotonic()

    def stop(self):
        with self.lock:
            self.started = None

    def run(self):
        ticks = 0
        current = None
        while True:
            time.sleep(min(1.0, HEARTBEAT / 4))
            with self.lock:
                if self.started is None:
                    continue
                if self.started != current:
                    current, ticks = self.started, 0
                if time.monotonic() - self.started >= (ticks + 1) * HEARTBEAT:
                    ticks += 1
                    try:
                        os.write(self.fd, f"[{ticks * HEARTBEAT:g} s] ".encode())
                    except OSError:   # the reader has gone: pytest will notice it too
                        return


_heartbeat = None
_setup_seconds = {}
_running = None   # the test whose line is open: its verdict gets the time


def pytest_configure(config):
    global _heartbeat
    if _heartbeat is None:
        _heartbeat = Heartbeat(os.dup(sys.stdout.fileno()))


@pytest.hookimpl(trylast=True)
def pytest_runtest_logstart(nodeid, location):
    global _running
    _running = nodeid
    _heartbeat.start()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_logreport(report):
    if report.when == "setup":
        _setup_seconds[report.nodeid] = report.duration
    # the verdict follows on the test's line: no more ticks after it
    if report.when == "call" or report.outcome != "passed":
        _heartbeat.stop()


def pytest_runtest_logfinish(nodeid, location):
    global _running
    _running = None
    _heartbeat.stop()
    _setup_seconds.pop(nodeid, None)


def pytest_report_teststatus(report, config):
    """The verbose verdict with the test's time (setup and call), on the
    test's line only (the summaries at the end keep pytest's words)."""
    if report.nodeid != _running:
        return None
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        seconds = report.duration + (_setup_seconds.get(report.nodeid, 0.0) if report.when == "call" else 0.0)
        if hasattr(report, "wasxfail"):
            word = "XPASS" if report.passed else "XFAIL"
            category = "xpassed" if report.passed else "xfailed"
            letter = "X" if report.passed else "x"
        elif report.skipped:
            word, category, letter = "SKIPPED", "skipped", "s"
        elif report.failed:
            word, category, letter = ("ERROR", "error", "E") if report.when == "setup" else ("FAILED", "failed", "F")
        else:
            word, category, letter = "PASSED", "passed", "."
        return category, letter, f"{word} ({seconds:.1f} s)"
    return None


# ---- the command ----------------------------------------------------------------------------


def totals(results):
    passed = failed = skipped = 0
    if results.exists():
        for suite in ET.parse(results).getroot().iter("testsuite"):
            total = int(suite.get("tests", 0))
            bad = int(suite.get("failures", 0)) + int(suite.get("errors", 0))
            skip = int(suite.get("skipped", 0))
            passed += total - bad - skip
            failed += bad
            skipped += skip
    return passed, failed, skipped


def main():
    build = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "build").resolve()
    results = build / "test-results.xml"
    if results.exists():
        results.unlink()   # the totals are this run's, never an earlier one's
    tests_dir = str(pathlib.Path(__file__).resolve().parent)
    env = dict(os.environ, SCOREP_WRAPGEN_BUILD=str(build))
    print("== pytest: one line per test, its verdict and time when it ends; "
          "a test still running adds [30 s], [60 s], ...", flush=True)
    # pytest as `python3 -m pytest` does, with this file importable as its plugin
    # (tests/ on sys.path of that process only, not in its children's PYTHONPATH)
    boot = f"import sys; sys.path.insert(1, {tests_dir!r}); import pytest; sys.exit(pytest.console_main())"
    code = subprocess.call([sys.executable, "-c", boot, "-p", "no:cacheprovider", "-p", "run_all", "-v",
                            "-o", "console_output_style=count", "--durations=10",
                            f"--junitxml={results}", *sys.argv[2:]], cwd=REPO, env=env)
    passed, failed, skipped = totals(results)
    if code not in (0, 1) and failed == 0:
        failed = 1   # pytest itself failed (usage error, collection crash, no tests)
    print(f"{passed} passed, {failed} failed, {skipped} skipped", flush=True)
    return 0 if code == 0 and failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
