"""The memory a traced process holds stays within SCOREP_TOTAL_MEMORY (plus a
fixed baseline), however many events it records and whenever MPI_Init comes:
full trace buffers go to a file on the experiment directory's file system,
before MPI_Init too (runtime/trace/README.md, "Memory and flushes"). Where that
file system is itself memory (tmpfs), the trace stops at SCOREP_TOTAL_MEMORY
instead, unless SCOREP_TRACING_MAX_SIZE asks for more.

Peak memory is the kernel's: VmHWM, printed by the program at exit, after the
measurement wrote its data. The trace is checked with otf2-print."""
import collections
import os
import pathlib
import re
import shutil
import subprocess
import tempfile

import pytest

from conftest import MPI_COMPILERS, mpi_build, mpirun
from trace_programs import INCLUDE, HERE, find_library, tracing_env

pytestmark = pytest.mark.skipif(shutil.which("otf2-print") is None, reason="otf2-print not installed")

TOTAL_MEMORY = 4 * 1024 * 1024      # SCOREP_TOTAL_MEMORY of the traced runs
# what tracing adds besides the pool, measured with this program: about 4.5 MiB
# (OTF2 archive and writers, definitions, the location's state)
TRACE_BASELINE = 8 * 1024 * 1024
PAIRS = 1_000_000                   # 32 MB of raw records, 8 times the budget


@pytest.fixture(scope="module")
def busy_test_loop(tmp_path_factory):
    """busy_test_loop.c linked with the MPI adapter, the MPI layer and the core
    (as `scorep mpicc` links it), also when it never calls MPI."""
    build = mpi_build("openmpi")
    libs = [find_library(build, name)
            for name in ("scorep_adapter_mpi", "scorep_mpi_layer", "scorep_measurement")]
    out = tmp_path_factory.mktemp("busy_test_loop") / "busy_test_loop"
    cmd = [MPI_COMPILERS["openmpi"]["c"], "-O2", "-std=c11", f"-I{INCLUDE}",
           str(HERE / "busy_test_loop.c"), "-o", str(out), "-Wl,--no-as-needed"]
    for lib in libs:
        cmd += [str(lib), f"-Wl,-rpath,{lib.parent}"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stderr}"
    return out


