"""scorep-check, the trace consistency checker (tools/scorep-check.in), on
small OTF2 archives written here with python3-otf2's writer: a clean one
passes, and each doctored one (a receive dropped, bytes changed, a collective
member missing, a region left unbalanced, ...) fails with a report naming the
rank, the record and the reason. Then on real runs: a trace cut by
SCOREP_TRACING_MAX_SIZE fails the full check and passes the partial one."""
import os
import pathlib
import subprocess

import _otf2
import otf2
import pytest
from otf2.enums import CollectiveOp, GroupType, MeasurementMode, Paradigm, RegionRole

from conftest import REPO
import trace_consistency

UNDEFINED = 0xFFFFFFFF
PROC_NULL = 0xFFFFFFFE   # Open MPI's MPI_PROC_NULL (-2) as an OTF2 rank


def checker_command(build_dir):
    """This build's scorep-check (configured for the build's interpreter)."""
    return [str(build_dir / "tools" / "scorep-check")]


class Archive:
    """Writes an OTF2 archive the way the measurement lays one out: one
    location group per rank ("MPI Rank N"), a master location each, the MPI
    COMM_LOCATIONS group, MPI_COMM_WORLD and optional further communicators."""

    def __init__(self, directory, ranks, comms=None, clock_offsets=None):
        self.directory = pathlib.Path(directory)
        self.ranks = ranks
        # {rank: [(time, offset), ...]}: ClockOffset records of its location
        self.clock_offsets = clock_offsets or {}
        self.steps = []   # (rank, function(writer, time, defs))
        self.comm_specs = {"MPI_COMM_WORLD": list(range(ranks)), **(comms or {})}

    def add(self, rank, *records):
        """records: (kind, arguments...) tuples, written on rank's location
        in the order of the add calls across ranks (time grows by 10 each)."""
        for record in records:
            self.steps.append((rank, record))
        return self

    def write(self, only_rank=None):
        """Writes traces.otf2, or with only_rank the per-rank archive
        traces.rank<N>.otf2 of an abnormal end: every rank's definitions,
        only that rank's events."""
        self.directory.mkdir(parents=True, exist_ok=True)
        name = "traces" if only_rank is None else f"traces.rank{only_rank}"
        with otf2.writer.open(str(self.directory), archive_name=name, timer_resolution=1000000000) as trace:
            d = trace.definitions
            node = d.system_tree_node("machine")
            groups = [d.location_group(f"MPI Rank {r}", system_tree_parent=node) for r in range(self.ranks)]
            locations = [d.location("Master thread", group=g) for g in groups]
            d.group("MPI", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI, members=locations)
            comms = {}
            for name, members in self.comm_specs.items():
                group = d.group(name, group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI,
                                members=[locations[m] for m in members])
                comms[name] = d.comm(name, group=group)
            regions = {}

            def region(name):
                if name not in regions:
                    regions[name] = d.region(name, paradigm=Paradigm.MPI if name.startswith("MPI_")
                                             else Paradigm.USER, region_role=RegionRole.FUNCTION)
                return regions[name]

            writers = [trace.event_writer_from_location(loc) if only_rank in (None, rank) else None
                       for rank, loc in enumerate(locations)]
            for rank, records in self.clock_offsets.items():
                for at, offset in records:
                    _otf2.DefWriter_WriteClockOffset(writers[rank]._def_handle, at, offset, 0.0)
            time = 1000
            for rank, (kind, *args) in self.steps:
                time += 10
                if only_rank is not None and rank != only_rank:
                    continue
                w = writers[rank]
                at = args.pop() if args and isinstance(args[-1], dict) else {}
                t = at.get("time", time)
                comm = comms[at.get("comm", "MPI_COMM_WORLD")]
                if kind == "enter":
                    w.enter(t, region(args[0]))
                elif kind == "leave":
                    w.leave(t, region(args[0]))
                elif kind == "send":     # peer, tag, bytes
                    w.enter(t, region("MPI_Send"))
                    w.mpi_send(t, args[0], comm, args[1], args[2])
                    w.leave(t + 1, region("MPI_Send"))
                elif kind == "recv":
                    w.enter(t, region("MPI_Recv"))
                    w.mpi_recv(t + 1, args[0], comm, args[1], args[2])
                    w.leave(t + 1, region("MPI_Recv"))
                elif kind == "isend":    # peer, tag, bytes, request
                    w.mpi_isend(t, args[0], comm, args[1], args[2], args[3])
                elif kind == "isend_complete":
                    w.mpi_isend_complete(t, args[0])
                elif kind == "irecv_request":
                    w.mpi_irecv_request(t, args[0])
                elif kind == "irecv":    # peer, tag, bytes, request
                    w.mpi_irecv(t, args[0], comm, args[1], args[2], args[3])
                elif kind == "cancelled":
                    w.mpi_request_cancelled(t, args[0])
                elif kind == "collective":   # op name, root (None: no root)
                    w.enter(t, region("MPI_" + args[0].title()))
                    w.mpi_collective_begin(t)
                    w.mpi_collective_end(t + 1, getattr(CollectiveOp, args[0]), comm,
                                         UNDEFINED if args[1] is None else args[1], 0, 0)
                    w.leave(t + 1, region("MPI_" + args[0].title()))
                elif kind == "off":
                    w.measurement_on_off(t, MeasurementMode.OFF)
                else:
                    raise ValueError(kind)
        return self.directory


