"""scorep-trace-export on traces written with the python3-otf2 writer, so the
exporter is checked independently of the C trace substrate."""
import json
import pathlib
import subprocess

import pytest

otf2 = pytest.importorskip("otf2")
from otf2.enums import GroupType, Paradigm  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[2]
EXPORT = REPO / "tools" / "scorep-trace-export"
PYTHON = "/usr/bin/python3"


def run_export(*args, check=True):
    proc = subprocess.run([PYTHON, str(EXPORT), *map(str, args)],
                          capture_output=True, text=True, timeout=120)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def define_two_ranks(defs):
    """Two ranks with a master thread each and MPI_COMM_WORLD: (locations, world)."""
    root = defs.system_tree_node("machine")
    ranks = [defs.location_group(f"Rank {r}", system_tree_parent=root) for r in range(2)]
    locs = [defs.location("Master thread", group=g) for g in ranks]
    defs.group("MPI", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI, members=locs)
    world = defs.comm("MPI_COMM_WORLD", group=defs.group(
        "world", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI, members=locs))
    return locs, world


def write_two_rank_trace(path):
    """Rank 0 sends tags 5, 7, 5 to rank 1 on MPI_COMM_WORLD; rank 1 sends one
    message back on a communicator whose rank order is reversed."""
    with otf2.writer.open(str(path), timer_resolution=1_000_000_000) as trace:
        defs = trace.definitions
        locs, world = define_two_ranks(defs)
        reversed_comm = defs.comm("reversed", group=defs.group(
            "reversed", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI,
            members=list(reversed(locs))))
        send = defs.region("MPI_Send", paradigm=Paradigm.MPI)
        recv = defs.region("MPI_Recv", paradigm=Paradigm.MPI)
        w0, w1 = (trace.event_writer_from_location(loc) for loc in locs)
        for i, tag in enumerate([5, 7, 5]):
            t = 1000 + i * 1000
            w0.enter(t, send)
            w0.mpi_send(t + 10, 1, world, tag, 8 * (i + 1))
            w0.leave(t + 20, send)
            w1.enter(t + 5, recv)
            w1.mpi_recv(t + 30, 0, world, tag, 8 * (i + 1))
            w1.leave(t + 40, recv)
        # On "reversed", rank 1 of MPI_COMM_WORLD is rank 0 and vice versa.
        w1.enter(5000, send)
        w1.mpi_send(5010, 1, reversed_comm, 9, 4)
        w1.leave(5020, send)
        w0.enter(5005, recv)
        w0.mpi_recv(5030, 0, reversed_comm, 9, 4)
        w0.leave(5040, recv)


@pytest.fixture
def two_rank_trace(tmp_path):
    write_two_rank_trace(tmp_path / "exp")
    return tmp_path / "exp"


def export_json(trace_dir, tmp_path):
    out = tmp_path / "out.json"
    run_export(trace_dir, "-o", out)
    return json.loads(out.read_text())


def test_export_writes_one_begin_end_pair_per_region_visit(two_rank_trace, tmp_path):
    events = export_json(two_rank_trace, tmp_path)["traceEvents"]
    begins = [e for e in events if e["ph"] == "B"]
    ends = [e for e in events if e["ph"] == "E"]
    assert len(begins) == len(ends) == 8
    assert sorted(e["name"] for e in begins) == ["MPI_Recv"] * 4 + ["MPI_Send"] * 4


def test_export_has_one_process_per_rank_and_one_thread_per_location(two_rank_trace, tmp_path):
    events = export_json(two_rank_trace, tmp_path)["traceEvents"]
    processes = {e["pid"]: e["args"]["name"] for e in events if e["name"] == "process_name"}
    threads = {(e["pid"], e["tid"]) for e in events if e["name"] == "thread_name"}
    assert sorted(processes.values()) == ["Rank 0", "Rank 1"]
    assert len(threads) == 2 and {pid for pid, _ in threads} == set(processes)
    slices = {(e["pid"], e["tid"]) for e in events if e["ph"] in "BE"}
    assert slices == threads


def test_export_draws_one_flow_per_message_matched_in_fifo_order(two_rank_trace, tmp_path):
    document = export_json(two_rank_trace, tmp_path)
    events = document["traceEvents"]
    starts = {e["id"]: e for e in events if e["ph"] == "s"}
    finishes = {e["id"]: e for e in events if e["ph"] == "f"}
    assert len(starts) == len(finishes) == 4
    assert set(starts) == set(finishes)
    pairs = sorted((starts[i]["ts"], finishes[i]["ts"], starts[i]["args"]["bytes"],
                    finishes[i]["args"]["bytes"]) for i in starts)
    # Each send pairs with the receive of the same iteration: same byte count,
    # 20 ns later (the first tag-5 send must not match the second tag-5 receive).
    for send_ts, recv_ts, sent, received in pairs:
        assert sent == received
        assert recv_ts - send_ts == pytest.approx(0.020)
    assert all(e["bp"] == "e" for e in finishes.values())
    assert document["otherData"]["unmatched_messages"] == 0


