"""The test programs measured by Score-P 8.4 (OPARI2 source instrumentation,
rebuilt) and by this measurement, in two variants: the unmodified binary
under scorep-exec --thread=omp, and the program rebuilt by our scorep, whose
compiler plugin hands the adapter each construct's pragma line and records
the constructs GCC computes inline (a filter that excludes every function
keeps the user functions out, as Score-P's --nocompiler does). Cube's own
cube_calltree (the oracle) finds the same construct call paths with the
same visits in both profile.cubex files, and both files have the same
locations.

Rebuilt, every construct's "@file:line" is compared, and
omp_inline_constructs.c/_f.f90 add the constructs without a runtime call:
loops with a static schedule and their implicit barriers, master, flush,
atomic, combined parallel loops. What the comparison leaves out for the
unmodified binary, because a binary cannot show it (docs/OPENMP_ADAPTER.md):
the source lines of constructs other than parallel regions (a construct's
region is named after the line the debug information gives its runtime
call), the atomic construct (an inline atomic instruction), and the
programs of inline constructs. omp_orphaned_constructs.c, rebuilt: an
orphaned loop and single, ordered, sections, master, a combined parallel
sections. In both: where a task runs (the thread's
scheduling: the test compares the number of task runs) and Score-P's TASKS
tree.

Needs a Score-P installation (SCOREP_REFERENCE_PREFIX, `make
scorep-reference`, or /opt/scorep); skipped without one."""
import collections
import pathlib
import re
import shutil
import subprocess

import pytest

from conftest import run_program, scorep
from scorep_comparison import PREFIX, comparable, construct, construct_paths, reference_tool, thread_records

HERE = pathlib.Path(__file__).resolve().parent
# the programs, their compilers, the constructs each must show, its task runs
PROGRAMS = {
    "omp_constructs.c": ("gcc", {"!$omp parallel", "!$omp single", "!$omp single sblock", "!$omp for",
                                 "!$omp critical", "!$omp critical sblock", "!$omp implicit barrier",
                                 "!$omp barrier", "!$omp create task", "!$omp taskwait"}, 6),
    "omp_constructs_f.f90": ("gfortran", {"!$omp parallel", "!$omp single", "!$omp single sblock", "!$omp do",
                                          "!$omp critical", "!$omp critical sblock", "!$omp implicit barrier",
                                          "!$omp barrier", "!$omp sections", "!$omp section",
                                          "!$omp create task", "!$omp taskwait"}, 6),
    "omp_inline_constructs.c": ("gcc", {"!$omp parallel", "!$omp for", "!$omp implicit barrier", "!$omp master",
                                        "!$omp flush", "!$omp atomic", "!$omp single", "!$omp single sblock"}, 0),
    "omp_inline_constructs_f.f90": ("gfortran", {"!$omp parallel", "!$omp do", "!$omp implicit barrier",
                                                 "!$omp master", "!$omp flush", "!$omp atomic", "!$omp single",
                                                 "!$omp single sblock"}, 0),
    "omp_orphaned_constructs.c": ("gcc", {"!$omp parallel", "!$omp for", "!$omp atomic", "!$omp single",
                                          "!$omp ordered", "!$omp ordered sblock", "!$omp sections",
                                          "!$omp section", "!$omp critical", "!$omp master", "!$omp barrier",
                                          "!$omp implicit barrier", "!$omp create task", "!$omp taskwait"}, 2),
    "omp_nested.c": ("gcc", {"!$omp parallel", "!$omp implicit barrier"}, 0),
    "omp_locks.c": ("gcc", {"!$omp parallel", "!$omp single", "!$omp critical (named_section)",
                            "!$omp critical sblock", "!$omp implicit barrier", "omp_init_lock", "omp_set_lock",
                            "omp_unset_lock", "omp_test_lock", "omp_destroy_lock", "omp_init_nest_lock",
                            "omp_set_nest_lock", "omp_unset_nest_lock", "omp_destroy_nest_lock"}, 0),
}
# (program, variant): the programs of constructs without runtime calls only
# rebuilt, a binary shows none of them
UNMODIFIED = ("omp_constructs.c", "omp_constructs_f.f90", "omp_nested.c", "omp_locks.c")
VARIANTS = [(program, "rebuilt") for program in sorted(PROGRAMS)] + \
    [(program, "unmodified") for program in UNMODIFIED]
# every function excluded at compile time: the plugin still sees the constructs
FILTER_ALL = "SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE *\nSCOREP_REGION_NAMES_END\n"
ENV = {"OMP_NUM_THREADS": "2", "OMP_WAIT_POLICY": "passive", "SCOREP_ENABLE_PROFILING": "true",
       "SCOREP_ENABLE_TRACING": "true"}




# Score-P's measurement of each program, made once for both variants
_reference_runs = {}