def clean(directory, ranks=2):
    """A consistent 2-rank run: blocking and non-blocking messages both ways,
    a barrier and a broadcast, everything inside main."""
    archive = Archive(directory, ranks)
    for rank in range(ranks):
        archive.add(rank, ("enter", "main"))
    archive.add(0, ("send", 1, 5, 80))
    archive.add(1, ("recv", 0, 5, 80))
    archive.add(1, ("isend", 0, 7, 16, 1))
    archive.add(0, ("irecv_request", 1), ("irecv", 1, 7, 16, 1))
    archive.add(1, ("isend_complete", 1))
    for rank in range(ranks):
        archive.add(rank, ("collective", "BARRIER", None))
    for rank in range(ranks):
        archive.add(rank, ("collective", "BCAST", 0))
    return archive


def finish(archive, ranks=2):
    for rank in range(ranks):
        archive.add(rank, ("leave", "main"))
    return archive.write()


def run_checker(build_dir, experiment, *options):
    return subprocess.run(checker_command(build_dir) + [*options, str(experiment)],
                          capture_output=True, text=True, timeout=60)


def violations(experiment, partial=False):
    found, tolerated, _ = trace_consistency.check_experiment(experiment, partial=partial)
    return [str(f) for f in found], [str(f) for f in tolerated]


def test_a_consistent_trace_passes(build_dir, tmp_path):
    experiment = finish(clean(tmp_path / "exp"))
    proc = run_checker(build_dir, experiment)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "consistent (2 locations" in proc.stdout and "2 messages" in proc.stdout


def test_a_dropped_receive_is_reported_with_rank_time_and_record(build_dir, tmp_path):
    archive = clean(tmp_path / "exp")
    archive.add(0, ("send", 1, 9, 8))   # never received
    proc = run_checker(build_dir, finish(archive))
    assert proc.returncode == 1
    lines = [line for line in proc.stdout.splitlines() if line.startswith("scorep-check: violation ")]
    assert len(lines) == 1
    assert "[messages] rank 0 (Master thread, location 0) at " in lines[0]
    assert "MpiSend(receiver 1, comm 'MPI_COMM_WORLD', tag 9, 8 bytes): no receive of it on rank 1" in lines[0]


def test_the_report_lists_its_findings_in_the_same_order_on_every_run(build_dir, tmp_path):
    """Findings of many channels (here: sends never received, one per tag)
    come in one order whatever Python's string hashing is, so that two runs
    of the check on one trace can be compared line by line."""
    archive = clean(tmp_path / "exp")
    for tag in range(20, 32):
        archive.add(tag % 2, ("send", 1 - tag % 2, tag, 8))
    experiment = finish(archive)
    reports = set()
    for seed in ("1", "2", "3", "4", "5"):
        proc = subprocess.run(checker_command(build_dir) + [str(experiment)], capture_output=True, text=True,
                              timeout=60, env={**os.environ, "PYTHONHASHSEED": seed})
        assert proc.returncode == 1, proc.stdout + proc.stderr
        lines = [line for line in proc.stdout.splitlines() if line.startswith("scorep-check: violation ")]
        assert len(lines) == 12
        reports.add(tuple(lines))
    assert len(reports) == 1, "the findings' order changed with PYTHONHASHSEED"


