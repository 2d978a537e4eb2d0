"""Reads a traced run back independently of the writer: events and their
(clock-corrected) times with python3-otf2, the ClockOffset records with
otf2-print -C, and the synthetic clock error each rank was given from the
run's verbose output. From these it computes every event's true time (the
shared TSC / CLOCK_MONOTONIC reading before the test skew), so a test can
compare the corrected times with the truth event by event."""
import collections
import re
import subprocess

SEND_TYPES = ("MpiSend", "MpiIsend")
RECEIVE_TYPES = ("MpiRecv", "MpiIrecv")


def clock_offsets(anchor):
    """{location id: [(time, offset), ...]} as otf2-print -C prints them."""
    proc = subprocess.run(["otf2-print", "-C", str(anchor)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    offsets = collections.defaultdict(list)
    for m in re.finditer(r"^CLOCK_OFFSET\s+(\d+)\s+Time: (\d+), Offset: ([+-]?\d+)", proc.stdout, re.M):
        offsets[int(m.group(1))].append((int(m.group(2)), int(m.group(3))))
    return dict(offsets)


def clock_offset_stddevs(anchor):
    """{location id: [standard deviation, ...]} of its ClockOffset records (otf2-print -C)."""
    proc = subprocess.run(["otf2-print", "-C", str(anchor)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    stddevs = collections.defaultdict(list)
    for m in re.finditer(r"^CLOCK_OFFSET\s+(\d+)\s+Time: \d+, Offset: [+-]?\d+, StdDev: ([0-9.e+-]+)",
                         proc.stdout, re.M):
        stddevs[int(m.group(1))].append(float(m.group(2)))
    return dict(stddevs)


def skews_from_output(stderr):
    """{rank: (origin, offset ticks, drift)} from SCOREP_VERBOSE output."""
    return {int(m.group(1)): (int(m.group(2)), int(m.group(3)), float(m.group(4)))
            for m in re.finditer(r"test clock error on rank (\d+): origin (\d+), offset (-?\d+) ticks, "
                                 r"drift (-?[0-9.]+)", stderr)}


def read_events(anchor):
    """(resolution, [(rank, location id, type name, corrected time, event)]) in trace order."""
    import otf2
    out = []
    with otf2.reader.open(str(anchor)) as trace:
        resolution = trace.definitions.clock_properties.timer_resolution
        for location, event in trace.events:
            rank = int(location.group.name.rsplit(" ", 1)[1])
            out.append((rank, location._ref, type(event).__name__, event.time, event))
    return resolution, out


def uncorrected(time, points):
    """The time as written: the inverse of the interpolation OTF2 readers apply."""
    if len(points) < 2:
        return time
    (t0, o0), (t1, o1) = points[0], points[-1]
    slope = (o1 - o0) / (t1 - t0)
    return (time - o0 + slope * t0) / (1 + slope)


def true_time(written, skew):
    """The clock reading before the test skew (timer.c: raw + offset + (raw - origin) * drift)."""
    if skew is None:
        return written
    origin, offset, drift = skew
    return (written - offset + origin * drift) / (1 + drift)


def messages(events):
    """[(send event tuple, receive event tuple)] matched in order per
    (communicator, sender, receiver, tag)."""
    sends, pairs = collections.defaultdict(collections.deque), []
    receives = collections.defaultdict(collections.deque)
    for e in events:
        rank, _, kind, _, ev = e
        if kind in SEND_TYPES:
            members = [int(m.group.name.rsplit(" ", 1)[1]) for m in ev.communicator.group.members]
            key = (ev.communicator._ref, rank, members[ev.receiver], ev.msg_tag)
            (pairs.append((e, receives[key].popleft())) if receives[key] else sends[key].append(e))
        elif kind in RECEIVE_TYPES:
            members = [int(m.group.name.rsplit(" ", 1)[1]) for m in ev.communicator.group.members]
            key = (ev.communicator._ref, members[ev.sender], rank, ev.msg_tag)
            (pairs.append((sends[key].popleft(), e)) if sends[key] else receives[key].append(e))
    unmatched = sum(len(q) for q in sends.values()) + sum(len(q) for q in receives.values())
    return pairs, unmatched


# what a collective's leaves must follow (its data flow), by OTF2 collective op
ONE_TO_ALL = {"BCAST", "SCATTER", "SCATTERV"}
ALL_TO_ONE = {"GATHER", "GATHERV", "REDUCE"}
ALL_TO_ALL = {"BARRIER", "ALLGATHER", "ALLGATHERV", "ALLTOALL", "ALLTOALLV", "ALLTOALLW", "ALLREDUCE",
              "REDUCE_SCATTER", "REDUCE_SCATTER_BLOCK"}


def collective_violations(events):
    """(instances checked, [violations]) of the blocking collectives: the
    k-th collective of each rank on a communicator is one instance; a 1-to-N
    one's non-root leaves follow the root's enter, an N-to-1's root leave
    every enter, an N-to-N's every leave every other member's enter. A
    violation: (operation, communicator, k, leaving rank, entering rank,
    leave - enter in ticks)."""
    region, begin, seen = {}, {}, collections.Counter()
    instances = collections.defaultdict(dict)   # (comm, k) -> {rank: (op, root, enter, leave)}
    for rank, location, kind, time, ev in events:
        if kind == "Enter":
            region[location] = ev.region.name
        elif kind == "MpiCollectiveBegin":
            begin[location] = time
        elif kind == "MpiCollectiveEnd" and not region.get(location, "").startswith(("MPI_I", "MPI_Start")):
            comm = ev.communicator._ref
            k = seen[(comm, rank)]
            seen[(comm, rank)] += 1
            members = [int(m.group.name.rsplit(" ", 1)[1]) for m in ev.communicator.group.members]
            root = members[ev.root] if ev.root < len(members) else None
            instances[(comm, k)][rank] = (str(ev.collective_op).rsplit(".", 1)[-1], root, begin[location], time)
    checked, violations = 0, []
    for (comm, k), members in instances.items():
        op, root = next(iter(members.values()))[:2]
        if op in ONE_TO_ALL:
            pairs = [(m, root) for m in members if m != root]
        elif op in ALL_TO_ONE:
            pairs = [(root, m) for m in members if m != root]
        elif op in ALL_TO_ALL:
            pairs = [(m, n) for m in members for n in members if m != n]
        else:
            continue
        checked += 1
        violations += [(op, comm, k, m, n, members[m][3] - members[n][2]) for m, n in pairs
                       if members[m][3] < members[n][2]]
    return checked, violations
