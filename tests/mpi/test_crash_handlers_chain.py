"""A crash under measurement looks as it does without: the measurement's
signal handler writes the data recorded so far, then hands the signal to the
handler that was there before (Open MPI's "Process received signal"
backtrace, gfortran's "Backtrace for this error") or to the default action,
with the same siginfo, so the messages and the exit status are those of the
plain run. Each scenario runs three times."""
import json
import re
import subprocess

import pytest

from conftest import MPI_COMPILERS, mpi_build, mpirun
from measure import PROGRAMS, compile_program, per_rank_region, run_measured, scorep

RUNS = 3


def crashed_rank_visits(experiment, rank):
    profile = json.loads((experiment / f"profile.rank{rank}.json").read_text())
    assert profile["experiment"]["partial"] is True
    return {region: counters["visits"] for (r, region), counters in per_rank_region(profile).items() if r == rank}


def signal_lines(stderr):
    """The lines about the signal (the MPI library's report, the launcher's),
    numbers and addresses masked."""
    return sorted({re.sub(r"0x[0-9a-f]+|\d+", "N", line) for line in stderr.splitlines() if "signal" in line.lower()})


@pytest.mark.parametrize("mpi, report", [("openmpi", "Process received signal"),   # Open MPI's handler
                                         ("mpich", "")])   # MPICH: its transport's, if any (UCX: "Caught signal")
def test_mpi_crash_report_is_printed_and_the_crashed_rank_profile_written(mpi, report, tmp_path):
    measured = compile_program(mpi, "segfault.c", tmp_path)
    plain = compile_program(mpi, "segfault.c", tmp_path, instrumented=False)
    for run in range(RUNS):
        workdir = tmp_path / f"run{run}"
        workdir.mkdir()
        plain_proc = mpirun(2, [plain], mpi=mpi, cwd=workdir, check=False)
        proc, experiment = run_measured(mpi, 2, measured, workdir, check=False)
        assert report in plain_proc.stderr and report in proc.stderr, proc.stderr
        assert signal_lines(proc.stderr) == signal_lines(plain_proc.stderr) != [], proc.stderr
        assert proc.returncode == plain_proc.returncode != 0
        assert "rank 1 crashes now" in proc.stdout
        visits = crashed_rank_visits(experiment, 1)
        assert visits.get("MPI_Barrier") == 3 and visits.get("MPI_Init") == 1, visits


def gfortran_backtrace(stderr):
    """gfortran's report: the signal line and the frames of the program's source."""
    assert "Program received signal SIGSEGV" in stderr, stderr
    assert "Backtrace for this error" in stderr
    return [line.strip() for line in stderr.splitlines() if line.strip().startswith("at ") and ".f90:" in line]


def test_gfortran_crash_backtrace_is_printed_and_the_profile_written(tmp_path):
    source = PROGRAMS / "crash_serial.f90"
    mpi_build("openmpi")   # fails with a hint when the Open MPI build is missing
    plain, measured = tmp_path / "plain", tmp_path / "measured"
    subprocess.run(["gfortran", "-g", "-O0", str(source), "-o", str(plain)], check=True, cwd=tmp_path)
    subprocess.run(scorep("openmpi") + ["--nompi", "gfortran", "-g", "-O0", str(source), "-o", str(measured)],
                   check=True, cwd=tmp_path, capture_output=True)
    for run in range(RUNS):
        experiment = tmp_path / f"e{run}"
        plain_proc = subprocess.run([plain], capture_output=True, text=True)
        proc = subprocess.run([measured], capture_output=True, text=True,
                              env={"SCOREP_EXPERIMENT_DIRECTORY": str(experiment), "PATH": "/usr/bin:/bin"})
        assert proc.returncode == plain_proc.returncode == -11
        assert proc.stdout == plain_proc.stdout == "total 10\n"
        frames = gfortran_backtrace(proc.stderr)
        assert frames == gfortran_backtrace(plain_proc.stderr) and frames, proc.stderr
        profile = json.loads((experiment / "profile.json").read_text())
        assert profile["experiment"]["partial"] is True
        visits = {}
        regions = {r["id"]: r["name"] for r in profile["regions"]}
        paths = {c["id"]: c["region"] for c in profile["callpaths"]}
        for row in profile["rows"]:
            name = regions[paths[row["callpath"]]]
            visits[name] = visits.get(name, 0) + row["visits"]
        assert visits.get("work") == 4, visits


def test_gfortran_mpi_crash_backtrace_is_printed_and_the_crashed_rank_profile_written(tmp_path):
    compiler = MPI_COMPILERS["openmpi"]["f90"]
    source = PROGRAMS / "segfault_f.f90"
    plain, measured = tmp_path / "plain", tmp_path / "measured"
    subprocess.run([compiler, "-g", str(source), "-o", str(plain)], check=True, cwd=tmp_path)
    subprocess.run(scorep("openmpi") + [compiler, "-g", str(source), "-o", str(measured)], check=True,
                   cwd=tmp_path, capture_output=True)
    for run in range(RUNS):
        workdir = tmp_path / f"run{run}"
        workdir.mkdir()
        plain_proc = mpirun(2, [plain], cwd=workdir, check=False)
        proc, experiment = run_measured("openmpi", 2, measured, workdir, check=False)
        assert proc.returncode == plain_proc.returncode != 0
        frames = gfortran_backtrace(proc.stderr)
        assert frames == gfortran_backtrace(plain_proc.stderr) and frames, proc.stderr
        visits = crashed_rank_visits(experiment, 1)
        assert visits.get("MPI_Barrier") == 3, visits