def test_a_receive_without_send_is_reported(tmp_path):
    archive = clean(tmp_path / "exp")
    archive.add(1, ("recv", 0, 9, 8))
    found, _ = violations(finish(archive))
    assert len(found) == 1 and "MpiRecv(sender 0, comm 'MPI_COMM_WORLD', tag 9, 8 bytes): no send of it" in found[0]


def test_wrong_bytes_are_reported(tmp_path):
    archive = Archive(tmp_path / "exp", 2)
    archive.add(0, ("send", 1, 5, 80))
    archive.add(1, ("recv", 0, 5, 40))
    found, _ = violations(archive.write())
    assert len(found) == 1
    assert "receives 40 bytes, but the message it matches (in MPI's order) was sent with 80 bytes" in found[0]


def test_messages_overtaking_on_one_channel_are_reported(tmp_path):
    """Two messages on the same sender, receiver, communicator and tag: MPI
    delivers them in the order they were sent; received the other way
    round, the sizes do not match."""
    archive = Archive(tmp_path / "exp", 2)
    archive.add(0, ("send", 1, 5, 8), ("send", 1, 5, 16))
    archive.add(1, ("recv", 0, 5, 16), ("recv", 0, 5, 8))
    found, _ = violations(archive.write())
    assert len(found) == 2 and all("in MPI's order" in f for f in found)


def test_non_blocking_receives_count_from_when_they_were_posted(tmp_path):
    """Posted in send order, completed in the other order (MPI_Waitall over
    a reversed array): consistent."""
    archive = Archive(tmp_path / "exp", 2)
    archive.add(0, ("send", 1, 5, 8), ("send", 1, 5, 16))
    archive.add(1, ("irecv_request", 1), ("irecv_request", 2), ("irecv", 0, 5, 16, 2), ("irecv", 0, 5, 8, 1))
    found, _ = violations(archive.write())
    assert found == []


def test_a_receive_before_its_send_is_reported(tmp_path):
    archive = Archive(tmp_path / "exp", 2)
    archive.add(1, ("recv", 0, 5, 8, {"time": 100}))
    archive.add(0, ("send", 1, 5, 8, {"time": 500}))
    found, _ = violations(archive.write())
    assert len(found) == 1 and "ticks before it was sent" in found[0]


def clock_case(directory, offsets, send_at, receive_at):
    """Rank 0 sends at send_at, rank 1's MpiRecv is at receive_at + 1 (the
    Archive's MPI_Recv), both times on the ranks' own clocks; offsets: rank
    1's ClockOffset records."""
    archive = Archive(directory, 2, clock_offsets={1: offsets})
    archive.add(0, ("send", 1, 5, 8, {"time": send_at}))
    archive.add(1, ("recv", 0, 5, 8, {"time": receive_at}))
    return archive.write()


def test_event_times_are_compared_after_the_clock_offsets_correction(tmp_path):
    """Rank 1's clock runs 10000 ticks behind rank 0's; its ClockOffset
    records say so. Its receive, early on its own clock, is after the send
    on the trace's time axis, which is what OTF2's readers give."""
    found, _ = violations(clock_case(tmp_path / "exp", [(100, 10000), (100000, 10000)], 2000, 1000))
    assert found == []


def test_a_receive_put_before_its_send_by_the_clock_offsets_is_reported_as_such(build_dir, tmp_path):
    """Both ranks read one clock (one host); rank 1's offsets were measured
    300 ticks wrong (the error Score-P's ping-pong can make): its receive,
    51 ticks after the send on that clock, lands 249 ticks before it on the
    trace's axis. The trace breaks the clock condition, so it is reported,
    but as what it is: the message was received after it was sent."""
    experiment = clock_case(tmp_path / "exp", [(100, -300), (100000, -300)], 2000, 2050)
    proc = run_checker(build_dir, experiment)
    assert proc.returncode == 1
    lines = [line for line in proc.stdout.splitlines() if line.startswith("scorep-check: violation ")]
    assert len(lines) == 1, proc.stdout
    assert "[clock] rank 1 " in lines[0]
    assert ("on the trace's time axis the receive is 249 ticks before its send, but on the processes' own "
            "clocks (one host, 'machine', offsets below 100 µs: one clock) it is 51 ticks after it") in lines[0]
    assert "moves the send by +0 and the receive by -300 ticks" in lines[0]
    assert "received after it was sent" in lines[0] and "received 249 ticks before" not in lines[0]


