"""Shared test helpers: where the build is, how to start MPI programs, and an
installed copy of the build.

Fixtures: build_dir (the meson build the tests use, $SCOREP_WRAPGEN_BUILD or
build/), installed_prefix (that build installed once per session into a
temporary directory; see below). Helpers: scorep (a build's compiler
wrapper), run_program (a program run measured, without an inherited
LD_PRELOAD), untimed_profile, profile_totals."""
import json
import os
import pathlib
import socket
import subprocess
import sys

import pytest

import cube_consistency
import trace_consistency
from trace_consistency import pytest_terminal_summary as _trace_summary


def pytest_terminal_summary(terminalreporter):
    """The counts of checked traces and CUBE files."""
    _trace_summary(terminalreporter)
    cube_consistency.pytest_terminal_summary(terminalreporter)


# Under pytest-xdist (tests/run_all.py runs most tests on 2 workers) the checks
# run in the workers: each sends its counts to the controller, which prints
# the summary above.
def pytest_sessionfinish(session):
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["consistency_checked"] = {"trace": dict(trace_consistency.CHECKED),
                                               "cube": dict(cube_consistency.CHECKED)}


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    counts = getattr(node, "workeroutput", {}).get("consistency_checked")
    for name, module in (("trace", trace_consistency), ("cube", cube_consistency)):
        for key, value in (counts or {}).get(name, {}).items():
            module.CHECKED[key] = module.CHECKED.get(key, 0) + value


# Tests that take a quarter of a minute or more each on 2 cores, most of it
# MPI launches, signals sent at intervals, or a large library wrapped:
# `-m "not slow"` leaves them out for a quick run, make check runs them all.
# A file under tests/, or one test of it; tests/README.md says why each is slow.
SLOW = [
    "faults/test_faults.py",
    "faults/test_signal_inside_measurement.py",
    "faults/test_real_program_handler.py",
    "view/test_scorep_view.py",
    "cube/test_side_by_side_with_scorep.py",
    "libwrap/test_workflow_qt.py",
    "libwrap/test_workflow_which_functions.py",
    "libwrap/test_workflow_jsoncpp.py",
    "trace/test_trace_memory_bound.py",
    "trace/test_trace_substrate.py::test_mpi_trace_larger_than_total_memory_is_complete_on_every_rank",
    "mpi/test_distgraph_measured.py",
    "mpi/test_crash_handlers_chain.py",
    "openmp/test_real_applications.py",
    "buildsystems/test_buildsystem_projects.py",
    "install/test_install_layout.py",
    "test_makefile_progress.py",
]


# Tests that measure wall time or count what happens within a time (signals
# sent at intervals, ranks that must end within 2 s, a cost against the timer,
# clock offsets measured by ping-pong, waits in an OpenMP barrier, values
# against perf stat's): tests/run_all.py runs them one at a time after the
# others, which it runs on 2 workers, so that no other test competes for the
# CPU while they run. Same form as SLOW.
SERIAL = [
    "faults/test_faults.py",
    "faults/test_signal_inside_measurement.py",
    "faults/test_real_program_handler.py",
    "metrics/test_strict_metrics.py",
    "clock/test_clock_sync.py",
    "clock/test_two_nodes.py",
    "openmp/test_ompt_libomp.py::test_worker_waits_out_the_imbalance_in_the_parallel_regions_implicit_barrier",
    "trace/test_trace_substrate.py::test_enter_exit_pair_in_trace_mode_costs_at_most_five_pairs_of_timer_reads",
    "libwrap/test_header_frontend.py::test_big_header_is_fast",
]


