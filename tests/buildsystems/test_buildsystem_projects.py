"""A CMake and an autotools build of one small MPI project (project/: a C
token ring through a static library, a Fortran `use mpi` reduction in a
module), configured with the installed compiler wrappers as a Score-P user
configures them, built, run on 2 ranks; the experiment's profile.json must
hold the MPI calls on their call paths with the visits the program makes, and
the program print what its arithmetic gives."""
import json
import os
import pathlib
import re
import shutil
import subprocess

import pytest

from conftest import build_option, mpi_env, mpirun

PROJECT = pathlib.Path(__file__).resolve().parent / "project"
RANKS = 2


def clean_env(bindir, extra=None):
    """No SCOREP_* settings or library paths from the caller; the
    installation's commands first in PATH, as a user who installed it has them."""
    env = {k: v for k, v in mpi_env().items()
           if not k.startswith("SCOREP_") and k not in ("LD_LIBRARY_PATH", "LD_PRELOAD", "OMPI_CC", "OMPI_FC",
                                                        "CC", "FC", "CFLAGS", "FCFLAGS", "MAKEFLAGS")}
    env["PATH"] = f"{bindir}{os.pathsep}{env.get('PATH', '')}"
    env.update(extra or {})
    return env


def run(argv, cwd, env, timeout=600):
    proc = subprocess.run([str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)
    if proc.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, argv))} (in {cwd}) exited {proc.returncode}\n"
                             f"stdout:\n{proc.stdout[-6000:]}\nstderr:\n{proc.stderr[-6000:]}")
    return proc


def need(tool):
    if shutil.which(tool) is None:
        pytest.fail(f"{tool} is not installed (Debian package in the Makefile's DEBIAN_PACKAGES: make deps)")


@pytest.fixture(scope="module")
def bindir(installed_prefix, build_dir):
    return installed_prefix / build_option(build_dir, "bindir")


def paths(experiment):
    """{(rank, call path as region names): (visits, bytes sent, bytes received)}"""
    profile = json.loads((experiment / "profile.json").read_text())
    names = {r["id"]: r["name"] for r in profile["regions"]}
    callpaths = {c["id"]: c for c in profile["callpaths"]}
    rank_of = {loc["id"]: loc["rank"] for loc in profile["locations"]}

    program = {r["id"] for r in profile["regions"] if r["paradigm"] == "measurement" and r["role"] == "artificial"}

    def path(cp):
        """below the program region, the root of every call path on the main thread"""
        out = []
        while cp is not None:
            if callpaths[cp]["parent"] is not None or callpaths[cp]["region"] not in program:
                out.append(names[callpaths[cp]["region"]])
            cp = callpaths[cp]["parent"]
        return tuple(reversed(out))

    rows = {}
    for row in profile["rows"]:
        key = (rank_of[row["location"]], path(row["callpath"]))
        v, s, r = rows.get(key, (0, 0, 0))
        rows[key] = (v + row["visits"], s + row["bytes_sent"], r + row["bytes_received"])
    return profile, rows


def ring_expected(rounds, user_region=False):
    """What ring does on each rank: per round one MPI_Send and one MPI_Recv
    of one long (8 bytes), inside ring_step (compiler instrumentation of
    the static library's object)."""
    top = ("main", "rounds") if user_region else ("main",)
    expected = {}
    for rank in range(RANKS):
        expected[(rank, ("main", "MPI_Init"))] = (1, 0, 0)
        expected[(rank, ("main", "MPI_Finalize"))] = (1, 0, 0)
        expected[(rank, top + ("ring_step",))] = (rounds, 0, 0)
        expected[(rank, top + ("ring_step", "MPI_Send"))] = (rounds, 8 * rounds, 0)
        expected[(rank, top + ("ring_step", "MPI_Recv"))] = (rounds, 0, 8 * rounds)
        if user_region:
            expected[(rank, ("main", "rounds"))] = (1, 0, 0)
    return expected


def ring_output(rounds):
    return f"ring: {rounds} rounds on {RANKS} ranks, token {rounds * RANKS * (RANKS + 1) // 2}\n"


# reduce: 5 MPI_Allreduce of one integer in reduction::add_step, one MPI_Reduce
# the Fortran program unit stands right below the program region (gfortran's
# C main is not instrumented, as in Score-P)
REDUCE_VISITS = {("reduce", "MPI_Init"): 1,
                 ("reduce", "reduction::add_step"): 5,
                 ("reduce", "reduction::add_step", "MPI_Allreduce"): 5,
                 ("reduce", "MPI_Reduce"): 1,
                 ("reduce", "MPI_Finalize"): 1}
REDUCE_OUTPUT = f"reduce: {RANKS} ranks, total {15 * RANKS * (RANKS + 1) // 2}, largest rank {RANKS - 1}\n"


def measure(program, work, name):
    experiment = work / f"experiment-{name}"
    proc = mpirun(RANKS, [program], cwd=work, env={"SCOREP_EXPERIMENT_DIRECTORY": str(experiment)})
    profile, rows = paths(experiment)
    assert profile["experiment"]["ranks"] == RANKS
    return proc.stdout, rows


def check_built(build, libdir, programs=("ring", "reduce")):
    """The programs link this installation's measurement; nothing of the
    configure step was measured (an instrumented check program that ran
    would have left an experiment directory)."""
    for program in programs:
        ldd = subprocess.run(["ldd", str(build / program)], capture_output=True, text=True, check=True).stdout
        assert f"libscorep_measurement.so => {libdir}/libscorep_measurement.so" in ldd, ldd
        assert f"libscorep_adapter_mpi.so => {libdir}/libscorep_adapter_mpi.so" in ldd, ldd
    assert sorted(p.name for p in build.rglob("scorep-*") if p.is_dir()) == []