def test_offsets_interpolated_between_their_records_decide_the_own_clock(tmp_path):
    """The offset drifts from 0 to -1000 over 100000 ticks: at 50000 OTF2's
    readers take -500. A receive 101 ticks after its send on the own clock
    is 400 ticks early on the axis (a clock finding); one 99 ticks before
    it on the own clock stays a message received before it was sent."""
    found, _ = violations(clock_case(tmp_path / "a", [(0, 0), (100000, -1000)], 50000, 50100))
    assert len(found) == 1 and found[0].startswith("[clock]") and "400 ticks before its send" in found[0] \
        and "it is 101 ticks after it" in found[0], found
    found, _ = violations(clock_case(tmp_path / "b", [(0, 0), (100000, -1000)], 50000, 49900))
    assert len(found) == 1 and found[0].startswith("[messages]") and "received 598 ticks before it was sent" \
        in found[0] and "the receive is -99 ticks from the send" in found[0], found


def test_processes_of_one_host_with_a_large_offset_read_separate_clocks(tmp_path):
    """An offset of a second is no measurement error of a shared clock: the
    processes read separate clocks (a virtual machine's unsynchronised TSCs,
    a clock skewed on purpose), whose own times do not order the events. A
    receive early on the axis stays a message received before it was sent."""
    found, _ = violations(clock_case(tmp_path / "exp", [(0, -10**9), (10**10, -10**9)], 2 * 10**9, 2 * 10**9 + 400))
    assert len(found) == 1 and found[0].startswith("[messages]") and "received 999999599 ticks before" in found[0] \
        and "which need not be one clock" in found[0], found


def test_a_collective_missing_on_one_member_is_reported(build_dir, tmp_path):
    archive = Archive(tmp_path / "exp", 3)
    for rank in range(3):
        archive.add(rank, ("collective", "BARRIER", None))
    archive.add(0, ("collective", "ALLREDUCE", None))
    archive.add(2, ("collective", "ALLREDUCE", None))
    proc = run_checker(build_dir, archive.write())
    assert proc.returncode == 1
    lines = [line for line in proc.stdout.splitlines() if line.startswith("scorep-check: violation ")]
    assert len(lines) == 1
    assert "[collectives] rank 1 " in lines[0]
    assert "records 1 collectives on communicator 'MPI_COMM_WORLD', rank 0 2" in lines[0]
    assert "MpiCollectiveEnd(ALLREDUCE" in lines[0]


def test_collectives_of_another_kind_or_root_are_reported(tmp_path):
    archive = Archive(tmp_path / "exp", 2)
    archive.add(0, ("collective", "BCAST", 0), ("collective", "REDUCE", 0))
    archive.add(1, ("collective", "BCAST", 1), ("collective", "ALLREDUCE", None))
    found, _ = violations(archive.write())
    assert len(found) == 1   # the first difference of a rank is reported
    assert "[collectives] rank 1" in found[0] and "collective #1 on communicator 'MPI_COMM_WORLD'" in found[0]


def test_roots_are_compared_among_the_members_that_name_one(tmp_path):
    """An intercommunicator's broadcast: the root passes MPI_ROOT, the others
    of its group MPI_PROC_NULL (no root recorded), the remote group the root's
    rank; a different root named on one member is reported."""
    archive = Archive(tmp_path / "exp", 4)
    archive.add(0, ("collective", "BCAST", None))
    archive.add(2, ("collective", "BCAST", None))
    archive.add(1, ("collective", "BCAST", 0))
    archive.add(3, ("collective", "BCAST", 0))
    assert violations(archive.write()) == ([], [])
    archive.directory = tmp_path / "exp2"
    archive.add(0, ("collective", "REDUCE", 1), ("collective", "REDUCE", 1))
    for rank in (1, 2):
        archive.add(rank, ("collective", "REDUCE", 1), ("collective", "REDUCE", 1))
    archive.add(3, ("collective", "REDUCE", 1), ("collective", "REDUCE", 2))
    found, _ = violations(archive.write())
    assert len(found) == 1 and found[0].startswith("[collectives] rank 3 ")
    assert "MpiCollectiveEnd(REDUCE, comm 'MPI_COMM_WORLD', root 2" in found[0]
    assert "collective #3 on communicator 'MPI_COMM_WORLD' has root 1 on rank 0" in found[0]


