#!/usr/bin/python3
"""Run every test (pytest drives the C unit tests too) and end with the totals line
`N passed, N failed, N skipped` that CI reads.

    tests/run_all.py [build-dir] [pytest arguments...]

Two passes: first every test not marked `serial` on 2 workers at once
(pytest-xdist, whole files per worker: a file's module fixtures are built once),
then the `serial` ones (tests/conftest.py, SERIAL: they measure wall time or count
what happens within a time) one at a time on an otherwise idle machine.
$SCOREP_WRAPGEN_TEST_WORKERS sets the number of workers; 1, or no pytest-xdist,
runs everything in one pass, one test at a time, as the second pass does.

Progress: one line per test, `tests/file.py::test PASSED (12.3 s) [n/N]` (its
time with the setup). In the serial pass the name is printed when the test
starts and the verdict when it ends; a test still running after 30 s adds
`[30 s]`, `[60 s]`, ... to its line ($SCOREP_WRAPGEN_TEST_HEARTBEAT sets the
interval), so that no minute passes without output. In the parallel pass the
line is printed when the test ends, with the same marks for the intervals it
ran past, each of which also gets a line `... tests/file.py::test [30 s]` while
it runs. Each pass lists its ten slowest steps; the ten slowest tests of the
whole run follow at the end, before the totals line.

This file is also the pytest plugin that does this (pytest -p run_all, with
tests/ on sys.path; main() starts pytest so)."""
import importlib.util
import os
import pathlib
import shlex
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent
HEARTBEAT = max(0.5, float(os.environ.get("SCOREP_WRAPGEN_TEST_HEARTBEAT") or 30))
WORKERS = int(os.environ.get("SCOREP_WRAPGEN_TEST_WORKERS") or 2)


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


class ParallelProgress:
    """The progress of the parallel pass, in its controller process: the
    workers run the tests (their own output goes nowhere), the controller
    gets each test's start and reports, so a test's line is printed when it
    ends, and the heartbeat names each test still running, every interval."""

    def __init__(self, fd):
        self.fd = fd
        self.lock = threading.Lock()
        self.running = {}   # node id -> [started, marks written]
        self.done = 0
        self.session = None
        threading.Thread(target=self.run, daemon=True).start()

    def write(self, text):
        try:
            os.write(self.fd, text.encode())
        except OSError:
            pass

    def start(self, nodeid):
        with self.lock:
            self.running[nodeid] = [time.monotonic(), 0]

    def run(self):
        while True:
            time.sleep(min(1.0, HEARTBEAT / 4))
            with self.lock:
                now = time.monotonic()
                for nodeid, state in self.running.items():
                    if now - state[0] >= (state[1] + 1) * HEARTBEAT:
                        state[1] += 1
                        self.write(f"... {nodeid} [{state[1] * HEARTBEAT:g} s]\n")

    def verdict(self, nodeid, word):
        """The test's line: the marks of the intervals it ran past, its
        verdict and time, [n/N]."""
        with self.lock:
            marks = self.running.pop(nodeid, [0, 0])[1]
            self.done += 1
            total = getattr(self.session, "testscollected", None) or "?"
            ticks = "".join(f"[{(i + 1) * HEARTBEAT:g} s] " for i in range(marks))
            self.write(f"{nodeid} {ticks}{word} [{self.done}/{total}]\n")

    def note(self, nodeid, word):
        """A line for what comes after the verdict (an error at teardown)."""
        with self.lock:
            self.write(f"{nodeid} {word}\n")


_heartbeat = None
_parallel = None
_setup_seconds = {}
_running = None   # the test whose line is open: its verdict gets the time


def pytest_configure(config):
    global _heartbeat, _parallel
    if hasattr(config, "workerinput"):
        return   # an xdist worker: the controller reports
    if getattr(config.option, "dist", "no") != "no":
        if _parallel is None:
            _parallel = ParallelProgress(os.dup(sys.stdout.fileno()))
    elif _heartbeat is None:
        _heartbeat = Heartbeat(os.dup(sys.stdout.fileno()))


def pytest_sessionstart(session):
    if _parallel is not None:
        _parallel.session = session


@pytest.hookimpl(optionalhook=True)
def pytest_testnodeready(node):
    """(xdist, in the controller, once a worker has its options: -v stays
    theirs) pytest's own line per test (its name at the start, "[gw0] PASSED"
    at the end) would interleave between workers: this plugin's lines replace
    it; the summaries at the end stay pytest's."""
    config = node.config
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if _parallel is not None and reporter is not None:
        config.option.verbose = 0
        reporter.showfspath = False
        reporter._show_progress_info = False


@pytest.hookimpl(trylast=True)
def pytest_runtest_logstart(nodeid, location):
    global _running
    if _parallel is not None:
        _parallel.start(nodeid)
    elif _heartbeat is not None:
        _running = nodeid
        _heartbeat.start()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_logreport(report):
    if report.when == "setup":
        _setup_seconds[report.nodeid] = report.duration
    if _parallel is not None:
        status = _verdict(report)
        if status is not None:
            _parallel.verdict(report.nodeid, status[2])
        elif report.when == "teardown" and report.failed:
            _parallel.note(report.nodeid, "ERROR at teardown")
        if report.when == "teardown":
            _setup_seconds.pop(report.nodeid, None)
    # the verdict follows on the test's line: no more ticks after it
    elif _heartbeat is not None and (report.when == "call" or report.outcome != "passed"):
        _heartbeat.stop()


