"""The MPI layer: 4 ranks feed events through the adapter API; the unified
experiment has one profile with all ranks and unified definitions."""
import collections
import json
import shutil
import subprocess

import pytest

from conftest import REPO, mpi_build, mpirun
from runtime_programs import Profile, load_profile, program

# the root of the call tree: the program region, named after the executable
PROGRAM = "test_mpi_events"

ITERATIONS = 5
RANKS = 4


def built_mpi(build_dir):
    """The MPI library the build was configured with (meson option mpi)."""
    options = json.loads((build_dir / "meson-info" / "intro-buildoptions.json").read_text())
    value = next((o["value"] for o in options if o["name"] == "mpi"), "openmpi")
    if value == "none":
        pytest.skip("built without MPI")
    return value


@pytest.fixture(scope="module")
def mpi_experiment(build_dir, tmp_path_factory):
    mpi = built_mpi(build_dir)
    directory = tmp_path_factory.mktemp("mpi") / "experiment"
    env = {"SCOREP_EXPERIMENT_DIRECTORY": str(directory), "SCOREP_ENABLE_TRACING": "true"}
    mpirun(RANKS, [program(build_dir, "test_mpi_events"), ITERATIONS], mpi=mpi, env=env)
    return directory


@pytest.fixture(scope="module")
def profile(mpi_experiment):
    return Profile(load_profile(mpi_experiment / "profile.json"))


def location_of_rank(profile, rank, thread=0):
    return next(loc["id"] for loc in profile.data["locations"] if (loc["rank"], loc["thread"]) == (rank, thread))


def test_one_profile_holds_every_rank_and_thread(profile, mpi_experiment):
    assert profile.data["experiment"]["ranks"] == RANKS
    assert sorted((loc["rank"], loc["thread"]) for loc in profile.data["locations"]) == [
        (r, t) for r in range(RANKS) for t in (0, 1)]
    assert len({loc["id"] for loc in profile.data["locations"]}) == 2 * RANKS
    assert not list(mpi_experiment.glob("profile.rank*"))


def test_late_worker_threads_are_their_own_locations_on_every_rank(profile):
    for rank in range(RANKS):
        worker = location_of_rank(profile, rank, thread=1)
        row = profile.row(f"{PROGRAM}/THREADS/worker", worker)
        assert row["visits"] == 10
        # the worker's tree stands under the program region's THREADS, neither
        # of them visited there: only the thread that starts the measurement
        # enters the program region
        assert [r["visits"] for r in profile.rows(PROGRAM, worker) + profile.rows(f"{PROGRAM}/THREADS", worker)] \
            == [0, 0]
        assert not profile.rows(f"{PROGRAM}/main", worker)


def test_definitions_are_unified_across_ranks(profile):
    names = collections.Counter(r["name"] for r in profile.data["regions"])
    assert all(count == 1 for count in names.values()), names
    paths = collections.Counter(profile.path(c["id"]) for c in profile.data["callpaths"])
    assert all(count == 1 for count in paths.values()), paths
    for rank in range(RANKS):
        assert profile.row(PROGRAM, location_of_rank(profile, rank))["visits"] == 1
        assert profile.row(f"{PROGRAM}/main", location_of_rank(profile, rank))["visits"] == 1


@pytest.mark.parametrize("rank", range(RANKS))
def test_point_to_point_bytes_and_messages_are_exact_per_rank(profile, rank):
    loc = location_of_rank(profile, rank)
    ring_bytes = sum(8 * (i + 1) for i in range(ITERATIONS))
    extra_send = 1 if rank in (0, 1) else 0       # rank 0 of each parity half sends once
    extra_recv = 1 if rank in (2, 3) else 0
    send = profile.row(f"{PROGRAM}/main/MPI_Send", loc)
    assert (send["visits"], send["messages_sent"]) == (ITERATIONS + extra_send, ITERATIONS + extra_send)
    assert send["bytes_sent"] == ring_bytes + 16 * extra_send
    recv = profile.row(f"{PROGRAM}/main/MPI_Recv", loc)
    assert (recv["messages_received"], recv["bytes_received"]) == (ITERATIONS + extra_recv,
                                                                   ring_bytes + 16 * extra_recv)
    isend = profile.row(f"{PROGRAM}/main/MPI_Isend", loc)
    assert (isend["messages_sent"], isend["bytes_sent"]) == (ITERATIONS, 4 * ITERATIONS)
    wait = profile.row(f"{PROGRAM}/main/MPI_Waitall", loc)   # the irecv completes in the wait
    assert (wait["messages_received"], wait["bytes_received"]) == (ITERATIONS, 4 * ITERATIONS)


