"""scorep-check's checks of communicators' CommCreate/CommDestroy, threads'
create/begin/end/wait and pthread lock records (tools/scorep-check.in:
comms, threads, locks), on small OTF2 archives written here with python3-otf2's
writer: a consistent one passes, each doctored one fails naming the record
and the reason."""
import pathlib

import otf2
from otf2.enums import GroupType, Paradigm, RegionRole

import trace_consistency


def write(directory, ranks, steps):
    """steps: (rank, kind, arguments...) written in order on rank's master
    location, time growing by 10; kinds: comm_create/comm_destroy (comm name:
    MPI_COMM_WORLD or HALF, ranks 0 and 1), acquire/release (lock, count),
    create/begin/end/wait (sequence; begin and end on the rank's second
    location, a thread of its own)."""
    directory = pathlib.Path(directory)
    with otf2.writer.open(str(directory), archive_name="traces", timer_resolution=1000000000) as trace:
        d = trace.definitions
        node = d.system_tree_node("machine")
        groups = [d.location_group(f"MPI Rank {r}", system_tree_parent=node) for r in range(ranks)]
        masters = [d.location("Master thread", group=g) for g in groups]
        threads = [d.location("Pthread thread 1", group=g) for g in groups]
        d.group("MPI", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI, members=masters)
        comms = {}
        for name, members in (("MPI_COMM_WORLD", masters), ("HALF", masters[:2])):
            group = d.group(name, group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI, members=members)
            comms[name] = d.comm(name, group=group)
        everyone = masters + threads
        d.group("Pthread locations", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.PTHREAD,
                members=everyone)
        contingents = []
        for r in range(ranks):
            group = d.group(f"Threads of MPI Rank {r}", group_type=GroupType.COMM_GROUP,
                            paradigm=Paradigm.PTHREAD, members=[masters[r], threads[r]])
            contingents.append(d.comm(f"Threads of MPI Rank {r}", group=group))
        main = d.region("main", paradigm=Paradigm.USER, region_role=RegionRole.FUNCTION)
        writers = {loc: trace.event_writer_from_location(loc) for loc in everyone}
        for r in range(ranks):
            writers[masters[r]].enter(1, main)
        time = 1000
        for rank, kind, *args in steps:
            time += 10
            master, thread = writers[masters[rank]], writers[threads[rank]]
            if kind == "comm_create":
                master.comm_create(time, comms[args[0]])
            elif kind == "comm_destroy":
                master.comm_destroy(time, comms[args[0]])
            elif kind == "acquire":
                master.thread_acquire_lock(time, Paradigm.PTHREAD, args[0], args[1])
            elif kind == "release":
                master.thread_release_lock(time, Paradigm.PTHREAD, args[0], args[1])
            elif kind in ("create", "wait"):
                getattr(master, f"thread_{kind}")(time, contingents[rank], args[0])
            elif kind in ("begin", "end"):
                getattr(thread, f"thread_{kind}")(time, contingents[rank], args[0])
            else:
                raise ValueError(kind)
        for r in range(ranks):
            writers[masters[r]].leave(time + 10, main)
    return directory


def violations(experiment):
    found, _, _ = trace_consistency.check_experiment(experiment, partial=False)
    return [str(f) for f in found]


CLEAN = [(r, "comm_create", "MPI_COMM_WORLD") for r in range(3)] + \
    [(0, "comm_create", "HALF"), (1, "comm_create", "HALF"),
     (0, "acquire", 0, 1), (0, "release", 0, 1), (1, "acquire", 0, 1), (1, "release", 0, 1),
     (0, "acquire", 0, 2), (0, "acquire", 0, 2), (0, "release", 0, 2), (0, "release", 0, 2),   # nested
     (0, "create", 1), (0, "begin", 1), (0, "end", 1), (0, "wait", 1),
     (0, "comm_destroy", "HALF"), (1, "comm_destroy", "HALF")] + \
    [(r, "comm_destroy", "MPI_COMM_WORLD") for r in range(3)]


def test_consistent_communicator_thread_and_lock_records_pass(tmp_path):
    assert violations(write(tmp_path / "exp", 3, CLEAN)) == []


def test_a_comm_destroy_without_its_create_is_reported(tmp_path):
    steps = [s for s in CLEAN if s != (1, "comm_create", "HALF")]
    found = violations(write(tmp_path / "exp", 3, steps))
    assert any("[comms] rank 1" in f and "CommDestroy('HALF'): the communicator was not created on this location"
               in f for f in found), found
    # and rank 1, a member, never created it
    assert any("not by member ranks [1]" in f for f in found), found


def test_a_comm_create_on_a_rank_outside_the_communicator_is_reported(tmp_path):
    steps = CLEAN + [(2, "comm_create", "HALF"), (2, "comm_destroy", "HALF")]
    found = violations(write(tmp_path / "exp", 3, steps))
    assert any("[comms] rank 2" in f and "rank 2 is not a member of the communicator" in f for f in found), found


def test_a_lock_release_of_another_acquisition_and_a_gap_in_the_counts_are_reported(tmp_path):
    steps = CLEAN + [(1, "acquire", 0, 4), (1, "release", 0, 3)]
    found = violations(write(tmp_path / "exp", 3, steps))
    assert any("[locks]" in f and "ThreadReleaseLock(lock 0, 3)" in f and "ends no acquisition" in f
               for f in found), found
    # rank 1's lock 0 (a process of its own) was taken as its 1st and 4th acquisition
    assert any("[locks]" in f and "counted [1, 4], not 1 to 2" in f for f in found), found


def test_a_thread_begun_twice_or_without_its_create_is_reported(tmp_path):
    steps = CLEAN + [(0, "begin", 1), (1, "begin", 7), (1, "end", 7)]
    found = violations(write(tmp_path / "exp", 3, steps))
    assert any("[threads]" in f and "ThreadBegin(sequence 1)" in f and "has a ThreadBegin already" in f
               for f in found), found
    assert any("[threads]" in f and "(sequence 7)" in f and "no ThreadCreate" in f for f in found), found
