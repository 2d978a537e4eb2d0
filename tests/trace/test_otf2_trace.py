"""tools/otf2_trace.py, the OTF2 reading of scorep-check and
scorep-trace-export, on the trace of a real measured MPI run (mpi_ring.c on
4 ranks through the generated wrappers), compared with what otf2-print (the
OTF2 library's own printer) shows of it and with what the program did."""
import collections
import re
import shutil
import subprocess
import sys

import pytest

from conftest import MPI_COMPILERS, REPO, mpi_build, mpirun
from trace_programs import tracing_env

pytest.importorskip("otf2")
pytestmark = pytest.mark.skipif(shutil.which("otf2-print") is None, reason="otf2-print not installed")
sys.path.insert(0, str(REPO / "tools"))
import otf2_trace  # noqa: E402

RANKS = 4


@pytest.fixture(scope="module")
def ring(tmp_path_factory):
    """The experiment directory of mpi_ring traced on RANKS ranks."""
    work = tmp_path_factory.mktemp("otf2_trace")
    program = work / "mpi_ring"
    subprocess.run([sys.executable, str(mpi_build("openmpi") / "runtime" / "mpi_adapter" / "scorep"),
                    MPI_COMPILERS["openmpi"]["c"], str(REPO / "tests" / "trace" / "mpi_ring.c"), "-o",
                    str(program)], check=True, capture_output=True, timeout=120)
    experiment = work / "exp"
    mpirun(RANKS, [program], env=tracing_env(experiment), cwd=work)
    return experiment


def otf2_print(anchor, *options):
    proc = subprocess.run(["otf2-print", *options, str(anchor)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


def printed_events(anchor):
    """[(record name, location id)] of otf2-print's event lines."""
    return [(m.group(1), int(m.group(2))) for m in
            (re.match(r"([A-Z][A-Z_]+)\s+(\d+)\s+\d+(\s|$)", line) for line in otf2_print(anchor)) if m]


def test_the_experiment_directory_has_one_complete_archive(ring):
    assert otf2_trace.find_archives(str(ring)) == [(str(ring / "traces.otf2"), None)]
    assert otf2_trace.find_archives(str(ring / "traces.otf2")) == [(str(ring / "traces.otf2"), None)]


def test_a_directory_without_a_trace_and_a_missing_path_are_no_trace(tmp_path):
    with pytest.raises(otf2_trace.NoTrace, match="no traces.otf2 .*SCOREP_ENABLE_TRACING=true"):
        otf2_trace.find_archives(str(tmp_path))
    with pytest.raises(otf2_trace.NoTrace, match="no such file or directory"):
        otf2_trace.find_archives(str(tmp_path / "missing"))


def test_every_location_has_the_events_otf2_print_prints(ring):
    anchor = ring / "traces.otf2"
    printed = printed_events(anchor)
    with otf2_trace.Archive(str(anchor)) as archive:
        read = [(location._ref, event) for location, event in archive.events]
        locations = {location._ref: location.number_of_events for location in archive.locations}
    assert len(locations) == RANKS
    assert collections.Counter(ref for ref, _ in read) == collections.Counter(ref for _, ref in printed)
    assert collections.Counter(ref for ref, _ in read) == locations


def test_sends_and_receives_are_the_records_otf2_print_names_so(ring):
    anchor = ring / "traces.otf2"
    printed = collections.Counter(name for name, _ in printed_events(anchor))
    with otf2_trace.Archive(str(anchor)) as archive:
        events = [event for _, event in archive.events]
    sends = sum(isinstance(event, otf2_trace.SENDS) for event in events)
    receives = sum(isinstance(event, otf2_trace.RECEIVES) for event in events)
    assert sends == printed["MPI_SEND"] + printed["MPI_ISEND"]
    assert receives == printed["MPI_RECV"] + printed["MPI_IRECV"]
    # 20 isends and 20 sendrecvs a rank, and one send on each parity communicator
    assert sends == receives == 2 * 20 * RANKS + 2


def test_clock_and_locations_are_those_of_the_global_definitions(ring):
    anchor = ring / "traces.otf2"
    lines = otf2_print(anchor, "-G")
    clock = next(line for line in lines if line.startswith("CLOCK_PROPERTIES"))
    ticks, offset = map(int, re.search(r"Ticks per Seconds: (\d+), Global Offset: (\d+)", clock).groups())
    printed = {int(m.group(1)): (m.group(2), int(m.group(3))) for m in
               (re.match(r'LOCATION\s+(\d+)\s+Name: "([^"]*)".*# Events: (\d+)', line) for line in lines) if m}
    with otf2_trace.Archive(str(anchor)) as archive:
        assert (archive.ticks_per_second, archive.first_time) == (ticks, offset)
        assert {location._ref: (location.name, location.number_of_events)
                for location in archive.locations} == printed
        assert sorted(group._ref for group in archive.ranks) == list(range(RANKS))


def test_clock_offsets_are_the_records_otf2_print_shows(ring):
    anchor = ring / "traces.otf2"
    printed = collections.defaultdict(list)
    for line in otf2_print(anchor, "-C"):
        m = re.match(r"CLOCK_OFFSET\s+(\d+)\s+Time: (\d+), Offset: ([+-]?\d+)", line)
        if m:
            printed[int(m.group(1))].append((int(m.group(2)), int(m.group(3))))
    with otf2_trace.Archive(str(anchor)) as archive:
        offsets = archive.clock_offsets()
    assert len(printed) == RANKS and all(len(records) >= 2 for records in printed.values())
    assert offsets == printed


def test_member_ranks_are_the_ranks_the_program_put_into_each_communicator(ring):
    """mpi_ring splits MPI_COMM_WORLD by parity (key: the world rank) and
    sends one message on each half: its members are the ranks of that
    parity, in world order."""
    with otf2_trace.Archive(str(ring / "traces.otf2")) as archive:
        members = {}
        for location, event in archive.events:
            if isinstance(event, otf2_trace.SENDS + otf2_trace.RECEIVES):
                rank = location.group._ref
                members[(event.communicator.name, rank)] = otf2_trace.member_ranks(event.communicator, rank)
    world = {rank: members.pop(("MPI_COMM_WORLD", rank)) for rank in range(RANKS)}
    assert world == {rank: tuple(range(RANKS)) for rank in range(RANKS)}
    assert sorted(rank for _, rank in members) == list(range(RANKS))
    assert {rank: ranks for (_, rank), ranks in members.items()} == {
        rank: tuple(range(rank % 2, RANKS, 2)) for rank in range(RANKS)}
