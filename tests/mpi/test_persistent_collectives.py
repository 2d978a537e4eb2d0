"""End-to-end: MPI 4.0 persistent collectives (MPI_<coll>_init) on MPICH.

programs/persistent_coll.c (C) and programs/persistent_coll_f08.F90 (use
mpi_f08) create an allreduce, a bcast (root 2), a barrier and a neighbour
allgather on a Cartesian communicator as persistent requests and start each
several times with MPI_Start and with MPI_Startall. Each start must count like
the equivalent non-blocking collective, in the region of the start call; the
*_init calls record no collective. The expected visits, collectives and bytes
are computed here from what the programs pass, not from what MPI or the
programs report. In a traced run every MpiCollectiveBegin has its End inside
MPI_Start(all), and no point-to-point request event is written for these
requests. Open MPI 4.1 has no persistent collectives: skipped there (the
build's probe says so)."""
import collections
import subprocess

import pytest

from conftest import mpi_build, mpirun
from measure import compile_fortran_pair, load_profile, results, run_measured, run_three_ways

MPIS = ["openmpi", "mpich"]
RANKS = 4
NSTART, NSTARTALL = 3, 2       # the programs' rounds of MPI_Start / MPI_Startall
ROOT = 2                       # of the bcast
INT, DOUBLE = 4, 8
INITS = ["MPI_Allreduce_init", "MPI_Bcast_init", "MPI_Barrier_init", "MPI_Neighbor_allgather_init"]


def require_persistent_collectives(mpi):
    coverage = mpi_build(mpi) / "runtime" / "mpi_adapter" / "mpi-c-coverage.txt"
    wrapped = {line.split()[1] for line in coverage.read_text().splitlines() if line.startswith("wrapped ")}
    missing = [name for name in INITS if name not in wrapped]
    if missing:
        pytest.skip(f"the {mpi} library has no persistent collectives ({', '.join(missing)} not "
                    f"exported, {coverage.name})")


