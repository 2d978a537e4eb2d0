"""End-to-end: neighbourhood collectives under mpirun on both MPI libraries.

programs/neighbor.c (C) and programs/neighbor_f08.F90 (use mpi_f08) call them
on two Cartesian communicators (with MPI_PROC_NULL neighbours and a process
that is its own neighbour), a graph and a distributed graph communicator. The
bytes each rank must see in the profile are computed here from the
topologies alone, not from what the program or MPI report; the programs'
results must not change under measurement; and in the trace every
MpiCollectiveBegin has its MpiCollectiveEnd (the neighbourhood collectives
write neither)."""
import collections
import re
import subprocess

import pytest

from conftest import mpi_build, mpirun
from measure import compile_fortran_pair, load_profile, results, run_measured, run_three_ways

MPIS = ["openmpi", "mpich"]
RANKS = 4
NULL = None          # MPI_PROC_NULL
INT, DOUBLE = 4, 8   # MPI_INT / MPI_INTEGER, MPI_DOUBLE / MPI_DOUBLE_PRECISION


# ---- the topologies of the programs, and each rank's neighbours in them ----

def cartesian(dims, periods):
    """{rank: (sources, destinations)}: per dimension the source, then the
    destination of a shift by +1; ranks are row-major (reorder = false)."""
    def rank_of(coords):
        rank = 0
        for c, n in zip(coords, dims):
            rank = rank * n + c
        return rank

    def coords_of(rank):
        coords = []
        for n in reversed(dims):
            coords.insert(0, rank % n)
            rank //= n
        return coords

    neighbours = {}
    for rank in range(RANKS):
        coords, blocks = coords_of(rank), []
        for d, (n, periodic) in enumerate(zip(dims, periods)):
            for step in (-1, +1):
                moved = list(coords)
                moved[d] += step
                if periodic:
                    moved[d] %= n
                blocks.append(rank_of(moved) if 0 <= moved[d] < n else NULL)
        neighbours[rank] = (blocks, blocks)
    return neighbours


GRAPH = {0: [1, 3, 2], 1: [0, 2], 2: [1, 3, 0], 3: [2, 0]}
DIST_EDGES = [(0, 1), (0, 2), (1, 2), (1, 3), (2, 0), (2, 3), (3, 0), (3, 1)]
TOPOLOGIES = {
    "cart 2x2, periodic x non-periodic": cartesian([2, 2], [True, False]),
    "cart 4x1, non-periodic x periodic": cartesian([4, 1], [False, True]),
    "graph": {r: (GRAPH[r], GRAPH[r]) for r in range(RANKS)},
    "distributed graph": {r: (sorted(s for s, d in DIST_EDGES if d == r),
                              sorted(d for s, d in DIST_EDGES if s == r)) for r in range(RANKS)},
}


def test_the_topologies_have_what_the_test_needs():
    cart_a = TOPOLOGIES["cart 2x2, periodic x non-periodic"]
    assert cart_a[0] == ([2, 2, NULL, 1], [2, 2, NULL, 1])
    cart_b = TOPOLOGIES["cart 4x1, non-periodic x periodic"]
    assert cart_b[0][0] == [NULL, 1, 0, 0] and cart_b[3][0] == [2, NULL, 3, 3]


# ---- what the programs move (their block sizes, in the same words) ----

def block(sender, receiver):
    """Elements of a v/w block; the program gives MPI_PROC_NULL blocks 5."""
    return 1 + sender + receiver


def wtype(sender):
    return DOUBLE if sender % 2 else INT


def moved(kind, rank, sources, destinations):
    """(bytes sent, bytes received) of one call by `rank`; NULL neighbours move nothing."""
    out = [d for d in destinations if d is not NULL]
    inn = [s for s in sources if s is not NULL]
    if kind == "allgather":
        return 3 * INT * len(out), 3 * INT * len(inn)
    if kind == "allgatherv":
        return (1 + rank) * INT * len(out), sum((1 + s) * INT for s in inn)
    if kind == "alltoall":
        return 2 * DOUBLE * len(out), 2 * DOUBLE * len(inn)
    if kind == "alltoallv":
        return (sum(block(rank, d) * INT for d in out), sum(block(s, rank) * INT for s in inn))
    if kind == "alltoallw":
        return (sum(block(rank, d) * wtype(rank) for d in out),
                sum(block(s, rank) * wtype(s) for s in inn))
    raise ValueError(kind)


def expected(calls):
    """{(rank, region): (visits, sent, received)} for calls [(region, kind, topologies)]."""
    totals = collections.defaultdict(lambda: [0, 0, 0])
    for region, kind, topologies in calls:
        for name in topologies:
            for rank, (sources, destinations) in TOPOLOGIES[name].items():
                sent, received = moved(kind, rank, sources, destinations)
                entry = totals[(rank, region)]
                entry[0] += 1
                entry[1] += sent
                entry[2] += received
    return {key: tuple(value) for key, value in totals.items()}


KINDS = ["allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"]


def c_calls(large_count):
    calls = []
    for kind in KINDS:
        for prefix in ("MPI_Neighbor_", "MPI_Ineighbor_"):
            for suffix in ("", "_c") if large_count else ("",):
                calls.append((prefix + kind + suffix, kind, list(TOPOLOGIES)))
    return calls


