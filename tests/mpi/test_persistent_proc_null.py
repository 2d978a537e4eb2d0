"""A persistent receive from MPI_PROC_NULL (MPI_Recv_init + MPI_Start +
MPI_Wait) records no message, like a persistent send to it; the real
persistent exchange next to it still records each message once."""
import pytest

from measure import compile_program, load_profile, per_rank_region, results, run_measured

RANKS, ROUNDS = 2, 3     # tests/mpi/programs/persistent_proc_null.c


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_persistent_proc_null_receive_records_no_message(mpi, tmp_path):
    exe = compile_program(mpi, "persistent_proc_null.c", tmp_path)
    proc, experiment = run_measured(mpi, RANKS, exe, tmp_path)
    # the last round's value from the left neighbour
    assert results(proc.stdout) == sorted(f"RESULT {r} {10 * ((r - 1) % RANKS) + ROUNDS - 1}"
                                          for r in range(RANKS))
    totals = per_rank_region(load_profile(experiment))
    for rank in range(RANKS):
        wait, start = totals[rank, "MPI_Wait"], totals[rank, "MPI_Start"]
        assert wait["visits"] == 4 * ROUNDS and start["visits"] == 4 * ROUNDS
        assert (wait["messages_received"], wait["bytes_received"]) == (ROUNDS, 4 * ROUNDS)
        assert (start["messages_sent"], start["bytes_sent"]) == (ROUNDS, 4 * ROUNDS)