def pytest_collection_modifyitems(config, items):
    """Marks the SLOW and the SERIAL tests; an entry that names no file (or no
    test of its file) stops the run, so that a renamed file cannot slip into
    the quick run or the parallel run unnoticed."""
    tests = pathlib.Path(__file__).resolve().parent
    for name, entries in (("slow", SLOW), ("serial", SERIAL)):
        for entry in entries:
            file, _, test = entry.partition("::")
            if not (tests / file).is_file():
                raise pytest.UsageError(f"tests/conftest.py marks {entry} {name}, but there is no such file")
            if test and f"def {test}(" not in (tests / file).read_text():
                raise pytest.UsageError(f"tests/conftest.py marks {entry} {name}, but {file} has no such test")
    for item in items:
        try:
            where = item.path.resolve().relative_to(tests).as_posix()
        except ValueError:
            continue
        names = (where, f"{where}::{getattr(item, 'originalname', item.name)}")
        if any(n in SLOW for n in names):
            item.add_marker(pytest.mark.slow)
        if any(n in SERIAL for n in names):
            item.add_marker(pytest.mark.serial)
    if hasattr(config, "workerinput"):
        # an xdist worker (tests/run_all.py's parallel pass), whose files are
        # handed out in this order: the files with slow tests first, so that a
        # worker's last files are short ones and both workers end together
        slow_files = {item.path for item in items if item.get_closest_marker("slow")}
        items.sort(key=lambda item: item.path not in slow_files)

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))   # the generator package
BUILD = pathlib.Path(os.environ.get("SCOREP_WRAPGEN_BUILD", REPO / "build"))
# The same project built against MPICH (make check builds both).
BUILD_MPICH = pathlib.Path(os.environ.get("SCOREP_WRAPGEN_BUILD_MPICH", str(BUILD) + "-mpich"))
BUILDS = {"openmpi": BUILD, "mpich": BUILD_MPICH}
# Public reference data for the maintainers' cross-checks (the MPI Forum's
# apis.json): not part of the project, kept beside a maintainer's checkout or
# wherever $SCOREP_WRAPGEN_REFERENCE names; tests that need it skip without it,
# saying what is missing and how to get it, never where a maintainer keeps it.
REFERENCE = pathlib.Path(os.environ.get("SCOREP_WRAPGEN_REFERENCE", REPO.parent / "shared" / "reference"))

# Launchers of the two MPI libraries installed side by side (Debian names).
MPI_LAUNCHERS = {
    "openmpi": ["mpirun", "--oversubscribe"],
    "mpich": ["mpiexec.mpich"],
}
MPI_COMPILERS = {
    "openmpi": {"c": "mpicc", "f90": "mpif90"},
    "mpich": {"c": "mpicc.mpich", "f90": "mpif90.mpich"},
}


def mpi_env(extra=None):
    env = dict(os.environ)
    env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"})
    env.update(extra or {})
    return env


def mpirun(nprocs, argv, mpi="openmpi", env=None, cwd=None, timeout=120, check=True,
           launcher_args=()):
    """Run argv on nprocs ranks with the launcher of the given MPI library."""
    cmd = MPI_LAUNCHERS[mpi] + list(launcher_args) + ["-n", str(nprocs)] + [str(a) for a in argv]
    started = trace_consistency.run_started()
    proc = subprocess.run(cmd, env=mpi_env(env), cwd=cwd, timeout=timeout,
                          capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} exited {proc.returncode}\n"
                             f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    # every traced run's trace must pass scorep-check (tests/trace_consistency.py)
    trace_consistency.check_run(env, cwd, started, proc.returncode)
    # every profile.cubex agrees with its profile.json (tests/cube_consistency.py)
    cube_consistency.check_run(env, cwd, started)
    return proc


def mpi_build(mpi):
    """The meson build directory whose adapters link the given MPI library."""
    build = BUILDS[mpi]
    if not (build / "build.ninja").exists():
        # plain `make` builds only the Open MPI build; the MPICH one is make check's
        target = "make" if build == BUILD else "make build-both"
        pytest.fail(f"no meson build for {mpi} in {build}: run '{target}' first (make check does)")
    return build


@pytest.fixture(scope="session", autouse=True)
def every_profile_cubex_agrees_with_its_profile_json(tmp_path_factory):
    """At the end of the session: the profile.cubex files written in the
    session's temporary directories and not checked after their run
    (tests/cube_consistency.py)."""
    yield
    problems = cube_consistency.sweep(tmp_path_factory.getbasetemp(), host=socket.gethostname())
    if problems:
        shown = "\n  ".join(problems[:30])
        raise AssertionError(f"{len(problems)} differences between profile.cubex files and their "
                             f"profile.json:\n  {shown}")


@pytest.fixture(scope="session")
def build_dir():
    if not (BUILD / "build.ninja").exists():
        pytest.fail(f"no meson build in {BUILD}: run 'make' first (make check does)")
    return BUILD