def test_export_resolves_ranks_of_a_non_world_communicator(two_rank_trace, tmp_path):
    events = export_json(two_rank_trace, tmp_path)["traceEvents"]
    starts = [e for e in events if e["ph"] == "s" and e["args"]["bytes"] == 4]
    finishes = [e for e in events if e["ph"] == "f" and e["args"]["bytes"] == 4]
    assert len(starts) == len(finishes) == 1
    assert starts[0]["pid"] != finishes[0]["pid"]
    assert starts[0]["id"] == finishes[0]["id"]


def test_export_accepts_the_anchor_file_and_defaults_to_trace_json(two_rank_trace):
    run_export(two_rank_trace / "traces.otf2")
    document = json.loads((two_rank_trace / "trace.json").read_text())
    assert document["otherData"]["messages"] == 4


def test_export_of_a_directory_without_trace_fails_with_a_message(tmp_path):
    proc = run_export(tmp_path, check=False)
    assert proc.returncode != 0
    assert "no traces.otf2" in proc.stderr and str(tmp_path) in proc.stderr


def test_export_reports_unmatched_messages(tmp_path):
    with otf2.writer.open(str(tmp_path / "exp"), timer_resolution=1000) as trace:
        defs = trace.definitions
        loc = defs.location("Master thread", group=defs.location_group(
            "Rank 0", system_tree_parent=defs.system_tree_node("machine")))
        defs.group("MPI", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI, members=[loc])
        comm = defs.comm("MPI_COMM_WORLD", group=defs.group(
            "world", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI, members=[loc]))
        trace.event_writer_from_location(loc).mpi_send(10, 0, comm, 1, 8)
    proc = run_export(tmp_path / "exp", "-o", tmp_path / "out.json")
    assert "1 message(s) without a matching" in proc.stderr
    document = json.loads((tmp_path / "out.json").read_text())
    assert document["otherData"]["unmatched_messages"] == 1
    assert not [e for e in document["traceEvents"] if e["ph"] in "sf"]


def test_export_counts_a_receive_from_an_unknown_sender_as_unmatched(tmp_path):
    """OTF2's undefined rank as sender: the measurement could not know it."""
    with otf2.writer.open(str(tmp_path / "exp"), timer_resolution=1000) as trace:
        locs, world = define_two_ranks(trace.definitions)
        trace.event_writer_from_location(locs[0]).mpi_send(10, 1, world, 3, 8)
        trace.event_writer_from_location(locs[1]).mpi_recv(20, 0xFFFFFFFF, world, 3, 8)
    proc = run_export(tmp_path / "exp", "-o", tmp_path / "out.json")
    document = json.loads((tmp_path / "out.json").read_text())
    assert document["otherData"]["messages"] == 0
    assert document["otherData"]["unmatched_messages"] == 2  # the send and the receive
    assert "2 message(s) without a matching" in proc.stderr


def test_export_matches_a_receive_posted_by_a_non_master_thread(tmp_path):
    """Communicators name one location per rank; the receive may still be
    recorded on another thread of that rank (MPI_THREAD_MULTIPLE)."""
    with otf2.writer.open(str(tmp_path / "exp"), timer_resolution=1000) as trace:
        defs = trace.definitions
        root = defs.system_tree_node("machine")
        ranks = [defs.location_group(f"Rank {r}", system_tree_parent=root) for r in range(2)]
        masters = [defs.location("Master thread", group=g) for g in ranks]
        worker = defs.location("Thread 1", group=ranks[1])
        defs.group("MPI", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI,
                   members=masters)
        world = defs.comm("MPI_COMM_WORLD", group=defs.group(
            "world", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI, members=masters))
        trace.event_writer_from_location(masters[0]).mpi_send(10, 1, world, 3, 8)
        trace.event_writer_from_location(masters[1]).enter(5, defs.region("idle"))
        trace.event_writer_from_location(worker).mpi_recv(20, 0, world, 3, 8)
    document = export_json(tmp_path / "exp", tmp_path)
    assert document["otherData"]["messages"] == 1
    assert document["otherData"]["unmatched_messages"] == 0
    finish = [e for e in document["traceEvents"] if e["ph"] == "f"][0]
    assert finish["tid"] == worker._ref