def trace_counts(directory):
    """Counter of (ENTER|LEAVE|MEASUREMENT_ON_OFF, region) over all locations,
    as otf2-print lists them."""
    counts = collections.Counter()
    region = re.compile(r'Region: "([^"]*)"')
    with subprocess.Popen(["otf2-print", str(directory / "traces.otf2")], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as proc:
        for line in proc.stdout:
            kind = line.split(" ", 1)[0]
            if kind in ("ENTER", "LEAVE"):
                counts[(kind, region.search(line).group(1))] += 1
            elif kind == "MEASUREMENT_ON_OFF":
                counts[(kind, None)] += 1
        stderr = proc.stderr.read()
    assert proc.returncode == 0, stderr
    return counts


def run_serial(program, directory, pairs, **env):
    """(peak resident bytes, stderr) of one process"""
    full_env = dict(os.environ)
    full_env.update(tracing_env(directory, SCOREP_TOTAL_MEMORY=TOTAL_MEMORY))
    full_env.update({k: str(v) for k, v in env.items()})
    proc = subprocess.run([str(program), str(pairs), "0"], env=full_env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    peak = re.findall(r"vmhwm_kb (\d+)", proc.stdout)
    assert len(peak) == 1, proc.stdout
    return int(peak[0]) * 1024, proc.stderr


def test_events_before_a_late_mpi_init_go_to_disk_and_memory_stays_within_total_memory(
        busy_test_loop, tmp_path):
    """2 ranks record 1M region pairs each before MPI_Init (32 MB each with a
    4 MiB budget), then rank 0 polls MPI_Test 200k times: the peak resident
    memory stays the untraced run's plus SCOREP_TOTAL_MEMORY plus a fixed
    baseline, and the trace holds every event."""
    tests = 200_000

    def peaks(directory, **env):
        proc = mpirun(2, [busy_test_loop, PAIRS, tests], env=tracing_env(directory, **env),
                      cwd=tmp_path, timeout=600)
        return [int(kb) * 1024 for kb in re.findall(r"vmhwm_kb (\d+)", proc.stdout)], proc.stderr

    untraced, _ = peaks(tmp_path / "untraced", SCOREP_ENABLE_TRACING="false",
                        SCOREP_ENABLE_PROFILING="true")
    traced, stderr = peaks(tmp_path / "exp", SCOREP_TOTAL_MEMORY=TOTAL_MEMORY)
    assert len(untraced) == len(traced) == 2
    bound = max(untraced) + TOTAL_MEMORY + TRACE_BASELINE
    assert max(traced) <= bound, (f"peak resident {max(traced)} bytes > {bound} "
                                  f"(untraced {max(untraced)})\n{stderr}")
    counts = trace_counts(tmp_path / "exp")
    assert counts[("ENTER", "setup")] == counts[("LEAVE", "setup")] == 2 * PAIRS
    assert counts[("ENTER", "MPI_Test")] == counts[("LEAVE", "MPI_Test")] == tests
    assert counts[("ENTER", "TRACE_BUFFER_FLUSH")] >= 2, "the ranks should have spilled"
    assert counts[("MEASUREMENT_ON_OFF", None)] == 0


def test_a_program_linked_with_mpi_that_never_calls_mpi_init_stays_within_total_memory(
        busy_test_loop, tmp_path):
    """The MPI layer is linked (so the core waits for MPI_Init to name the
    experiment directory), MPI_Init never comes: 1M region pairs still keep
    the peak within the bound, and the trace is complete."""
    untraced, _ = run_serial(busy_test_loop, tmp_path / "untraced", PAIRS,
                             SCOREP_ENABLE_TRACING="false")
    traced, stderr = run_serial(busy_test_loop, tmp_path / "exp", PAIRS)
    bound = untraced + TOTAL_MEMORY + TRACE_BASELINE
    assert traced <= bound, f"peak resident {traced} bytes > {bound} (untraced {untraced})\n{stderr}"
    assert "in memory" not in stderr, stderr
    counts = trace_counts(tmp_path / "exp")
    assert counts[("ENTER", "setup")] == counts[("LEAVE", "setup")] == PAIRS
    assert counts[("ENTER", "TRACE_BUFFER_FLUSH")] >= 2, "the run should have spilled"


def memory_file_system():
    """A directory on a tmpfs, or None."""
    shm = pathlib.Path("/dev/shm")
    if not shm.is_dir() or not os.access(shm, os.W_OK):
        return None
    with open("/proc/mounts") as mounts:
        if not any(line.split()[1] == "/dev/shm" and line.split()[2] == "tmpfs" for line in mounts):
            return None
    return shm


@pytest.fixture
def tmpfs_dir():
    shm = memory_file_system()
    if shm is None:
        pytest.skip("no writable tmpfs at /dev/shm on this machine")
    directory = pathlib.Path(tempfile.mkdtemp(prefix="scorep-wrapgen-test-", dir=shm))
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


def test_trace_in_tmpfs_stops_at_total_memory_instead_of_spilling_into_memory(
        busy_test_loop, tmpfs_dir):
    """An experiment directory on a tmpfs: a spill would only move the trace
    from the process's memory into the file system's. The trace stops when
    SCOREP_TOTAL_MEMORY is full, says why, and stays readable and balanced;
    what it left in the tmpfs is no bigger than the budget."""
    directory = tmpfs_dir / "exp"
    peak, stderr = run_serial(busy_test_loop, directory, PAIRS)
    assert "tmpfs" in stderr and "SCOREP_TRACING_MAX_SIZE" in stderr, stderr
    assert stderr.count("tracing stops here") == 1, stderr
    counts = trace_counts(directory)
    assert counts[("MEASUREMENT_ON_OFF", None)] == 1
    assert 0 < counts[("ENTER", "setup")] < PAIRS
    assert counts[("ENTER", "setup")] == counts[("LEAVE", "setup")]
    assert counts[("ENTER", "TRACE_BUFFER_FLUSH")] == 0, "nothing may be spilled into memory"
    event_bytes = sum(f.stat().st_size for f in (directory / "traces").glob("*.evt"))
    assert event_bytes <= TOTAL_MEMORY


def test_trace_in_tmpfs_with_tracing_max_size_set_spills_there_and_is_complete(
        busy_test_loop, tmpfs_dir):
    """SCOREP_TRACING_MAX_SIZE set explicitly is the user's word that the
    trace may take that much of the tmpfs."""
    directory = tmpfs_dir / "exp"
    _, stderr = run_serial(busy_test_loop, directory, PAIRS, SCOREP_TRACING_MAX_SIZE="unlimited")
    assert "tracing stops here" not in stderr, stderr
    counts = trace_counts(directory)
    assert counts[("ENTER", "setup")] == counts[("LEAVE", "setup")] == PAIRS
    assert counts[("MEASUREMENT_ON_OFF", None)] == 0