def test_collectives_count_bytes_on_every_rank(profile):
    rows = profile.rows(f"{PROGRAM}/main/MPI_Allreduce")
    assert len(rows) == RANKS
    for row in rows:
        assert (row["visits"], row["collectives"], row["bytes_sent"], row["bytes_received"]) == (
            ITERATIONS, ITERATIONS, 8 * ITERATIONS, 8 * ITERATIONS)


def test_text_report_shows_imbalance_over_all_ranks(mpi_experiment):
    text = (mpi_experiment / "profile.txt").read_text()
    assert f"over {RANKS} ranks" in text
    p2p = next(line for line in text.splitlines() if line.startswith("P2P"))
    msgs_sent = int(p2p.split()[5])
    assert msgs_sent == RANKS * 2 * ITERATIONS + 2


def test_trace_of_the_same_run_is_readable_by_otf2_print(mpi_experiment):
    if not (mpi_experiment / "traces.otf2").exists():
        pytest.skip("built without the trace substrate")
    otf2_print = shutil.which("otf2-print")
    if not otf2_print:
        pytest.skip("otf2-print not installed")
    proc = subprocess.run([otf2_print, str(mpi_experiment / "traces.otf2")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    sends = [line for line in proc.stdout.splitlines() if line.startswith("MPI_SEND ")]
    assert len(sends) == RANKS * ITERATIONS + 2
    assert "parity" not in proc.stderr


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_mpi_abort_leaves_the_partial_profile_of_every_rank_on_the_node(tmp_path, mpi):
    """Launchers end the other ranks of an aborted job with SIGKILL (MPICH's
    hydra right after SIGTERM, Open MPI sometimes): before it aborts, the
    aborting rank asks the ranks on its node to save and waits for them."""
    build = mpi_build(mpi)
    directory = tmp_path / "experiment"
    proc = mpirun(RANKS, [program(build, "test_mpi_events"), ITERATIONS, "abort"], mpi=mpi,
                  env={"SCOREP_EXPERIMENT_DIRECTORY": str(directory)}, check=False, timeout=60)
    assert proc.returncode != 0
    written = sorted(int(p.name.split(".")[1][len("rank"):]) for p in directory.glob("profile.rank*.json"))
    assert written == list(range(RANKS)), proc.stderr
    for rank in written:
        data = load_profile(directory / f"profile.rank{rank}.json")
        assert data["experiment"]["partial"] is True
        part = Profile(data)
        assert [loc["rank"] for loc in data["locations"]] == [rank]
        assert part.row(f"{PROGRAM}/main/MPI_Allreduce")["visits"] == ITERATIONS


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_mpi_abort_with_tracing_leaves_a_readable_trace_of_every_rank(tmp_path, mpi):
    """Without collectives there is no unified traces.otf2; each rank leaves
    traces.rank<N>.otf2, readable on its own, and the export merges them
    with the messages between the ranks matched."""
    otf2 = pytest.importorskip("otf2")
    build = mpi_build(mpi)
    directory = tmp_path / "experiment"
    proc = mpirun(RANKS, [program(build, "test_mpi_events"), ITERATIONS, "abort"], mpi=mpi,
                  env={"SCOREP_EXPERIMENT_DIRECTORY": str(directory), "SCOREP_ENABLE_TRACING": "true"},
                  check=False, timeout=60)
    assert proc.returncode != 0
    assert not (directory / "traces.otf2").exists()
    written = sorted(int(p.name[len("traces.rank"):-len(".otf2")]) for p in directory.glob("traces.rank*.otf2"))
    assert written == list(range(RANKS)), proc.stderr
    parity_sent, parity_received = {}, {}
    for rank in written:
        anchor = directory / f"traces.rank{rank}.otf2"
        printed = subprocess.run(["otf2-print", str(anchor)], capture_output=True, text=True)
        assert printed.returncode == 0 and "error" not in printed.stderr, printed.stderr
        counts = collections.Counter()
        with otf2.reader.open(str(anchor)) as trace:
            for location, event in trace.events:
                assert location.group._ref == rank
                counts[type(event).__name__] += 1
                if isinstance(event, otf2.events.MpiSend) and event.msg_tag < ITERATIONS:
                    assert event.receiver == (rank + 1) % RANKS
                    assert event.communicator.name == "MPI_COMM_WORLD"
        # Every rank finished the loop before rank 1 left MPI_Comm_split and
        # aborted; the parity messages (0 -> 2, 1 -> 3) may or may not have
        # happened on the other ranks, but rank 1 sent first.
        parity_sent[rank] = counts["MpiSend"] - ITERATIONS
        parity_received[rank] = counts["MpiRecv"] - ITERATIONS
        assert parity_sent[rank] in ((0, 1) if rank == 0 else (1,) if rank == 1 else (0,))
        assert parity_received[rank] in ((0, 1) if rank in (2, 3) else (0,))
        assert (counts["MpiIsend"], counts["MpiIrecv"]) == (ITERATIONS, ITERATIONS)
        # rank 1 left MPI_Comm_split, so all ranks had entered it, but not all may have left it
        assert counts["MpiCollectiveEnd"] - ITERATIONS in ((1,) if rank == 1 else (0, 1))
        assert counts["Enter"] == counts["Leave"]

    export = subprocess.run([str(REPO / "tools" / "scorep-trace-export"), str(directory), "-o",
                             str(tmp_path / "trace.json")], capture_output=True, text=True)
    assert export.returncode == 0, export.stderr
    document = json.loads((tmp_path / "trace.json").read_text())
    assert document["otherData"]["partial"] is True
    assert {e["pid"] for e in document["traceEvents"]} == set(written)
    # ring: MPI_Send r -> r+1 and MPI_Isend r+1 -> r; parity halves: 0 -> 2, 1 -> 3
    pairs = [parity_sent[a] + parity_received[b] for a, b in ((0, 2), (1, 3))]
    assert document["otherData"]["messages"] == RANKS * 2 * ITERATIONS + pairs.count(2)
    assert document["otherData"]["unmatched_messages"] == pairs.count(1)


@pytest.mark.parametrize("ranks", [1, 3, 5])
def test_unification_works_for_any_number_of_ranks(build_dir, tmp_path, ranks):
    mpi = built_mpi(build_dir)
    directory = tmp_path / "experiment"
    mpirun(ranks, [program(build_dir, "test_mpi_events"), 2], mpi=mpi,
           env={"SCOREP_EXPERIMENT_DIRECTORY": str(directory)})
    profile = Profile(load_profile(directory / "profile.json"))
    assert profile.data["experiment"]["ranks"] == ranks
    assert sorted((loc["rank"], loc["thread"]) for loc in profile.data["locations"]) == [
        (r, t) for r in range(ranks) for t in (0, 1)]
    names = collections.Counter(r["name"] for r in profile.data["regions"])
    assert all(count == 1 for count in names.values()), names
    rows = profile.rows(f"{PROGRAM}/main/MPI_Allreduce")
    assert len(rows) == ranks and all(row["visits"] == 2 for row in rows)
    assert sum(r["messages_sent"] for r in profile.rows(f"{PROGRAM}/main/MPI_Send")) == sum(
        r["messages_received"] for r in profile.rows(f"{PROGRAM}/main/MPI_Recv"))
