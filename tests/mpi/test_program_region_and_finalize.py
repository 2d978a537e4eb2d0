"""The tree's root, the regions' attributes and MPI_Finalize's region, as
Score-P writes them (docs/PROFILE_FORMAT.md, "The call tree"), read back with
otf2-print (an independent reader) and checked against the program's own
source and command line: programs/late_finalize.c on 3 ranks, the last one
reaching MPI_Finalize 300 ms late."""
import json
import pathlib
import re
import shutil
import subprocess

import pytest

from conftest import mpirun
from measure import PROGRAMS, compile_program

RANKS = 3
LATE_MS = 300
ARGS = [str(LATE_MS), "two words"]


@pytest.fixture(scope="module")
def experiment(tmp_path_factory):
    if shutil.which("otf2-print") is None:
        pytest.skip("otf2-print not installed")
    work = tmp_path_factory.mktemp("program-region")
    program = compile_program("openmpi", "late_finalize.c", work)
    directory = work / "experiment"
    # with the handle collectives Score-P 8.4 writes (off by default for Scalasca 2.6)
    proc = mpirun(RANKS, [program, *ARGS], env={"SCOREP_EXPERIMENT_DIRECTORY": str(directory),
                                                "SCOREP_ENABLE_TRACING": "true",
                                                "SCOREP_TRACING_HANDLE_COLLECTIVES": "true"}, cwd=work)
    assert sorted(proc.stdout.splitlines()) == [f"rank {r} value {r}" for r in range(RANKS)]
    return program, directory


def otf2_print(directory, *options):
    proc = subprocess.run(["otf2-print", *options, str(directory / "traces.otf2")], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def events(directory):
    """[(kind, location, time, rest of the line)] in otf2-print's order."""
    out = []
    for line in otf2_print(directory).splitlines():
        m = re.match(r"^([A-Z_]+)\s+(\d+)\s+(\d+)\s*(.*)$", line)
        if m:
            out.append((m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)))
    return out


def region_definitions(directory):
    """{region name: otf2-print's REGION line}."""
    regions = {}
    for line in otf2_print(directory, "-G").splitlines():
        m = re.match(r'^REGION\s+\d+\s+Name: "([^"]*)"', line)
        if m:
            regions[m.group(1)] = line
    return regions


def test_each_rank_begins_and_ends_with_the_program(experiment):
    program, directory = experiment
    by_location = {}
    for kind, location, _, rest in events(directory):
        by_location.setdefault(location, []).append((kind, rest))
    assert len(by_location) == RANKS
    quoted = ", ".join(f'"{a}" <\\d+>' for a in ARGS)
    for records in by_location.values():
        kind, rest = records[0]
        assert kind == "PROGRAM_BEGIN"
        assert re.fullmatch(rf'Name: "{re.escape(str(program))}" <\d+>, {len(ARGS)} Arguments: {quoted}', rest), rest
        assert records[-1][0] == "PROGRAM_END"
        assert [k for k, _ in records].count("PROGRAM_BEGIN") == 1
        # no Enter/Leave of the program region: its begin and end are these records
        assert not any(f'Region: "{program.name}"' in r for _, r in records)


def test_program_mpi_and_compiler_regions_are_defined_as_score_p_defines_them(experiment):
    program, directory = experiment
    regions = region_definitions(directory)
    assert re.search(rf'Name: "{program.name}" <\d+> \(Aka\. "{re.escape(str(program))} {" ".join(ARGS)}" <\d+>\)'
                     r'.*Role: ARTIFICIAL, Paradigm: MEASUREMENT_SYSTEM, .*File: UNDEFINED, Begin: 0, End: 0$',
                     regions[program.name]), regions[program.name]
    for name in ("MPI_Init", "MPI_Sendrecv", "MPI_Finalize"):
        assert re.search(r'File: "MPI" <\d+>, Begin: 0, End: 0$', regions[name]), regions[name]
    # compiler regions: the source's real path, the lines of the function's name and closing brace
    source = (PROGRAMS / "late_finalize.c").resolve()
    lines = source.read_text().splitlines()
    for name in ("main", "pass_on"):
        begin = next(i for i, line in enumerate(lines, 1) if re.match(rf"^(static )?int {name}\(", line))
        end = next(i for i, line in enumerate(lines, 1) if i > begin and line == "}")
        assert re.search(rf'Paradigm: COMPILER, .*File: "{re.escape(str(source))}" <\d+>, Begin: {begin}, '
                         rf'End: {end}$', regions[name]), regions[name]


def test_profile_has_the_program_region_as_root_and_main_below_it(experiment):
    program, directory = experiment
    profile = json.loads((directory / "profile.json").read_text())
    names = {r["id"]: r["name"] for r in profile["regions"]}
    callpaths = {c["id"]: c for c in profile["callpaths"]}
    roots = {names[c["region"]] for c in callpaths.values() if c["parent"] is None}
    assert roots == {program.name}
    below = {names[c["region"]] for c in callpaths.values()
             if c["parent"] is not None and names[callpaths[c["parent"]]["region"]] == program.name}
    assert below == {"main"}
    visits = {}
    for row in profile["rows"]:
        name = names[callpaths[row["callpath"]]["region"]]
        visits[name] = visits.get(name, 0) + row["visits"]
    assert (visits[program.name], visits["main"], visits["pass_on"]) == (RANKS, RANKS, RANKS * RANKS)


def test_finalize_ends_only_when_every_rank_is_in_it(experiment):
    """Its region spans the ranks' meeting, recorded as Score-P records it (a
    collective destroying MPI_COMM_WORLD): no rank leaves before the late
    one entered, so the others' visits hold the wait (about LATE_MS)."""
    _, directory = experiment
    records = events(directory)
    enters = {loc: t for kind, loc, t, rest in records if kind == "ENTER" and '"MPI_Finalize"' in rest}
    leaves = {loc: t for kind, loc, t, rest in records if kind == "LEAVE" and '"MPI_Finalize"' in rest}
    assert len(enters) == len(leaves) == RANKS
    assert min(leaves.values()) >= max(enters.values())
    ends = [rest for kind, _, _, rest in records if kind == "MPI_COLLECTIVE_END" and "DESTROY_HANDLE" in rest]
    assert len(ends) == RANKS and all('Communicator: "MPI_COMM_WORLD"' in rest for rest in ends)
    destroyed = [rest for kind, _, _, rest in records if kind == "COMM_DESTROY"]
    assert sum('"MPI_COMM_WORLD"' in rest for rest in destroyed) == RANKS
    # the wait: the profile's MPI_Finalize time of the punctual ranks
    profile = json.loads((directory / "profile.json").read_text())
    finalize = next(r["id"] for r in profile["regions"] if r["name"] == "MPI_Finalize")
    paths = {c["id"] for c in profile["callpaths"] if c["region"] == finalize}
    times = sorted(row["time_incl_ns"] for row in profile["rows"] if row["callpath"] in paths)
    assert len(times) == RANKS
    assert all(t >= 0.8 * LATE_MS * 1e6 for t in times[1:]), times
