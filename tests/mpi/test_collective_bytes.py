"""End-to-end: collective bytes by Score-P's convention, in all three
bindings (C, `use mpi`, `use mpi_f08`) on both MPI libraries.

programs/coll_only.c and programs/coll_only.F90 (the same calls; -DF08 for
mpi_f08) make one call of each of 15 collectives on MPI_COMM_WORLD: rooted
ones (one with MPI_IN_PLACE at the root), in-place, v and w variants (the w
one with a datatype per block, which the mpif.h wrapper passes on as Fortran
handles), scan and exscan, a barrier and a non-blocking allreduce. The bytes each rank must show
per region are computed below from the programs' counts and types alone:
every block of the collective's naive data movement counts as sent by one
rank and received by another, a rank's block to itself included, except
with MPI_IN_PLACE (docs/MPI_ADAPTER.md). The profile and the trace's
MpiCollectiveEnd records must hold exactly these bytes, and, the programs
making only collectives, the bytes sent over all ranks equal the bytes
received. Measurement must not change the programs' results."""
import collections
import re

import otf2
import pytest

from measure import (compile_fortran_pair, compile_program, load_profile, per_rank_region, results,
                     run_measured)
from conftest import mpirun

RANKS = 4
INT, DOUBLE = 4, 8     # MPI_INT / MPI_INTEGER, MPI_DOUBLE / MPI_DOUBLE_PRECISION


def element(rank):
    return DOUBLE if rank % 2 else INT


def expected(rank, p=RANKS):
    """{region: (bytes sent, bytes received)} of one rank."""
    ramp = p * (p + 1) // 2          # the v collectives: rank i's block is i + 1 integers
    return {
        "MPI_Bcast": (8 * DOUBLE * p if rank == 1 else 0, 8 * DOUBLE),              # root 1
        "MPI_Reduce": (3 * INT, 3 * INT * p if rank == 0 else 0),                    # root 0
        "MPI_Allreduce": ((p - 1) * 4 * DOUBLE, (p - 1) * 4 * DOUBLE),               # in place
        "MPI_Gather": (0, (p - 1) * 2 * INT) if rank == 0 else (2 * INT, 0),         # root 0 in place
        "MPI_Scatter": (3 * INT * p if rank == p - 1 else 0, 3 * INT),               # root p - 1
        "MPI_Allgather": (2 * INT * p, 2 * INT * p),
        "MPI_Alltoall": (DOUBLE * p, DOUBLE * p),
        "MPI_Allgatherv": ((rank + 1) * INT * p, ramp * INT),
        "MPI_Alltoallv": ((rank + 1) * INT * p, ramp * INT),
        # to rank i: i + 1 elements of an integer (even i) or a double (odd i)
        "MPI_Alltoallw": (sum((i + 1) * element(i) for i in range(p)), p * (rank + 1) * element(rank)),
        "MPI_Reduce_scatter_block": (2 * INT * p, 2 * INT * p),
        "MPI_Scan": ((p - rank) * DOUBLE, (rank + 1) * DOUBLE),
        "MPI_Exscan": ((p - rank - 1) * INT, rank * INT),
        "MPI_Barrier": (0, 0),
        "MPI_Iallreduce": (2 * INT * p, 2 * INT * p),                                # at the call
        "MPI_Wait": (0, 0),
    }


def op_of(region):
    """The OTF2 collective operation a region's MpiCollectiveEnd names."""
    return region[len("MPI_"):].upper().removeprefix("I")


@pytest.fixture(scope="module", params=[(mpi, binding) for mpi in ("openmpi", "mpich")
                                        for binding in ("c", "use mpi", "mpi_f08")],
                ids=lambda p: f"{p[0]}-{p[1].replace(' ', '_')}")
def run(request, tmp_path_factory):
    mpi, binding = request.param
    work = tmp_path_factory.mktemp(f"coll-{mpi}-{binding.replace(' ', '_')}")
    if binding == "c":
        measured = compile_program(mpi, "coll_only.c", work)
        plain = compile_program(mpi, "coll_only.c", work, instrumented=False)
    else:
        plain, measured = compile_fortran_pair(mpi, "coll_only.F90", work,
                                               extra=("-DF08",) if binding == "mpi_f08" else ())
    proc, experiment = run_measured(mpi, RANKS, measured, work)
    plain_proc = mpirun(RANKS, [plain], mpi=mpi, cwd=work)
    return {"stdout": proc.stdout, "plain_stdout": plain_proc.stdout,
            "profile": load_profile(experiment), "trace": experiment / "traces.otf2"}


def test_results_are_unchanged_by_measurement(run):
    assert len(results(run["stdout"])) == RANKS
    assert results(run["stdout"]) == results(run["plain_stdout"])


def test_profile_bytes_per_rank_and_region_follow_the_programs_counts(run):
    measured = per_rank_region(run["profile"])
    wrong = []
    for rank in range(RANKS):
        for region, want in expected(rank).items():
            got = (measured[(rank, region)]["bytes_sent"], measured[(rank, region)]["bytes_received"])
            if measured[(rank, region)]["visits"] != 1 or got != want:
                wrong.append(f"rank {rank} {region}: visits {measured[(rank, region)]['visits']}, "
                             f"bytes {got}, expected 1 visit and {want}")
    assert wrong == []


def test_bytes_sent_equal_bytes_received_over_all_ranks(run):
    totals = collections.Counter()
    for (rank, region), counters in per_rank_region(run["profile"]).items():
        totals["sent"] += counters["bytes_sent"]
        totals["received"] += counters["bytes_received"]
    assert totals["sent"] == totals["received"] > 0


def test_trace_collective_ends_carry_the_same_bytes(run):
    got = collections.defaultdict(list)
    with otf2.reader.open(str(run["trace"])) as trace:
        for location, event in trace.events:
            if isinstance(event, otf2.events.MpiCollectiveEnd):
                rank = int(re.search(r"(\d+)$", location.group.name).group(1))
                got[rank].append((str(event.collective_op).split(".")[-1], event.size_sent,
                                  event.size_received))
    for rank in range(RANKS):
        want = sorted((op_of(region), *b) for region, b in expected(rank).items() if region != "MPI_Wait")
        assert sorted(got[rank]) == want, f"rank {rank}"
