"""Reading OTF2 traces for the tools: scorep-check checks them,
scorep-trace-export exports them to Perfetto.

What both read of an experiment's trace: its archives (traces.otf2, or after
an abnormal end the per-rank traces.rank<N>.otf2, whose definitions name
every rank but whose events are the writing rank's only), each opened with
the OTF2 library's own reader (Debian's python3-otf2), nothing of the
measurement that wrote it (runtime/trace/); the locations and ranks an
archive holds events of; a communicator's member ranks; the trace's clock
(timer resolution, first timestamp) and the ClockOffset records with which
the reader corrects each location's times; the kinds of records both tell
apart."""
import os
import re

import _otf2
import otf2
from otf2.enums import GroupType

ANCHOR = "traces.otf2"
PARTIAL_ANCHOR = re.compile(r"traces\.rank(\d+)\.otf2$")
# OTF2's undefined rank, tag or root: a receive whose sender the measurement
# could not know, a collective without a root
UNDEFINED_UINT32 = 0xFFFFFFFF
# events the reader decodes at once: the default (100) makes long traces slow
BATCH_EVENTS = 10000

SENDS = (otf2.events.MpiSend, otf2.events.MpiIsend)
RECEIVES = (otf2.events.MpiRecv, otf2.events.MpiIrecv)
# one-sided transfers, and the events that complete them (same window and
# matching id, on the origin's location)
RMA_ISSUES = (otf2.events.RmaPut, otf2.events.RmaGet, otf2.events.RmaAtomic)
RMA_COMPLETIONS = (otf2.events.RmaOpCompleteBlocking, otf2.events.RmaOpCompleteNonBlocking,
                   otf2.events.RmaOpCompleteRemote)


class NoTrace(Exception):
    """The path names no trace: nothing, or a directory without one."""


def find_archives(path):
    """[(anchor, rank)] of an experiment directory or an anchor file: rank
    None for a complete archive, the writing rank for each per-rank archive
    of an abnormal end, in rank order."""
    if os.path.isdir(path):
        anchor = os.path.join(path, ANCHOR)
        if os.path.isfile(anchor):
            return [(anchor, None)]
        found = []
        for name in os.listdir(path):
            match = PARTIAL_ANCHOR.match(name)
            if match:
                found.append((os.path.join(path, name), int(match.group(1))))
        if not found:
            raise NoTrace(f"{path}: no {ANCHOR} (nor traces.rank<N>.otf2 of an abnormal end): "
                          "was the program run with SCOREP_ENABLE_TRACING=true?")
        return sorted(found, key=lambda item: (item[1], item[0]))
    if os.path.isfile(path):
        match = PARTIAL_ANCHOR.search(path)
        return [(path, int(match.group(1)) if match else None)]
    raise NoTrace(f"{path}: no such file or directory")


class Archive:
    """One archive, opened by the constructor (which raises whatever the
    OTF2 library raises for an unreadable one: its errors are not one class)
    and closed at the end of a with block. own_rank: the rank that wrote a
    per-rank archive (None: a complete archive); what it holds of the other
    ranks are stand-ins without events, left out here."""

    def __init__(self, anchor, own_rank=None):
        self.anchor = anchor
        self.own_rank = own_rank
        self.trace = otf2.reader.Reader(anchor, batch_events=BATCH_EVENTS)

    def __enter__(self):
        return self

    def __exit__(self, *exception):
        self.trace.close()

    @property
    def definitions(self):
        return self.trace.definitions

    @property
    def ticks_per_second(self):
        return self.definitions.clock_properties.timer_resolution

    @property
    def first_time(self):
        """The trace's first timestamp (a per-rank archive's: its rank's)."""
        return self.definitions.clock_properties.global_offset

    def owns(self, location):
        return self.own_rank is None or location.group._ref == self.own_rank

    @property
    def ranks(self):
        """The location groups (processes) of the archive's events."""
        return [group for group in self.definitions.location_groups
                if self.own_rank is None or group._ref == self.own_rank]

    @property
    def locations(self):
        return [location for location in self.definitions.locations if self.owns(location)]

    @property
    def events(self):
        """(location, event) in the reader's order: every location's events
        in time order, the locations interleaved by time."""
        return self.trace.events

    def clock_offsets(self):
        """{location ref: [(time, offset)]} of the archive's locations: see read_clock_offsets."""
        return read_clock_offsets(self.anchor, [location._ref for location in self.locations])


def read_clock_offsets(anchor, refs):
    """{location ref: [(time, offset)]}: the ClockOffset records of each
    location's local definitions, which OTF2's reader applies to its times
    without saying which they were. Locations without records (or whose
    definitions cannot be read) get none."""
    offsets = {}
    try:
        reader = _otf2.Reader_Open(anchor)
    except Exception:   # the OTF2 library's errors are not one class
        return offsets
    try:
        _otf2.Reader_SetSerialCollectiveCallbacks(reader)
        for ref in refs:
            _otf2.Reader_SelectLocation(reader, ref)
        _otf2.Reader_OpenDefFiles(reader)
        for ref in refs:
            def_reader = _otf2.Reader_GetDefReader(reader, ref)
            if not def_reader:
                continue
            callbacks = _otf2.DefReaderCallbacks_New()

            def clock_offset(user_data, time, offset, deviation, ref=ref):
                offsets.setdefault(ref, []).append((time, offset))
                return _otf2.CALLBACK_SUCCESS
            _otf2.DefReaderCallbacks_SetClockOffsetCallback(callbacks, clock_offset)
            _otf2.Reader_RegisterDefCallbacks(reader, def_reader, callbacks, None)
            _otf2.Reader_ReadAllLocalDefinitions(reader, def_reader)
            _otf2.Reader_CloseDefReader(reader, def_reader)
            _otf2.DefReaderCallbacks_Delete(callbacks)
        _otf2.Reader_CloseDefFiles(reader)
    except Exception:
        pass
    finally:
        _otf2.Reader_Close(reader)
    return offsets


def member_ranks(comm, own_rank):
    """The ranks (location groups) of a communicator's members, in its rank
    order; a COMM_SELF group lists none: own_rank, the caller's, alone."""
    group = comm.group
    if group.group_type == GroupType.COMM_SELF:
        return (own_rank,)
    return tuple(member.group._ref for member in group.members)


def enum_name(value):
    """Name of an OTF2 enum value; bit sets without a name of their own
    (e.g. RmaSyncLevel PROCESS|MEMORY) have no str(), so give the number."""
    try:
        return str(value).split(".")[-1]
    except (KeyError, ValueError):
        return int(value.value) if hasattr(value, "value") else repr(value)