def test_a_communicator_member_without_any_of_its_collectives_is_reported(tmp_path):
    archive = Archive(tmp_path / "exp", 3, comms={"pair": [0, 2]})
    archive.add(0, ("collective", "BARRIER", None, {"comm": "pair"}))
    archive.add(1, ("enter", "main"), ("leave", "main"))
    archive.add(2, ("enter", "main"), ("leave", "main"))
    found, _ = violations(archive.write())
    assert len(found) == 1 and found[0].startswith("[collectives] rank 2:")
    assert "records no collective on communicator 'pair'" in found[0]


def test_unbalanced_enter_and_leave_are_reported(build_dir, tmp_path):
    archive = Archive(tmp_path / "exp", 1)
    archive.add(0, ("enter", "main"), ("enter", "work"), ("leave", "main"), ("leave", "other"),
                ("enter", "tail"))
    proc = run_checker(build_dir, archive.write())
    assert proc.returncode == 1
    out = proc.stdout
    assert "Leave 'main': the innermost open region is 'work'" in out
    assert "Leave 'other': no region is open" in out
    assert "1 region(s) still open at the end of the location: 'tail'" in out


def test_time_going_backwards_is_reported():
    """(OTF2's writer refuses such a record, so the checker is fed events directly.)"""
    checker = trace_consistency._checker()
    trace = checker.Trace()
    loc = checker.Location(0, "Master thread", 0, 2)

    class Region:
        name, _ref = "main", 0

    trace.event(loc, otf2.events.Enter(500, Region()), {}, False)
    trace.event(loc, otf2.events.Leave(400, Region()), {}, False)
    assert [str(f) for f in trace.findings] == [
        "[time] rank 0 (Master thread, location 0) at 400.000000 s: Leave: timestamp goes back by 100 ticks"]


def test_a_send_to_proc_null_is_not_a_message(tmp_path):
    archive = Archive(tmp_path / "exp", 2)
    archive.add(0, ("send", PROC_NULL, 5, 8))
    archive.add(1, ("recv", UNDEFINED, 5, 8))
    found, _ = violations(archive.write())
    assert len(found) == 2
    assert "the receiver is an unknown rank (MPI_PROC_NULL" in found[0] and "not a message" in found[0]
    assert "the sender is an unknown rank" in found[1]


def test_requests_are_completed_once_and_only_when_started(tmp_path):
    archive = Archive(tmp_path / "exp", 2)
    archive.add(0, ("isend", 1, 5, 8, 1), ("isend_complete", 1), ("isend_complete", 1), ("isend_complete", 9))
    archive.add(1, ("irecv", 0, 5, 8, 4))   # no MpiIrecvRequest 4
    found, _ = violations(archive.write())
    assert sorted(found) == sorted([
        f for f in found if "[requests]" in f]) and len(found) == 3
    assert sum("request 1 was not started or has completed already" in f for f in found) == 1
    assert sum("request 9 was not started" in f for f in found) == 1
    assert sum("request 4 has no MpiIrecvRequest before it" in f for f in found) == 1


def test_a_cancelled_send_is_no_message(tmp_path):
    archive = Archive(tmp_path / "exp", 2)
    archive.add(0, ("isend", 1, 5, 8, 1), ("cancelled", 1))
    archive.add(1, ("enter", "main"), ("leave", "main"))
    found, _ = violations(archive.write())
    assert found == []


def test_a_send_recorded_as_to_oneself_on_an_intercommunicator_is_reported(tmp_path):
    """The known fault: each side records the intercommunicator as a group
    of its own rank only, so the peer resolves to the caller itself."""
    archive = Archive(tmp_path / "exp", 2, comms={"own 0": [0], "own 1": [1]})
    archive.add(0, ("send", 0, 5, 8, {"comm": "own 0"}))
    archive.add(1, ("recv", 0, 5, 8, {"comm": "own 1"}))
    found, _ = violations(archive.write())
    assert len(found) == 2
    assert any("no receive of it on rank 0 (communicator 'own 0'" in f for f in found)
    assert any("no send of it on rank 1 (communicator 'own 1'" in f for f in found)