def cart_neighbours(rank, dims=(2, 2), periods=(True, False)):
    """The real (not MPI_PROC_NULL) neighbours of MPI_Cart_shift by 1 in each dimension."""
    coords = [rank // dims[1], rank % dims[1]]
    real = 0
    for d, (n, periodic) in enumerate(zip(dims, periods)):
        for step in (-1, 1):
            c = coords[d] + step
            real += 1 if periodic or 0 <= c < n else 0
    return real


def one_round(rank):
    """(bytes sent, bytes received) of one start of each of the four requests,
    by Score-P's convention for the blocking forms: the allreduce's 3 doubles
    go to and come from every rank, the bcast root sends its 5 integers to
    every rank, and every rank, the root too, receives them."""
    allreduce = (3 * DOUBLE * RANKS, 3 * DOUBLE * RANKS)
    bcast = (5 * INT * RANKS, 5 * INT) if rank == ROOT else (0, 5 * INT)
    barrier = (0, 0)
    neighbours = cart_neighbours(rank)
    allgather = (2 * INT * neighbours, 2 * INT * neighbours)
    parts = (allreduce, bcast, barrier, allgather)
    return sum(p[0] for p in parts), sum(p[1] for p in parts)


def expected(rank):
    """{region: (visits, collectives, bytes sent, bytes received)} of one rank."""
    sent, received = one_round(rank)
    want = {"MPI_Start": (4 * NSTART, 4 * NSTART, NSTART * sent, NSTART * received),
            "MPI_Startall": (NSTARTALL, 4 * NSTARTALL, NSTARTALL * sent, NSTARTALL * received),
            "MPI_Wait": (4 * NSTART, 0, 0, 0),
            "MPI_Waitall": (NSTARTALL, 0, 0, 0),
            "MPI_Request_free": (4, 0, 0, 0)}
    want.update({name: (1, 0, 0, 0) for name in INITS})
    return want


def test_the_topology_has_real_and_null_neighbours():
    assert [cart_neighbours(r) for r in range(RANKS)] == [3, 3, 3, 3]
    # allreduce 4 x 24, bcast 4 x 20 from the root and 20 to every rank, allgather 3 x 8
    assert one_round(0) == (96 + 0 + 24, 96 + 20 + 24)
    assert one_round(ROOT) == (96 + 80 + 24, 96 + 20 + 24)


def measured(profile):
    rank_of = {loc["id"]: loc["rank"] for loc in profile["locations"]}
    region_of = {cp["id"]: cp["region"] for cp in profile["callpaths"]}
    name_of = {r["id"]: r["name"] for r in profile["regions"]}
    totals = collections.defaultdict(lambda: [0, 0, 0, 0, 0, 0])
    for row in profile["rows"]:
        key = (rank_of[row["location"]], name_of[region_of[row["callpath"]]])
        for i, counter in enumerate(("visits", "collectives", "bytes_sent", "bytes_received",
                                     "messages_sent", "messages_received")):
            totals[key][i] += row.get(counter, 0)
    return totals


def assert_profile(profile):
    got = measured(profile)
    mismatches = []
    for rank in range(RANKS):
        for region, want in expected(rank).items():
            if tuple(got[(rank, region)][:4]) != want:
                mismatches.append(f"rank {rank} {region}: measured (visits, collectives, sent, received) "
                                  f"{tuple(got[(rank, region)][:4])}, expected {want}")
    assert mismatches == []
    # nothing else records a collective, bytes or a message
    others = {key: value for key, value in got.items()
              if key[1] not in ("MPI_Start", "MPI_Startall") and any(value[1:])}
    assert others == {}


@pytest.fixture(scope="module", params=MPIS)
def c_runs(request, tmp_path_factory):
    mpi = request.param
    require_persistent_collectives(mpi)
    return run_three_ways(mpi, RANKS, "persistent_coll.c", tmp_path_factory.mktemp(f"persistent-coll-{mpi}"))


def test_c_results_are_unchanged_by_measurement(c_runs):
    assert len(results(c_runs["plain_stdout"])) == RANKS
    assert results(c_runs["stdout"]) == results(c_runs["plain_stdout"])
    assert results(c_runs["traced_stdout"]) == results(c_runs["plain_stdout"])


def test_c_each_start_counts_its_collective(c_runs):
    assert_profile(c_runs["profile"])


def test_c_profile_is_the_same_with_tracing(c_runs):
    assert_profile(c_runs["traced_profile"])


def test_trace_has_paired_collectives_in_the_start_calls_and_no_request_events(c_runs):
    otf2 = pytest.importorskip("otf2")
    point_to_point = tuple(getattr(otf2.events, name) for name in (
        "MpiSend", "MpiIsend", "MpiIsendComplete", "MpiIrecvRequest", "MpiRecv", "MpiIrecv",
        "MpiRequestTest", "MpiRequestCancelled"))
    pairs, kinds, found = collections.Counter(), collections.Counter(), []
    with otf2.reader.open(str(c_runs["trace"])) as trace:
        open_begin, region = {}, {}
        for location, event in trace.events:
            key = location._ref
            if isinstance(event, otf2.events.Enter):
                region[key] = event.region.name
            elif isinstance(event, otf2.events.Leave):
                region[key] = None
            elif isinstance(event, otf2.events.MpiCollectiveBegin):
                assert not open_begin.get(key), f"two begins without an end on location {key}"
                assert region.get(key) in ("MPI_Start", "MPI_Startall"), region.get(key)
                open_begin[key] = True
            elif isinstance(event, otf2.events.MpiCollectiveEnd):
                assert open_begin.get(key), f"an end without its begin on location {key}"
                assert region.get(key) in ("MPI_Start", "MPI_Startall"), region.get(key)
                open_begin[key] = False
                pairs[key] += 1
                kinds[str(event.collective_op)] += 1
            elif isinstance(event, point_to_point):
                found.append((key, type(event).__name__, region.get(key)))
        assert not any(open_begin.values()), "a begin without its end"
    assert found == []
    # allreduce, bcast and barrier at each start; the neighbour allgather has no OTF2 op
    rounds = NSTART + NSTARTALL
    assert sorted(pairs.values()) == [3 * rounds] * RANKS
    assert sorted(kinds.values()) == [RANKS * rounds] * 3, kinds
    printed = subprocess.run(["otf2-print", str(c_runs["trace"])], capture_output=True, text=True)
    assert printed.returncode == 0, printed.stderr


@pytest.mark.parametrize("mpi", MPIS)
def test_f08_each_start_counts_its_collective(mpi, tmp_path):
    require_persistent_collectives(mpi)
    build = mpi_build(mpi)
    coverage = build / "runtime" / "mpi_adapter_f08" / "mpi-f08-coverage.txt"
    if not coverage.exists():
        pytest.skip(f"no F08 adapter in {build}")
    wrapped = {line.split()[1] for line in coverage.read_text().splitlines() if line.startswith("wrapped ")}
    missing = [name for name in INITS if name not in wrapped]
    if missing:
        pytest.skip(f"the {mpi} mpi_f08 module lacks {', '.join(missing)} ({coverage.name})")
    plain, instrumented = compile_fortran_pair(mpi, "persistent_coll_f08.F90", tmp_path)
    plain_out = mpirun(RANKS, [plain], mpi=mpi, cwd=tmp_path).stdout
    proc, experiment = run_measured(mpi, RANKS, instrumented, tmp_path)
    assert len(results(plain_out)) == RANKS
    assert results(proc.stdout) == results(plain_out)
    assert_profile(load_profile(experiment))
