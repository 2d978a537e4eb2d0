"""A real program nobody here wrote that handles SIGTERM itself, after the
measurement started: GNU sort installs a handler that removes its temporary
files, restores the default action and raises the signal again. Measured on
the unmodified binary (scorep-exec, preloaded) and signalled mid-run, it must
end as it does unmeasured (killed by SIGTERM, its handler having run) and
leave a readable profile and trace, each time."""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import run_faults  # noqa: E402

RUNS = 3
LINES = 1_000_000


@pytest.fixture(scope="module")
def unsorted():
    if not shutil.which("sort") or not shutil.which("otf2-print"):
        pytest.skip("needs GNU sort and otf2-print")
    # a fixed permutation: i * 7919 mod LINES (7919 is prime, LINES is not a multiple)
    return "".join(f"{i * 7919 % LINES}\n" for i in range(LINES))


def sort_until_sigterm(argv, workdir, env, text):
    """Feeds sort text on its standard input but does not close it, so sort
    is still reading when it gets SIGTERM, with temporary files made (its
    buffer is 1 MiB); returns (status, temporary files before the signal,
    temporary files left, output)."""
    tmp = workdir / "tmp"
    tmp.mkdir()
    proc = subprocess.Popen(argv + ["-S", "1M", "-T", str(tmp), "-o", str(workdir / "out.txt")], env=env,
                            cwd=workdir, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    proc.stdin.write(text)
    proc.stdin.flush()
    deadline = time.time() + 60
    while len(list(tmp.iterdir())) < 2 and time.time() < deadline:
        time.sleep(0.05)
    made = sorted(p.name for p in tmp.iterdir())
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=120)
    return proc.returncode, made, sorted(p.name for p in tmp.iterdir()), stdout + stderr


def test_sigterm_to_sort_preloaded_runs_its_handler_and_keeps_the_profile_and_trace(installed_prefix, unsorted,
                                                                                     tmp_path):
    (tmp_path / "plain").mkdir()
    plain_status, made, plain_left, plain_output = sort_until_sigterm(["sort"], tmp_path / "plain",
                                                                      dict(os.environ), unsorted)
    assert plain_status == -signal.SIGTERM and len(made) >= 2 and plain_left == [] and plain_output == ""
    for run in range(RUNS):
        workdir = tmp_path / f"run{run}"
        workdir.mkdir()
        experiment = workdir / "experiment"
        env = {k: v for k, v in os.environ.items() if not k.startswith("SCOREP_")}
        env.update(SCOREP_EXPERIMENT_DIRECTORY=str(experiment), SCOREP_ENABLE_TRACING="true")
        argv = [str(installed_prefix / "bin" / "scorep-exec"), "--io=posix,isoc", "--memory", "--", "sort"]
        status, made, left, output = sort_until_sigterm(argv, workdir, env, unsorted)
        detail = f"run {run + 1}: {output[-2000:]}"
        assert status == plain_status, detail
        assert len(made) >= 2 and left == plain_left, detail   # its handler removed its temporary files
        assert output == plain_output, detail
        profiles, traces = run_faults.survivors(experiment)   # a serial run's trace counts for every rank
        assert profiles == {0} and 0 in traces, detail + f" files: {sorted(os.listdir(experiment))}"
        profile = json.loads((experiment / "profile.json").read_text())
        assert profile["experiment"]["partial"] is True
        assert {"fread_unlocked", "malloc"} <= {r["name"] for r in profile["regions"]}   # what sort did
        shutil.rmtree(workdir)