def build_option(build, name):
    """A meson option of a configured build (prefix, libdir, bindir, ...)."""
    options = json.loads((pathlib.Path(build) / "meson-info" / "intro-buildoptions.json").read_text())
    return next(o["value"] for o in options if o["name"] == name)


def install_build(build, destdir):
    """Installs the meson build under destdir with `meson install --destdir`
    (the build keeps its configured prefix and is neither reconfigured nor
    rebuilt: build it first). Returns the installed prefix, destdir/<prefix>."""
    destdir = pathlib.Path(destdir)
    proc = subprocess.run(["meson", "install", "-C", str(build), "--destdir", str(destdir), "--no-rebuild"],
                          capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise AssertionError(f"meson install -C {build} --destdir {destdir} exited {proc.returncode}\n"
                             f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    return destdir / build_option(build, "prefix").lstrip("/")


@pytest.fixture(scope="session")
def installed_prefix(build_dir, tmp_path_factory):
    """The build installed once per session into a temporary directory; the
    value is the installed prefix (a pathlib.Path with bin/, include/,
    share/ and the libdir, build_option(build_dir, "libdir"), under it).
    Installed files find each other relative to their own location, so the
    installation works from there as from its configured prefix. Shared by
    every test of the session: do not change it (copy it to do so)."""
    return install_build(build_dir, tmp_path_factory.mktemp("installed"))


def scorep(build):
    """The scorep compiler wrapper of a build, run with this interpreter."""
    return [sys.executable, str(pathlib.Path(build) / "runtime" / "mpi_adapter" / "scorep")]


def run_program(argv, experiment=None, env=None, cwd=None, timeout=60):
    """argv run as the system adapters' tests run a program: in this
    environment without an inherited LD_PRELOAD (a preloaded adapter is the
    test's own choice), measured into experiment when one is given, with
    env's variables added; output captured as text."""
    run_env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    if experiment is not None:
        run_env["SCOREP_EXPERIMENT_DIRECTORY"] = str(experiment)
    run_env.update(env or {})
    return subprocess.run([str(a) for a in argv], cwd=cwd, env=run_env, capture_output=True, text=True,
                          timeout=timeout)


def untimed_profile(experiment):
    """profile.json without its times, to compare two runs that must record
    the same: (the locations with their event counts, {(location, call path
    as region names): row figures other than time, metrics by name}, the
    per-file I/O figures other than time)."""
    profile = json.loads((pathlib.Path(experiment) / "profile.json").read_text())
    metrics = {str(m["id"]): m["name"] for m in profile["metrics"]}
    path = call_path_of(profile)
    rows = {}
    for row in profile["rows"]:
        figures = {k: v for k, v in row.items() if not k.startswith("time_") and k not in ("location", "callpath")}
        figures["metrics"] = {metrics[m]: v for m, v in row.get("metrics", {}).items()}
        rows[(row["location"], path(row["callpath"]))] = figures
    files = [{k: v for k, v in f.items() if k != "time_ns"} for f in profile.get("io_files", [])]
    return profile["locations"], rows, files


def call_path_of(profile):
    """call_path_of(profile)(callpath id): its region names from the root"""
    regions = {r["id"]: r["name"] for r in profile["regions"]}
    callpaths = {c["id"]: c for c in profile["callpaths"]}

    def path(cid):
        names = []
        while cid is not None:
            names.append(regions[callpaths[cid]["region"]])
            cid = callpaths[cid]["parent"]
        return tuple(reversed(names))
    return path


def profile_totals(profile):
    """{(rank, region name): {counter: total}} of a profile.json (as loaded),
    summed over threads and call paths. Parameter nodes (call paths with a
    "parameter") repeat their region's visits split by value and are left
    out."""
    rank_of = {loc["id"]: loc["rank"] for loc in profile["locations"]}
    region_of = {cp["id"]: cp["region"] for cp in profile["callpaths"] if "parameter" not in cp}
    name_of = {r["id"]: r["name"] for r in profile["regions"]}
    totals = {}
    for row in profile["rows"]:
        if row["callpath"] not in region_of:
            continue
        counters = totals.setdefault((rank_of[row["location"]], name_of[region_of[row["callpath"]]]), {})
        for key, value in row.items():
            if key not in ("location", "callpath") and isinstance(value, (int, float)):
                counters[key] = counters.get(key, 0) + value
    return totals