def check_measured(build, work, rounds=4, user_region=False):
    out, rows = measure(build / "ring", work, f"ring-{build.name}")
    assert out == ring_output(rounds)
    expected = ring_expected(rounds, user_region)
    assert {k: rows.get(k) for k in expected} == expected
    out, rows = measure(build / "reduce", work, f"reduce-{build.name}")
    assert out == REDUCE_OUTPUT
    visits = {(rank, path): rows.get((rank, path), (None,))[0] for rank in range(RANKS) for path in REDUCE_VISITS}
    assert visits == {(rank, path): v for rank in range(RANKS) for path, v in REDUCE_VISITS.items()}


def cmake_configure_and_build(bindir, work, arguments, env):
    source = work / "project"
    shutil.copytree(PROJECT, source)
    build = work / "build"
    build.mkdir()
    run(["cmake", source, *arguments], build, clean_env(bindir, env))
    run(["make", "-j2"], build, clean_env(bindir))
    return build


@pytest.fixture(scope="module")
def cmake_build(bindir, tmp_path_factory):
    """The project configured with the MPI compilers' instances, without
    SCOREP_WRAPPER=off (its configure-time checks get the plain compiler
    anyway), and built."""
    need("cmake")
    work = tmp_path_factory.mktemp("cmake")
    build = cmake_configure_and_build(bindir, work, [], {"CC": "scorep-mpicc", "FC": "scorep-mpif90"})
    assert re.search(f"^CMAKE_C_COMPILER:[A-Z]+={bindir}/scorep-mpicc$", (build / "CMakeCache.txt").read_text(), re.M)
    return work, build


def test_cmake_project_builds_with_the_wrappers_and_is_measured(cmake_build, installed_prefix, build_dir):
    work, build = cmake_build
    libdir = installed_prefix / build_option(build_dir, "libdir")
    check_built(build, libdir)
    # CMake's compiler identification ran the plain compilers
    for language in ("C", "Fortran"):
        identified = next(build.glob(f"CMakeFiles/*/CompilerId{language}/a.out"))
        ldd = subprocess.run(["ldd", str(identified)], capture_output=True, text=True).stdout
        assert "libscorep" not in ldd, (identified, ldd)
    check_measured(build, work)


def test_cmake_project_with_plain_compilers_and_findmpi_is_measured(bindir, installed_prefix, build_dir, tmp_path):
    """Score-P's documented form, SCOREP_WRAPPER=off cmake
    -DCMAKE_C_COMPILER=scorep-gcc ...: FindMPI gives the link the MPI
    libraries by path (libmpi.so, libmpi_usempif08.so, ...); the adapters
    must come before them, or MPI calls bypass them."""
    need("cmake")
    build = cmake_configure_and_build(bindir, tmp_path, ["-DCMAKE_C_COMPILER=scorep-gcc",
                                                         "-DCMAKE_Fortran_COMPILER=scorep-gfortran"],
                                      {"SCOREP_WRAPPER": "off"})
    cache = (build / "CMakeCache.txt").read_text()
    assert re.search(f"^CMAKE_C_COMPILER:[A-Z]+={bindir}/scorep-gcc$", cache, re.M)
    assert "MPI_C_LIB_NAMES:STRING=mpi" in cache
    check_built(build, installed_prefix / build_option(build_dir, "libdir"))
    check_measured(build, tmp_path)


def test_make_variables_reach_the_instrumenter_and_the_compiler(cmake_build, bindir):
    """make SCOREP_WRAPPER_INSTRUMENTER_FLAGS=--user (the program's user
    region is recorded) SCOREP_WRAPPER_COMPILER_FLAGS=-DRING_ROUNDS=6 (the
    program makes 6 rounds), as Score-P's documentation shows them."""
    work, build = cmake_build
    run(["make", "clean"], build, clean_env(bindir))
    run(["make", "ring", "SCOREP_WRAPPER_INSTRUMENTER_FLAGS=--user", "SCOREP_WRAPPER_COMPILER_FLAGS=-DRING_ROUNDS=6"],
        build, clean_env(bindir))
    out, rows = measure(build / "ring", work, "ring-user")
    assert out == ring_output(6)
    expected = ring_expected(6, user_region=True)
    assert {k: rows.get(k) for k in expected} == expected


@pytest.fixture(scope="module")
def autotools_source(tmp_path_factory):
    need("autoreconf")
    need("automake")
    source = tmp_path_factory.mktemp("autotools") / "project"
    shutil.copytree(PROJECT, source)
    run(["autoreconf", "-i"], source, dict(os.environ))
    return source


def test_autotools_project_builds_with_the_wrappers_and_is_measured(autotools_source, bindir, installed_prefix,
                                                                   build_dir):
    """Configured as Score-P's documentation says (SCOREP_WRAPPER=off for
    configure, --disable-dependency-tracking), out of the source tree."""
    build = autotools_source.parent / "build"
    build.mkdir()
    run([autotools_source / "configure", "CC=scorep-mpicc", "FC=scorep-mpif90", "--disable-dependency-tracking"],
        build, clean_env(bindir, {"SCOREP_WRAPPER": "off"}))
    assert "CC='scorep-mpicc'" in (build / "config.log").read_text()
    made = run(["make", "-j2"], build, clean_env(bindir))
    assert "scorep-mpif90 " in made.stdout and "scorep-mpicc " in made.stdout
    check_built(build, installed_prefix / build_option(build_dir, "libdir"))
    check_measured(build, autotools_source.parent)