def test_definitions_announcing_other_event_counts_are_reported(tmp_path):
    """A location's definition says how many events it holds: a lost event
    shows as a difference."""
    experiment = finish(clean(tmp_path / "exp"))
    checker = trace_consistency._checker()
    trace = checker.Trace()
    original = otf2.definitions.Location.number_of_events
    try:
        otf2.definitions.Location.number_of_events = property(lambda self: 3)
        trace.read(str(experiment / "traces.otf2"), None)
    finally:
        otf2.definitions.Location.number_of_events = original
    assert any("the definitions announce 3 events, the archive holds" in str(f) for f in trace.findings)


def test_partial_mode_tolerates_what_a_fault_cut_off_but_nothing_else(build_dir, tmp_path):
    """Rank 1 ends with main open (killed) after its first receive; rank 0's
    second message is therefore never received. A full check reports both;
    a partial one reports them as tolerated, and still fails on wrong bytes."""
    def cut(directory, wrong_bytes):
        archive = Archive(directory, 2)
        archive.add(0, ("enter", "main"))
        archive.add(1, ("enter", "main"))
        archive.add(0, ("send", 1, 5, 8), ("send", 1, 5, 8))
        archive.add(1, ("recv", 0, 5, 4 if wrong_bytes else 8))
        archive.add(0, ("leave", "main"))
        return archive.write()

    experiment = cut(tmp_path / "cut", wrong_bytes=False)
    full = run_checker(build_dir, experiment)
    assert full.returncode == 1
    assert "still open at the end" in full.stdout and "no receive of it on rank 1" in full.stdout
    partial = run_checker(build_dir, experiment, "--partial")
    assert partial.returncode == 0, partial.stdout
    assert partial.stdout.count("tolerated (partial experiment)") == 2
    found, tolerated = violations(cut(tmp_path / "wrong", wrong_bytes=True), partial=True)
    assert len(found) == 1 and "receives 4 bytes" in found[0] and len(tolerated) == 2


def test_partial_mode_tolerates_a_trace_switched_off_by_its_size_limit(tmp_path):
    archive = Archive(tmp_path / "exp", 2)
    archive.add(0, ("send", 1, 5, 8))
    archive.add(1, ("off",))
    found, tolerated = violations(archive.write(), partial=True)
    assert found == [] and len(tolerated) == 2
    assert "MeasurementOnOff(OFF): the measurement was switched off here" in tolerated[0]
    assert "no receive of it" in tolerated[1]
    assert len(violations(tmp_path / "exp")[0]) == 2


def test_per_rank_archives_of_an_abnormal_end_are_checked_together(build_dir, tmp_path):
    """traces.rank<N>.otf2: each rank's own archive. A message between them is
    matched across archives; a rank without its archive is reported (as
    tolerated with --partial), and so is the message it cut off."""
    archive = Archive(tmp_path / "exp", 3)
    for rank in range(3):
        archive.add(rank, ("enter", "main"))
    archive.add(0, ("send", 1, 5, 8))
    archive.add(1, ("recv", 0, 5, 8))
    archive.add(2, ("send", 0, 6, 4))
    archive.add(0, ("recv", 2, 6, 4))
    archive.add(1, ("send", 2, 7, 16))   # rank 2 was killed before it received this
    for rank in range(2):
        archive.add(rank, ("leave", "main"))
    for rank in range(2):
        archive.write(only_rank=rank)
    assert sorted(p.name for p in (tmp_path / "exp").glob("*.otf2")) == ["traces.rank0.otf2", "traces.rank1.otf2"]
    found, tolerated = violations(tmp_path / "exp", partial=True)
    assert found == []
    assert sorted(t.split(" at ")[0].split(":")[0] for t in tolerated) == [
        "[messages] rank 0 (Master thread, location 0)", "[messages] rank 1 (Master thread, location 1)",
        "[ranks] rank 2"]
    assert any("no send of it on rank 2" in t for t in tolerated)       # rank 0's receive from 2
    assert any("no receive of it on rank 2" in t for t in tolerated)    # rank 1's send to 2
    full = run_checker(build_dir, tmp_path / "exp")
    assert full.returncode == 1 and "3 violations" in full.stdout