def measure(who, variant, compiler, source, work, installed_prefix, build_dir):
    """(profile.cubex, output lines, traces.otf2) of source built and run by who"""
    (work / who).mkdir()
    program = work / who / "omp_constructs"
    if who == "scorep":
        instrumenter = [str(PREFIX / "bin" / "scorep"), "--nocompiler"]
    elif variant == "rebuilt":
        (work / "all.filter").write_text(FILTER_ALL)
        instrumenter = scorep(build_dir) + [f"--instrument-filter={work / 'all.filter'}"]
    else:
        instrumenter = []
    built = subprocess.run(instrumenter + [compiler, "-fopenmp", "-g", "-O2", str(source), "-o", str(program)],
                           capture_output=True, text=True, cwd=work, timeout=300)
    assert built.returncode == 0, f"{who}: {built.stderr}"
    experiment = work / who / "experiment"
    prefix = [installed_prefix / "bin" / "scorep-exec", "--thread=omp", "--"] if variant == "unmodified" else []
    proc = run_program([*prefix, program], experiment, ENV, cwd=work / who, timeout=120)
    assert proc.returncode == 0, proc.stderr
    output = [line for line in proc.stdout.splitlines() if not re.match(r"^rank\[\d+\]:\s+frequency = ", line)]
    return experiment / "profile.cubex", output, experiment / "traces.otf2"


@pytest.fixture(scope="module", params=VARIANTS, ids=lambda v: f"{v[0]}-{v[1]}")
def cubes(request, installed_prefix, build_dir, tmp_path_factory):
    for tool in ("scorep", "cube_calltree", "cube_dump"):
        reference_tool(tool)
    name, variant = request.param
    compiler, constructs, tasks = PROGRAMS[name]
    if shutil.which(compiler) is None:
        pytest.skip(f"no {compiler}")
    if name not in _reference_runs:
        work = tmp_path_factory.mktemp("omp-scorep")
        shutil.copy(HERE / "programs" / name, work / name)
        _reference_runs[name] = work, measure("scorep", None, compiler, work / name, work, installed_prefix,
                                              build_dir)
    work, reference = _reference_runs[name]
    # ours in the same directory (Score-P's source file and its name)
    ours_work = work / variant
    ours_work.mkdir()
    shutil.copy(work / name, ours_work / name)
    result = {"scorep": reference,
              "ours": measure("ours", variant, compiler, ours_work / name, ours_work, installed_prefix, build_dir)}
    assert result["ours"][1] == result["scorep"][1]
    return result, work, constructs, variant, tasks


def test_the_same_construct_call_paths_with_the_same_visits_as_scorep(cubes):
    """rebuilt: with every construct's "@file:line" """
    result, work, expected, variant, tasks = cubes
    lines = variant == "rebuilt"
    ours, our_tasks = comparable(construct_paths(result["ours"][0], work, lines), variant)
    theirs, their_tasks = comparable(construct_paths(result["scorep"][0], work, lines), variant)
    assert ours == theirs, (sorted(set(ours.items()) ^ set(theirs.items())))
    assert our_tasks == their_tasks == tasks
    # the program's constructs, each seen
    constructs = {construct(part) for path in ours for part in path.split("/")}
    assert expected <= constructs, expected - constructs
    if lines:
        assert all(re.search(r" @[\w.]+:\d+$", part) for path in ours for part in path.split("/")[1:]
                   if part.startswith("!$omp")), ours


def test_parallel_regions_have_scoreps_names(cubes):
    """Rebuilt, the same names; unmodified, the same number of parallel
    regions in the same files: GCC may give a parallel region's call the
    line of an enclosing loop (docs/OPENMP_ADAPTER.md)."""
    result, work, _, variant, _ = cubes
    names = {}
    for who in ("ours", "scorep"):
        proc = subprocess.run([str(reference_tool("cube_calltree")), "-c", str(result[who][0])],
                              capture_output=True, text=True, cwd=work, timeout=120)
        names[who] = set(re.findall(r"!\$omp parallel @[\w.]+:\d+", proc.stdout))
    assert names["ours"], names
    if variant == "rebuilt":
        assert names["ours"] == names["scorep"], names
    else:
        files = {who: collections.Counter(n.rsplit(":", 1)[0] for n in names[who]) for who in names}
        assert files["ours"] == files["scorep"], names


def test_the_same_locations_as_scorep(cubes):
    result, work, *_ = cubes
    locations = {}
    for who in ("ours", "scorep"):
        proc = subprocess.run([str(reference_tool("cube_dump")), "-w", str(result[who][0])], capture_output=True,
                              text=True, cwd=work, timeout=120)
        assert proc.returncode == 0, proc.stderr
        locations[who] = sorted(re.findall(r"\|-((?:Master|OMP) thread(?: \d+)?) \(id=", proc.stdout))
    assert locations["ours"] == locations["scorep"] and "OMP thread 1" in locations["ours"], locations


def test_the_same_fork_join_team_and_lock_records_as_scorep(cubes):
    """scorep_comparison.thread_records of both traces."""
    result, work, *_ = cubes
    counts = {who: thread_records(result[who][2], work) for who in ("ours", "scorep")}
    assert counts["ours"] == counts["scorep"] and counts["ours"], counts