def pytest_runtest_logfinish(nodeid, location):
    global _running
    if _parallel is not None:
        return   # the teardown report comes after this under xdist
    _running = None
    if _heartbeat is not None:
        _heartbeat.stop()
    _setup_seconds.pop(nodeid, None)


def _verdict(report):
    """(category, letter, word) of the report that decides a test's verdict
    (its call, or its setup when that did not pass), the word with the test's
    time (setup and call); None for the other reports."""
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


def pytest_report_teststatus(report, config):
    """The verbose verdict with the test's time (setup and call), on the
    test's line only (the summaries at the end keep pytest's words). In the
    parallel pass pytest prints nothing per test: this plugin's lines do."""
    if _parallel is not None:
        status = _verdict(report)
        if status is not None:
            return status[0], "", ""
        if report.when == "teardown" and report.failed:
            return "error", "", ""
        return None
    if report.nodeid != _running:
        return None
    return _verdict(report)


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


def merge(parts, results):
    """The passes' JUnit XML files as one, <build>/test-results.xml."""
    merged = ET.Element("testsuites")
    for part in parts:
        if part.exists():
            merged.extend(ET.parse(part).getroot().iter("testsuite"))
            part.unlink()
    results.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(merged).write(results, encoding="utf-8", xml_declaration=True)


def slowest(results, count=10):
    """The lines of the slowest tests of the run (setup, call and teardown)."""
    cases = []
    for case in ET.parse(results).getroot().iter("testcase"):
        cases.append((float(case.get("time") or 0), f"{case.get('classname')}::{case.get('name')}"))
    cases.sort(reverse=True)
    return [f"{seconds:8.1f} s  {name}" for seconds, name in cases[:count]]


def marker_expression(args):
    """(args without -m EXPR, EXPR or None): each pass adds its own part."""
    rest, expression = [], None
    i = 0
    while i < len(args):
        if args[i] == "-m" and i + 1 < len(args):
            expression = args[i + 1]
            i += 2
            continue
        rest.append(args[i])
        i += 1
    return rest, expression


def main():
    build = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "build").resolve()
    results = build / "test-results.xml"
    if results.exists():
        results.unlink()   # the totals are this run's, never an earlier one's
    tests_dir = str(pathlib.Path(__file__).resolve().parent)
    env = dict(os.environ, SCOREP_WRAPGEN_BUILD=str(build))
    args, expression = marker_expression(sys.argv[2:])
    workers = WORKERS if importlib.util.find_spec("xdist") is not None else 1
    if workers > 1:
        passes = [("parallel", f"== pass 1 of 2: the tests not marked serial, on {workers} workers (pytest-xdist); "
                   f"a test's line when it ends, and a line every {HEARTBEAT:g} s for each test still running",
                   ["-n", str(workers), "--dist", "loadfile"], "not serial"),
                  ("serial", "== pass 2 of 2: the tests marked serial (tests/conftest.py, SERIAL), one at a time: "
                   f"each line its name, its verdict and time when it ends; a test still running adds "
                   f"[{HEARTBEAT:g} s], [{2 * HEARTBEAT:g} s], ...", [], "serial")]
    else:
        passes = [("all", "== pytest: one line per test, its verdict and time when it ends; "
                   f"a test still running adds [{HEARTBEAT:g} s], [{2 * HEARTBEAT:g} s], ...", [], None)]
    # pytest as `python3 -m pytest` does, with this file importable as its plugin
    # (tests/ on sys.path of that process only, not in its children's PYTHONPATH)
    boot = f"import sys; sys.path.insert(1, {tests_dir!r}); import pytest; sys.exit(pytest.console_main())"
    codes, parts = [], []
    for name, header, options, selection in passes:
        print(header, flush=True)
        part = build / f"test-results.{name}.xml"
        if part.exists():
            part.unlink()
        parts.append(part)
        marks = ([] if selection is None and expression is None else
                 ["-m", selection if expression is None else
                  expression if selection is None else f"({expression}) and {selection}"])
        code = subprocess.call([sys.executable, "-c", boot, "-p", "no:cacheprovider", "-p", "run_all", "-v",
                                "-o", "console_output_style=count", "--durations=10", f"--junitxml={part}",
                                *options, *marks, *args], cwd=REPO, env=env)
        codes.append(code)
        if code in (2, 3, 4):
            break   # interrupted, an internal error or a usage error: the next pass would be the same
    merge(parts, results)
    passed, failed, skipped = totals(results)
    # 5: this pass had no tests (a selection of the serial ones only, say)
    if (any(code not in (0, 1, 5) for code in codes) or all(code == 5 for code in codes)) and failed == 0:
        failed = 1   # pytest itself failed (usage error, collection crash, no tests)
    lines = slowest(results)
    if len(passes) > 1 and lines:
        print("== the ten slowest tests of the run (setup, call and teardown):", flush=True)
        print("\n".join(lines), flush=True)
    print(f"{passed} passed, {failed} failed, {skipped} skipped", flush=True)
    return 0 if all(code in (0, 5) for code in codes) and failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
