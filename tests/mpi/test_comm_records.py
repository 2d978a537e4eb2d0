"""Communicators' life cycle in the trace, as Score-P 8.4 records it
(docs/MPI_ADAPTER.md, "Communicators in the trace"): ring_comms.c on 4 ranks
passes a token around MPI_COMM_WORLD, creates communicators with
MPI_Comm_split, MPI_Comm_dup and an MPI_Comm_split whose odd ranks pass
MPI_UNDEFINED (they get MPI_COMM_NULL), reduces on the halves and frees what it
got; it prints per rank how many communicators it created and freed (Open MPI
and MPICH). Oracle:
that output and otf2-print (the OTF2 library's own reader): per location one
CommCreate per communicator the rank got plus MPI_COMM_WORLD and MPI_COMM_SELF
(MPI_Init), one CommDestroy per one it freed plus those two (MPI_Finalize),
each CommDestroy of a communicator created on the location; by default no
collective records of OTF2's CREATE_HANDLE/DESTROY_HANDLE operations (Scalasca
2.6 stops on them), and with SCOREP_TRACING_HANDLE_COLLECTIVES=true one per
MPI_Init, MPI_Finalize, creating call (also where it gives MPI_COMM_NULL) and
freeing call, each over the communicator Score-P names. scorep-check proves
every trace consistent (conftest.mpirun)."""
import collections
import re
import subprocess

import pytest

from measure import compile_program, run_measured

RANKS = 4
LINE = re.compile(r"^(\w+)\s+(\d+)\s+(\d+)\s*(.*)$")
COMM = re.compile(r'Communicator: "([^"]*)" <(\d+)>')
OP = re.compile(r"Operation: (\w+)")


def records(experiment):
    """{location: [(record, detail)]} in order, for the records asked about."""
    out = subprocess.run(["otf2-print", str(experiment / "traces.otf2")], capture_output=True, text=True,
                         check=True).stdout
    per = collections.defaultdict(list)
    for line in out.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        kind, location, rest = m.group(1), int(m.group(2)), m.group(4)
        if kind in ("COMM_CREATE", "COMM_DESTROY"):
            per[location].append((kind, COMM.search(rest).group(1)))
        elif kind == "MPI_COLLECTIVE_END":
            per[location].append((kind, (OP.search(rest).group(1), COMM.search(rest).group(1))))
        elif kind in ("ENTER", "LEAVE"):
            per[location].append((kind, rest.split('"')[1]))
    return per


def printed(stdout):
    """{rank: (creating calls, communicators created, freed)} of the program's output."""
    return {int(m.group(1)): (int(m.group(2)), int(m.group(3)), int(m.group(4)))
            for m in re.finditer(r"^RANK (\d+) creating_calls (\d+) created (\d+) freed (\d+)", stdout, re.M)}


@pytest.fixture(scope="module", params=[("openmpi", False), ("openmpi", True), ("mpich", False), ("mpich", True)],
                ids=["openmpi-default", "openmpi-handle-collectives", "mpich-default", "mpich-handle-collectives"])
def traced(request, tmp_path_factory):
    mpi, asked = request.param
    work = tmp_path_factory.mktemp("comm-records")
    program = compile_program(mpi, "ring_comms.c", work)
    env = {"SCOREP_TRACING_HANDLE_COLLECTIVES": "true"} if asked else {}
    proc, experiment = run_measured(mpi, RANKS, program, work, env=env)
    counts = printed(proc.stdout)
    assert sorted(counts) == list(range(RANKS))
    return asked, counts, records(experiment)


def test_every_communicator_a_rank_gets_is_created_and_destroyed_on_its_location(traced):
    _, counts, per = traced
    assert len(per) == RANKS
    for location, events in per.items():
        rank = location >> 32
        _, created, freed = counts[rank]
        creates = [name for kind, name in events if kind == "COMM_CREATE"]
        destroys = [name for kind, name in events if kind == "COMM_DESTROY"]
        assert len(creates) == 2 + created and len(destroys) == 2 + freed
        assert creates[:2] == ["MPI_COMM_WORLD", "MPI_COMM_SELF"]
        assert destroys[-2:] == ["MPI_COMM_WORLD", "MPI_COMM_SELF"]
        # each destroyed one was created before, on this location
        alive = set()
        for kind, name in events:
            if kind == "COMM_CREATE":
                assert name not in alive
                alive.add(name)
            elif kind == "COMM_DESTROY":
                alive.remove(name)
        assert alive == set()


def test_the_records_are_inside_the_calls_that_create_and_free(traced):
    _, _, per = traced
    for events in per.values():
        stack = []
        for kind, detail in events:
            if kind == "ENTER":
                stack.append(detail)
            elif kind == "LEAVE":
                stack.pop()
            elif kind == "COMM_CREATE":
                assert stack[-1] in ("MPI_Init", "MPI_Comm_split", "MPI_Comm_dup"), stack
            elif kind == "COMM_DESTROY":
                assert stack[-1] in ("MPI_Finalize", "MPI_Comm_free"), stack


def test_handle_collectives_are_written_only_when_asked_and_then_one_per_call(traced):
    asked, counts, per = traced
    for location, events in per.items():
        rank = location >> 32
        calls, _, freed = counts[rank]
        ends = [detail for kind, detail in events if kind == "MPI_COLLECTIVE_END"
                and detail[0] in ("CREATE_HANDLE", "DESTROY_HANDLE")]
        if not asked:
            assert ends == []
            continue
        # MPI_Init, the creating calls (all on MPI_COMM_WORLD), the frees (on the
        # freed communicator), MPI_Finalize, in the program's order
        assert ends[0] == ("CREATE_HANDLE", "MPI_COMM_WORLD")
        assert ends[1:1 + calls] == [("CREATE_HANDLE", "MPI_COMM_WORLD")] * calls
        frees = ends[1 + calls:-1]
        assert len(frees) == freed and all(op == "DESTROY_HANDLE" and name != "MPI_COMM_WORLD"
                                           for op, name in frees)
        assert ends[-1] == ("DESTROY_HANDLE", "MPI_COMM_WORLD")
        # every other collective record is the program's one MPI_Allreduce
        others = [d for k, d in events if k == "MPI_COLLECTIVE_END" and d[0] not in ("CREATE_HANDLE",
                                                                                       "DESTROY_HANDLE")]
        assert [op for op, _ in others] == ["ALLREDUCE"]
