"""End-to-end: real MPI programs under mpirun, measured by the C MPI adapter, on
both MPI libraries. The programs print what they did (EXPECT lines); the
profile must show exactly that, and the programs' own results must not change."""
import pytest

from measure import (compile_program, expectations, load_profile, per_rank_region, results,
                     run_measured, run_with_rank_files)

MPIS = ["openmpi", "mpich"]


@pytest.fixture(scope="module", params=MPIS)
def exchange(request, tmp_path_factory):
    mpi = request.param
    work = tmp_path_factory.mktemp(f"exchange-{mpi}")
    measured = compile_program(mpi, "exchange.c", work)
    plain = compile_program(mpi, "exchange.c", work, instrumented=False)
    _, experiment, stdout = run_with_rank_files(mpi, 4, measured, work, "measured")
    _, _, plain_stdout = run_with_rank_files(mpi, 4, plain, work, "plain")
    return {"mpi": mpi, "stdout": stdout, "plain_stdout": plain_stdout,
            "profile": load_profile(experiment), "work": work, "plain": plain}


def test_program_output_is_unchanged_by_measurement(exchange):
    assert results(exchange["stdout"]) == results(exchange["plain_stdout"])
    assert len(results(exchange["stdout"])) == 4


def test_profile_has_all_ranks(exchange):
    profile = exchange["profile"]
    assert profile["experiment"]["ranks"] == 4
    assert sorted({loc["rank"] for loc in profile["locations"]}) == [0, 1, 2, 3]


def test_visits_bytes_and_messages_match_what_the_program_did(exchange):
    measured = per_rank_region(exchange["profile"])
    expected = expectations(exchange["stdout"])
    assert len(expected) > 40
    mismatches = []
    for key, counters in sorted(expected.items()):
        got = measured.get(key)
        if got is None:
            mismatches.append(f"rank {key[0]} {key[1]}: not in the profile")
            continue
        for counter, value in counters.items():
            if got[counter] != value:
                mismatches.append(f"rank {key[0]} {key[1]} {counter}: measured {got[counter]}, "
                                  f"the program did {value}")
    assert mismatches == []


def test_profile_has_no_calls_the_program_did_not_make(exchange):
    """MPI calling its own MPI_ functions must not show up: one user call, one visit.
    (MPI regions only: scorep also instruments the program's own functions.)"""
    measured = per_rank_region(exchange["profile"])
    expected = expectations(exchange["stdout"])
    extra = sorted(f"rank {r} {name}" for (r, name) in measured
                   if name.startswith("MPI_") and (r, name) not in expected and name != "MPI_Finalize")
    assert extra == []
    for rank in range(4):
        assert measured[(rank, "MPI_Finalize")]["visits"] == 1


def test_wildcard_receive_with_status_ignore_records_true_source(exchange):
    """Each rank's single tag-1 wildcard receive came from its left neighbour:
    the received message count per rank is exact only if the source was read."""
    measured = per_rank_region(exchange["profile"])
    for rank in range(4):
        assert measured[(rank, "MPI_Recv")]["messages_received"] == 1
        assert measured[(rank, "MPI_Recv")]["bytes_received"] == 400


def test_ld_preload_measures_an_unmodified_program(exchange, tmp_path):
    from conftest import mpi_build
    mpi = exchange["mpi"]
    library = mpi_build(mpi) / "runtime" / "mpi_adapter" / "libscorep_adapter_mpi.so"
    proc, experiment = run_measured(mpi, 2, exchange["plain"], tmp_path,
                                    env={"LD_PRELOAD": str(library)})
    measured = per_rank_region(load_profile(experiment))
    assert measured[(0, "MPI_Send")]["visits"] == 2
    assert measured[(1, "MPI_Sendrecv")]["bytes_sent"] == 40


def test_disabled_group_records_nothing_but_program_runs(exchange, tmp_path):
    mpi = exchange["mpi"]
    measured_binary = exchange["work"] / "exchange"
    _, experiment, stdout = run_with_rank_files(mpi, 2, measured_binary, tmp_path, "groups",
                                                env={"SCOREP_MPI_ENABLE_GROUPS": "DEFAULT,~P2P"})
    measured = per_rank_region(load_profile(experiment))
    names = {name for (_, name) in measured}
    assert "MPI_Send" not in names and "MPI_Waitall" not in names
    assert "MPI_Allreduce" in names
    assert len(results(stdout)) == 2


def test_unknown_group_is_reported_by_name(exchange, tmp_path):
    proc, _ = run_measured(exchange["mpi"], 2, exchange["work"] / "exchange", tmp_path,
                           env={"SCOREP_MPI_ENABLE_GROUPS": "P2P,COLLL"})
    assert "SCOREP_MPI_ENABLE_GROUPS" in proc.stderr and "COLLL" in proc.stderr