@pytest.fixture
def own_counts(monkeypatch):
    """The hook's tests count apart from the session's summary of checked runs."""
    monkeypatch.setattr(trace_consistency, "CHECKED", dict.fromkeys(trace_consistency.CHECKED, 0))


def test_the_hook_fails_a_test_whose_run_left_an_inconsistent_trace(tmp_path, own_counts):
    archive = clean(tmp_path / "exp")
    archive.add(0, ("send", 1, 9, 8))
    finish(archive)
    env = {"SCOREP_ENABLE_TRACING": "true", "SCOREP_EXPERIMENT_DIRECTORY": str(tmp_path / "exp")}
    with pytest.raises(AssertionError, match=r"(?s)not self-consistent \(full check\).*no receive of it on rank 1"):
        trace_consistency.check_run(env, tmp_path, 0, 0)
    # no tracing asked for, or a trace older than the run: nothing to check
    trace_consistency.check_run({"SCOREP_EXPERIMENT_DIRECTORY": str(tmp_path / "exp")}, tmp_path, 0, 0)
    trace_consistency.check_run(env, tmp_path, (tmp_path / "exp" / "traces.otf2").stat().st_mtime + 5, 0)


def test_the_hook_checks_a_run_that_ended_abnormally_in_partial_mode(tmp_path, monkeypatch, own_counts):
    archive = Archive(tmp_path / "exp", 2)
    archive.add(0, ("enter", "main"), ("send", 1, 5, 8))
    archive.add(1, ("enter", "main"))
    archive.write()
    env = {"SCOREP_ENABLE_TRACING": "true", "SCOREP_EXPERIMENT_DIRECTORY": "exp"}   # relative to cwd
    trace_consistency.check_run(env, tmp_path, 0, 137)       # killed: tolerated
    with pytest.raises(AssertionError, match="full check"):
        trace_consistency.check_run(env, tmp_path, 0, 0)
    # a run that exits 0 after the measurement ended it abnormally (its profile says so)
    (tmp_path / "exp" / "profile.json").write_text('{"format": "scorep-wrapgen-profile", "version": 1, '
                                                   '"experiment": {"ranks": 2, "partial": true}}')
    trace_consistency.check_run(env, tmp_path, 0, 0)
    (tmp_path / "exp" / "profile.json").unlink()
    monkeypatch.setattr(trace_consistency, "KNOWN", [(r"test_the_hook_checks", "a reason")])
    with pytest.warns(UserWarning, match=r"known trace inconsistency \(a reason\)"):
        trace_consistency.check_run(env, tmp_path, 0, 0)


def test_an_experiment_without_a_trace_is_an_error_naming_the_directory(build_dir, tmp_path):
    proc = run_checker(build_dir, tmp_path)
    assert proc.returncode == 2
    assert f"{tmp_path}: no traces.otf2" in proc.stderr and "SCOREP_ENABLE_TRACING=true" in proc.stderr


def test_the_checker_shares_no_code_with_the_trace_writer():
    """The oracle reads OTF2 with python3-otf2 only: nothing of runtime/, in
    the checker and in the OTF2 reading it shares with scorep-trace-export."""
    def imports(path):
        return {line.split()[1].split(".")[0] for line in path.read_text().splitlines()
                if line.startswith(("import ", "from "))}
    checker = imports(REPO / "tools" / "scorep-check.in")
    assert checker <= {"argparse", "collections", "os", "re", "signal", "sys", "otf2", "otf2_trace"}, checker
    reading = imports(REPO / "tools" / "otf2_trace.py")
    assert reading <= {"os", "re", "otf2", "_otf2"}, reading


def test_installed_scorep_check_runs_with_the_configured_interpreter(installed_prefix, build_dir, tmp_path):
    from conftest import build_option
    command = installed_prefix / "bin" / "scorep-check"
    assert command.read_text().splitlines()[0] == f"#!{build_option(build_dir, 'python')}"
    experiment = finish(clean(tmp_path / "exp"))
    proc = subprocess.run([str(command), str(experiment)], capture_output=True, text=True, timeout=60,
                          env={"PATH": "/nonexistent"})   # whatever python3 PATH would find
    assert proc.returncode == 0 and "consistent" in proc.stdout, proc.stdout + proc.stderr
