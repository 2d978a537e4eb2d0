#!/usr/bin/python3
"""The event sequence of an OTF2 trace, normalised for comparison between
builds: one line per record, per location, without timestamps.

    tests/mpi/trace_sequence.py <experiment-dir | traces.otf2>

Prints, per location ("rank R thread T", in that order), every event record
after the leave of MPI_Init and before the enter of MPI_Finalize (what happens
inside MPI_Init/MPI_Finalize is the lifecycle's business, not the event path's)
as `<record type> <attribute>=<value> ...`, attributes in OTF2's field order.
References are resolved into what they name: a region by its name, a
communicator by its members' world ranks (and its name if it has one of its
own, not the "Comm <id>" made from its global id), a location (a message's
sender or receiver is a rank in the communicator) stays a number, request ids
and lengths stay numbers. Only `time` and the timestamps of buffer flushes are
dropped. tests/mpi/test_trace_sequence.py compares this with tests/mpi/data/.
"""
import inspect
import pathlib
import re
import sys

import otf2


def rank_thread(location):
    rank = int(re.search(r"(\d+)\s*$", location.group.name).group(1))
    thread = int(re.search(r"(\d+)\s*$", location.name).group(1)) if re.search(r"\d", location.name) else 0
    return rank, thread


def value_text(value):
    if isinstance(value, otf2.definitions.Region):
        return repr(value.name)
    if isinstance(value, otf2.definitions.Comm):
        members = ",".join(str(rank_thread(m)[0]) for m in value.group.members)
        # an unnamed communicator's name is made from its global id ("Comm 2"),
        # which depends on the order of unification, not on the event path
        name = "" if re.fullmatch(r"Comm \d+", value.name or "") else repr(value.name)
        return f"comm({name};{members})"
    if isinstance(value, otf2.definitions.Location):
        return "rank%d" % rank_thread(value)[0]
    if hasattr(value, "name") and not isinstance(value, (int, float, str)):
        return f"{type(value).__name__}({value.name!r})"
    return str(value)


def normalised(anchor):
    anchor = pathlib.Path(anchor)
    if anchor.is_dir():
        anchor = anchor / "traces.otf2"
    per_location = {}
    with otf2.reader.open(str(anchor)) as trace:
        for location, event in trace.events:
            key = rank_thread(location)
            state = per_location.setdefault(key, {"on": False, "done": False, "lines": []})
            region = getattr(event, "region", None)
            name = region.name if region is not None else None
            kind = type(event).__name__
            if kind == "Leave" and name == "MPI_Init" or kind == "Leave" and name == "MPI_Init_thread":
                state["on"] = True
                continue
            if kind == "Enter" and name == "MPI_Finalize":
                state["done"] = True
            if not state["on"] or state["done"]:
                continue
            fields = []
            for parameter in inspect.signature(type(event).__init__).parameters:
                if parameter in ("self", "time", "attributes", "stop_time"):
                    continue
                fields.append(f"{parameter}={value_text(getattr(event, parameter))}")
            if event.attributes:
                fields.append("attributes=" + ",".join(
                    f"{getattr(k, 'name', k)}:{value_text(v)}" for k, v in sorted(
                        event.attributes.items(), key=lambda kv: str(getattr(kv[0], 'name', kv[0])))))
            state["lines"].append(" ".join([kind] + fields))
    out = []
    for (rank, thread) in sorted(per_location):
        out.append(f"location rank {rank} thread {thread}")
        out.extend("  " + line for line in per_location[(rank, thread)]["lines"])
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(normalised(sys.argv[1]))