F08_CALLS = [("MPI_Neighbor_allgather", "allgather", list(TOPOLOGIES)),
             ("MPI_Ineighbor_allgatherv", "allgatherv", list(TOPOLOGIES)),
             ("MPI_Neighbor_alltoallv", "alltoallv", list(TOPOLOGIES)),
             ("MPI_Neighbor_alltoallw", "alltoallw", ["distributed graph"])]


def measured(profile):
    """{(rank, region): (visits, bytes sent, bytes received, collectives)} of neighbour regions."""
    rank_of = {loc["id"]: loc["rank"] for loc in profile["locations"]}
    region_of = {cp["id"]: cp["region"] for cp in profile["callpaths"]}
    name_of = {r["id"]: r["name"] for r in profile["regions"]}
    totals = collections.defaultdict(lambda: [0, 0, 0, 0])
    for row in profile["rows"]:
        name = name_of[region_of[row["callpath"]]]
        if "eighbor_all" not in name:
            continue
        entry = totals[(rank_of[row["location"]], name)]
        for i, counter in enumerate(("visits", "bytes_sent", "bytes_received", "collectives")):
            entry[i] += row.get(counter, 0)
    return {key: tuple(value) for key, value in totals.items()}


def assert_profile(profile, calls):
    want = expected(calls)
    got = measured(profile)
    assert sorted(got) == sorted(want)
    mismatches = [f"rank {rank} {region}: measured (visits, sent, received) {got[(rank, region)][:3]}, "
                  f"the topology says {want[(rank, region)]}"
                  for rank, region in sorted(want) if got[(rank, region)][:3] != want[(rank, region)]]
    assert mismatches == []
    # each visit is one collective in the profile
    assert all(value[3] == value[0] for value in got.values())


# ---- C ----

@pytest.fixture(scope="module", params=MPIS)
def c_runs(request, tmp_path_factory):
    mpi = request.param
    runs = run_three_ways(mpi, RANKS, "neighbor.c", tmp_path_factory.mktemp(f"neighbor-{mpi}"))
    large = {int(m) for m in re.findall(r"^LARGE_COUNT (\d)", runs["stdout"], re.M)}
    assert len(large) == 1
    runs["large_count"] = large.pop()
    return runs


def test_c_results_are_unchanged_by_measurement(c_runs):
    assert len(results(c_runs["plain_stdout"])) == RANKS
    assert results(c_runs["stdout"]) == results(c_runs["plain_stdout"])
    assert results(c_runs["traced_stdout"]) == results(c_runs["plain_stdout"])


def test_c_visits_and_bytes_follow_the_topology(c_runs):
    # MPICH 4.0 has the large-count forms, Open MPI 4.1 not
    assert c_runs["large_count"] == (1 if c_runs["mpi"] == "mpich" else 0)
    assert_profile(c_runs["profile"], c_calls(c_runs["large_count"]))


def test_c_profile_is_the_same_with_tracing(c_runs):
    assert_profile(c_runs["traced_profile"], c_calls(c_runs["large_count"]))


def test_trace_pairs_every_collective_begin_with_an_end(c_runs):
    """Neighbourhood collectives have no OTF2 collective op: their regions hold
    no collective records; every other collective's begin has its end, with
    nothing else collective in between, on every location."""
    otf2 = pytest.importorskip("otf2")
    pairs, neighbour_visits = collections.Counter(), collections.Counter()
    with otf2.reader.open(str(c_runs["trace"])) as trace:
        open_begin, region = {}, {}
        for location, event in trace.events:
            key = location._ref
            if isinstance(event, otf2.events.Enter):
                region[key] = event.region.name
                if "eighbor_all" in event.region.name:
                    neighbour_visits[key] += 1
            elif isinstance(event, otf2.events.Leave):
                region[key] = None
            elif isinstance(event, otf2.events.MpiCollectiveBegin):
                assert not open_begin.get(key), f"two begins without an end on location {key}"
                assert "eighbor" not in (region.get(key) or "")
                open_begin[key] = True
            elif isinstance(event, otf2.events.MpiCollectiveEnd):
                assert open_begin.get(key), f"an end without its begin on location {key}"
                assert "eighbor" not in (region.get(key) or "")
                open_begin[key] = False
                pairs[key] += 1
        assert not any(open_begin.values()), "a begin without its end"
    calls_per_rank = len(c_calls(c_runs["large_count"])) * len(TOPOLOGIES)
    assert sorted(neighbour_visits.values()) == [calls_per_rank] * RANKS
    # the program's four barriers and its allreduce are there
    assert len(pairs) == RANKS and min(pairs.values()) >= 5
    printed = subprocess.run(["otf2-print", str(c_runs["trace"])], capture_output=True, text=True)
    assert printed.returncode == 0, printed.stderr


# ---- Fortran 2008 ----

@pytest.mark.parametrize("mpi", MPIS)
def test_f08_visits_and_bytes_follow_the_topology(mpi, tmp_path):
    build = mpi_build(mpi)
    if not (build / "runtime" / "mpi_adapter_f08" / "libscorep_adapter_mpi_f08.so").exists():
        pytest.skip(f"no F08 adapter in {build}")
    plain, instrumented = compile_fortran_pair(mpi, "neighbor_f08.F90", tmp_path)
    plain_out = mpirun(RANKS, [plain], mpi=mpi, cwd=tmp_path).stdout
    proc, experiment = run_measured(mpi, RANKS, instrumented, tmp_path)
    assert len(results(plain_out)) == RANKS
    assert results(proc.stdout) == results(plain_out)
    assert_profile(load_profile(experiment), F08_CALLS)
