"""A rank that MPI's fatal error handler ends (MPI_ERRORS_ARE_FATAL on a
window or a communicator) leaves a partial profile of what it recorded, like a
rank ended by a signal. Open MPI ends it with _exit (no exit handler runs: the
adapter's _exit writes the data). MPICH ends a rank after a window error
with exit() (its exit handler writes the data), but after a communicator
error it first tells its launcher to abort the job (PMI "cmd=abort"), and
hydra sends SIGTERM and SIGKILL back to back to every rank, the erring one
included, before anything of ours runs: that case is a known gap."""
import json

import pytest

from conftest import mpi_build
from measure import compile_program, per_rank_region, run_measured

RANKS = 2   # rank 1 makes the erroneous call (tests/mpi/programs/fatal_error.c)
BEFORE = {"win": {"MPI_Barrier": 3, "MPI_Win_create": 1, "MPI_Win_set_errhandler": 1, "MPI_Win_fence": 1,
                  "MPI_Put": 1},
          "comm": {"MPI_Barrier": 3, "MPI_Comm_set_errhandler": 1, "MPI_Bcast": 2, "MPI_Send": 1}}


def ended_rank_profile(mpi, tmp_path, exe, mode, env=None):
    proc, experiment = run_measured(mpi, RANKS, exe, tmp_path, env=env, args=[mode], check=False)
    assert proc.returncode != 0
    assert "not reached on rank 1" not in proc.stdout
    written = experiment / "profile.rank1.json"
    assert written.exists(), (sorted(p.name for p in experiment.iterdir()), proc.stderr)
    return json.loads(written.read_text())


def check(profile, mode):
    assert profile["experiment"]["partial"] is True
    assert [loc["rank"] for loc in profile["locations"]] == [1]
    visits = {region: counters["visits"] for (rank, region), counters in per_rank_region(profile).items()}
    for region, count in BEFORE[mode].items():
        assert visits.get(region) == count, (region, visits)
    assert visits.get("MPI_Init") == 1
    assert "MPI_Finalize" not in visits


MPICH_COMM_GAP = pytest.mark.xfail(strict=True, reason="MPICH aborts the job through its launcher "
                                   "before the rank can write (docs/MPI_ADAPTER.md)")


@pytest.mark.parametrize("mpi, mode", [("openmpi", "win"), ("openmpi", "comm"), ("mpich", "win"),
                                       pytest.param("mpich", "comm", marks=MPICH_COMM_GAP)])
def test_rank_ended_by_fatal_error_handler_leaves_partial_profile(mpi, mode, tmp_path):
    exe = compile_program(mpi, "fatal_error.c", tmp_path)
    check(ended_rank_profile(mpi, tmp_path, exe, mode), mode)


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_preloaded_adapter_also_writes_the_ended_rank(mpi, tmp_path):
    exe = compile_program(mpi, "fatal_error.c", tmp_path, instrumented=False)
    library = mpi_build(mpi) / "runtime" / "mpi_adapter" / "libscorep_adapter_mpi.so"
    check(ended_rank_profile(mpi, tmp_path, exe, "win", env={"LD_PRELOAD": str(library)}), "win")
