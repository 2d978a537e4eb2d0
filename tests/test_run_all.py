"""tests/run_all.py (what `make check` runs): a line per test with its verdict
and time, a mark every interval while a test runs long, and the totals line
`N passed, N failed, N skipped` as the very last line (CI reads it) — run on
a small directory of tests made up here, with a failing python3 first on PATH
(run_all.py and its pytest run with the configured interpreter)."""
import os
import re
import subprocess
import sys

from conftest import REPO

FAKE_TESTS = '''
import time
import pytest

def test_quick():
    pass

def test_slow():
    time.sleep(2.6)

def test_broken():
    assert 1 == 2

@pytest.mark.skip(reason="made up")
def test_skipped():
    pass

@pytest.fixture
def slow_setup():
    time.sleep(1.3)

def test_slow_setup(slow_setup):
    print("captured, not shown")
'''


# a test marked serial runs in the second pass, alone
MIXED_TESTS = '''
import time
import pytest

def test_beside_one():
    time.sleep(1.5)

def test_beside_two():
    pass

@pytest.mark.serial
def test_alone():
    time.sleep(2.6)
'''


def run_all(tmp_path, *args, passing_only=False, source=FAKE_TESTS):
    tests = tmp_path / "made-up-tests"
    tests.mkdir(exist_ok=True)
    (tests / "test_made_up.py").write_text(source)
    fake = tmp_path / "fake-bin"
    fake.mkdir(exist_ok=True)
    (fake / "python3").write_text("#!/bin/sh\necho python3 from PATH >&2\nexit 1\n")
    (fake / "python3").chmod(0o755)
    env = dict(os.environ, PATH=f"{fake}{os.pathsep}{os.environ['PATH']}", SCOREP_WRAPGEN_TEST_HEARTBEAT="1")
    command = [REPO / "tests" / "run_all.py", tmp_path / "build", *(args or [tests])]
    if passing_only:
        command += ["-k", "quick or slow_setup"]
    return subprocess.run([str(c) for c in command], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)


def verdict_lines(stdout):
    """{test name: (marks written while it ran, verdict, seconds, n, N)}"""
    found = {}
    for line in stdout.splitlines():
        match = re.match(r"\S+::(\w+) ((?:\[\d+ s\] )*)(PASSED|FAILED|SKIPPED|ERROR) \((\d+\.\d) s\).*"
                         r"\[\s*(\d+)/(\d+)\]$", line)
        if match:
            name, marks, verdict, seconds, n, total = match.groups()
            found[name] = (marks.split("] ") if marks else [], verdict, float(seconds), int(n), int(total))
    return found


def test_run_all_prints_each_test_with_its_time_and_ends_with_the_totals(tmp_path):
    proc = run_all(tmp_path)
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert proc.stdout.splitlines()[-1] == "3 passed, 1 failed, 1 skipped"
    lines = verdict_lines(proc.stdout)
    assert sorted(lines) == ["test_broken", "test_quick", "test_skipped", "test_slow", "test_slow_setup"]
    assert sorted(n for *_, n, _ in lines.values()) == [1, 2, 3, 4, 5]
    assert {total for *_, total in lines.values()} == {5}
    assert [lines[t][1] for t in ("test_quick", "test_broken", "test_skipped")] == ["PASSED", "FAILED", "SKIPPED"]
    # the times: the call, and the setup with it
    assert lines["test_quick"][2] < 1.0
    assert 2.6 <= lines["test_slow"][2] < 30
    assert 1.3 <= lines["test_slow_setup"][2] < 30
    # a test running longer than the interval (1 s here, 30 s in make check) says so on its line
    assert len(lines["test_slow"][0]) >= 2 and not lines["test_quick"][0]
    assert len(lines["test_slow_setup"][0]) >= 1
    # the test's own output stays captured; the failure is reported
    assert "captured, not shown" not in proc.stdout
    assert "assert 1 == 2" in proc.stdout


def test_serial_tests_run_alone_after_the_others_and_count_in_the_totals(tmp_path):
    proc = run_all(tmp_path, source=MIXED_TESTS)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert proc.stdout.splitlines()[-1] == "3 passed, 0 failed, 0 skipped"
    first, second = proc.stdout.split("== pass 2 of 2")
    assert first.startswith("== pass 1 of 2")
    beside, alone = verdict_lines(first), verdict_lines(second)
    assert sorted(beside) == ["test_beside_one", "test_beside_two"] and sorted(alone) == ["test_alone"]
    assert sorted(n for *_, n, _ in beside.values()) == [1, 2] and {t for *_, t in beside.values()} == {2}
    assert alone["test_alone"][1:] == ("PASSED", alone["test_alone"][2], 1, 1)
    # the serial pass writes its marks on the running test's line, as a run without workers does
    assert 2.6 <= alone["test_alone"][2] < 30 and len(alone["test_alone"][0]) >= 2
    assert re.search(r"^\.\.\. \S+::test_beside_one \[1 s\]$", first, re.M)
    # the slowest tests of both passes come before the totals line
    slowest = second.split("== the ten slowest tests of the run")[1].splitlines()[1:-1]
    assert [line.split("::")[-1] for line in slowest] == ["test_alone", "test_beside_one", "test_beside_two"]


def test_run_all_exits_zero_when_everything_passes(tmp_path):
    proc = run_all(tmp_path, passing_only=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert proc.stdout.splitlines()[-1] == "2 passed, 0 failed, 0 skipped"
    assert sorted(verdict_lines(proc.stdout)) == ["test_quick", "test_slow_setup"]


def test_run_all_counts_a_selection_of_the_suite(tmp_path):
    proc = run_all(tmp_path, "tests/generator/test_spec_matches_mpi_forum.py", "-k", "stay_few")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    last = proc.stdout.splitlines()[-1]
    lines = verdict_lines(proc.stdout)
    assert lines and last == f"{len(lines)} passed, 0 failed, 0 skipped"


def test_run_all_reports_a_pytest_usage_error_as_a_failure(tmp_path):
    proc = run_all(tmp_path, "--no-such-option")
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[-1] == "0 passed, 1 failed, 0 skipped"


def collected(*args):
    """The node ids pytest would run from the checkout with these arguments."""
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--collect-only", "-q", *args],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return {line for line in proc.stdout.splitlines() if "::" in line}


def test_a_quick_run_leaves_out_the_slow_tests_and_the_full_run_keeps_them():
    where = ["tests/faults/test_faults.py", "tests/trace/test_trace_substrate.py"]
    full = collected(*where)
    quick = collected(*where, "-m", "not slow")
    left_out = full - quick
    assert quick < full
    assert any(t.startswith("tests/faults/test_faults.py::") for t in full)
    assert not any(t.startswith("tests/faults/test_faults.py::") for t in quick)
    assert {t.split("[")[0] for t in left_out if "test_trace_substrate" in t} == {
        "tests/trace/test_trace_substrate.py::test_mpi_trace_larger_than_total_memory_is_complete_on_every_rank"}
    assert any("test_trace_substrate" in t for t in quick)
