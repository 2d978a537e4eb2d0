"""The programs of bench/scorep_side_by_side (MPI C, `use mpi` Fortran,
threads with I/O and memory, coarray Fortran) measured by this measurement and by Score-P 8.4
give the same profile and the same trace records, judged by Score-P's own
tools (Cube's call tree and values, cube_remap2, otf2-print, Scalasca's
scout.mpi): no difference that docs/SCOREP_COMPARISON.md does not explain.

Needs all of Score-P 8.4 (`make scorep-reference` builds it into
<build>/scorep-reference, or SCOREP_REFERENCE_PREFIX names one; default
/opt/scorep) and, for the trace analysis, Scalasca 2.6 beside it. Machines
without them (CI: the full build takes 15 minutes or more) skip these tests."""
import json
import pathlib
import subprocess
import sys

import pytest

import cube_tools

REPO = pathlib.Path(__file__).resolve().parent.parent.parent
COMMAND = REPO / "bench" / "scorep_side_by_side"
PROGRAMS = ("halo2d", "ring", "workers", "coarrays")
MPI_PROGRAMS = ("halo2d", "ring")


@pytest.fixture(scope="module")
def report(build_dir, tmp_path_factory):
    scorep = cube_tools.reference("scorep")
    if scorep is None:
        pytest.skip("no Score-P 8.4 installation (make scorep-reference, or SCOREP_REFERENCE_PREFIX): "
                    "the side-by-side comparison with Score-P is skipped")
    scalasca = cube_tools.reference("scalasca")
    work = tmp_path_factory.mktemp("side-by-side")
    argv = [sys.executable, str(COMMAND), "--build", str(build_dir), "--scorep", str(scorep), "--work", str(work),
            "--json", str(work / "report.json")]
    if scalasca is not None:
        argv += ["--scalasca", str(scalasca)]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads((work / "report.json").read_text()), scalasca is not None, proc.stdout


@pytest.mark.parametrize("program", PROGRAMS)
def test_same_call_paths_as_scorep(report, program):
    differences = report[0][program]["differences"]
    assert not differences.get("profile call paths"), report[2]


@pytest.mark.parametrize("program", PROGRAMS)
def test_same_visits_and_bytes_as_scorep_on_every_call_path(report, program):
    differences = report[0][program]["differences"]
    assert not differences.get("profile values"), report[2]


@pytest.mark.parametrize("program", PROGRAMS)
def test_remapped_metric_hierarchy_has_scorep_counts_and_bytes(report, program):
    differences = report[0][program]["differences"]
    assert not any(differences.get(check) for check in ("remapped", "remapped call paths", "remapped values")), \
        report[2]


@pytest.mark.parametrize("program", PROGRAMS)
def test_trace_has_every_record_type_scorep_writes_in_the_same_numbers(report, program):
    result = report[0][program]
    assert not result["differences"].get("events"), report[2]
    # the comparison is not empty: both traces hold the program's regions
    # (the coarray program's, at two levels, its puts and gets)
    record = "RMA_PUT" if program == "coarrays" else "ENTER"
    assert result["event_counts"]["ours"][record] == result["event_counts"]["scorep"][record] > 0


def test_coarray_statements_move_the_bytes_scorep_sees_in_mpi_calls(report):
    """Ours records the coarray operations, Score-P the MPI calls under
    them: the bytes put and got, summed over the program, are the same."""
    result = report[0]["coarrays"]
    assert not result["differences"].get("totals"), report[2]
    assert result["documented"].get("profile call paths"), "the two levels are reported, as documented"


@pytest.mark.parametrize("program", MPI_PROGRAMS)
def test_scalasca_analyses_our_trace_and_finds_what_it_finds_on_scorep_s(report, program):
    if not report[1]:
        pytest.skip("no Scalasca 2.6 installation (make scorep-reference, or SCALASCA_REFERENCE_PREFIX)")
    result = report[0][program]
    assert result["figures"][f"{program}_scout_ends_on_ours_trace"] == 1, report[2]
    assert not result["differences"].get("scalasca"), report[2]
