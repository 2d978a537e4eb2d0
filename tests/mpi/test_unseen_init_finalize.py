"""MPI started or ended without a wrapper seeing it: a
binding the adapters do not wrap calls PMPI_Init / PMPI_Finalize directly (as
Open MPI's mpif.h / use mpi layer does when only the C adapter is there).
The adapter notices MPI at its first measured call and writes one experiment
with every rank from inside MPI_Finalize (an attribute on MPI_COMM_SELF)."""
import json
import subprocess

import pytest

from conftest import MPI_COMPILERS, mpi_build
from measure import PROGRAMS, compile_program, per_rank_region, results, run_measured

RANKS = 2
UNSEEN_WARNING = "MPI was initialised without the MPI adapter seeing MPI_Init"


def one_experiment(experiment):
    # (run_measured traces too, for scorep-check: the trace's files are not counted)
    assert sorted(p.name for p in experiment.iterdir() if not p.name.startswith("traces")) == [
        ".scorep-wrapgen-experiment", "profile.cubex", "profile.folded", "profile.json", "profile.txt", "scorep.cfg"]
    profile = json.loads((experiment / "profile.json").read_text())
    assert profile["experiment"]["ranks"] == RANKS
    assert profile["experiment"]["partial"] is False
    assert sorted(loc["rank"] for loc in profile["locations"]) == list(range(RANKS))
    return per_rank_region(profile)


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_c_program_whose_helper_starts_and_ends_mpi_through_pmpi(mpi, tmp_path):
    # tests/mpi/programs/unseen_init.c: 4 rounds, round r sends 8 * (r + 1) bytes
    exe = compile_program(mpi, "unseen_init.c", tmp_path, extra=[str(PROGRAMS / "unseen_init_helper.c")])
    proc, experiment = run_measured(mpi, RANKS, exe, tmp_path)
    # each round's allreduce sums (left neighbour + r) over both ranks: 1 + 2r
    assert results(proc.stdout) == [f"RESULT {rank} 16" for rank in range(RANKS)]
    totals = one_experiment(experiment)
    for rank in range(RANKS):
        sendrecv = totals[rank, "MPI_Sendrecv"]
        assert (sendrecv["visits"], sendrecv["bytes_sent"], sendrecv["bytes_received"]) == (4, 80, 80)
        assert (sendrecv["messages_sent"], sendrecv["messages_received"]) == (4, 4)
        assert totals[rank, "MPI_Allreduce"]["visits"] == 4
        assert totals[rank, "MPI_Barrier"]["visits"] == 1
        assert totals[rank, "MPI_Comm_rank"]["visits"] == 1
    # what no wrapper saw is not there
    assert not any(region in ("MPI_Init", "MPI_Finalize") for _, region in totals)
    assert proc.stderr.count(UNSEEN_WARNING) == 1   # rank 0 says it


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_f08_program_finalizing_through_use_mpi_writes_one_experiment(mpi, tmp_path):
    """F08 and C adapters preloaded, not the mpif.h / use mpi one."""
    build = mpi_build(mpi)
    f08 = build / "runtime" / "mpi_adapter_f08" / "libscorep_adapter_mpi_f08.so"
    c = build / "runtime" / "mpi_adapter" / "libscorep_adapter_mpi.so"
    exe = tmp_path / "f08_finalize_use_mpi"
    subprocess.run([MPI_COMPILERS[mpi]["f90"], str(PROGRAMS / "f08_finalize_use_mpi.f90"), "-o", str(exe)],
                   check=True, capture_output=True, text=True, cwd=tmp_path)
    proc, experiment = run_measured(mpi, RANKS, exe, tmp_path, env={"LD_PRELOAD": f"{f08} {c}"})
    assert results(proc.stdout) == [f"RESULT {rank} 15" for rank in range(RANKS)]
    totals = one_experiment(experiment)
    for rank in range(RANKS):
        sendrecv = totals[rank, "MPI_Sendrecv"]
        assert (sendrecv["visits"], sendrecv["bytes_sent"], sendrecv["bytes_received"]) == (3, 24, 24)
        assert totals[rank, "MPI_Allreduce"]["visits"] == 3
        assert totals[rank, "MPI_Init"]["visits"] == 1
        # MPICH's use mpi MPI_Finalize calls the C MPI_Finalize (wrapped);
        # Open MPI's calls PMPI_Finalize: no wrapper, the MPI_COMM_SELF hook writes
        finalize = totals[rank, "MPI_Finalize"]["visits"] if (rank, "MPI_Finalize") in totals else 0
        assert finalize == (1 if mpi == "mpich" else 0)
    assert UNSEEN_WARNING not in proc.stderr
