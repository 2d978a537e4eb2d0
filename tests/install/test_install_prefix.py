"""An installation works from any prefix: installed with meson install --destdir,
then moved to another directory, its libraries and executables find their own
dependencies (RUNPATH relative to $ORIGIN) and the installed scorep finds the
libraries relative to itself. Acceptance point of library wrapping: the MPI
adapter LD_PRELOADed by its full path into an unmodified MPI program."""
import json
import os
import shutil
import subprocess

import pytest

from conftest import MPI_LAUNCHERS, build_option, install_build, mpi_env

RING = r"""
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    long sum = 0;
    for (int i = 0; i < 10; i++) {
        int out = rank * 100 + i, in = -1;
        MPI_Sendrecv(&out, 1, MPI_INT, next, i, &in, 1, MPI_INT, prev, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        sum += in;
    }
    for (int i = 0; i < 7; i++) {
        double value = rank + i;
        if (rank == 0) {
            MPI_Send(&value, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
        } else if (rank == 1) {
            MPI_Recv(&value, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            sum += (long)value;
        }
    }
    long total = 0;
    for (int i = 0; i < 3; i++) MPI_Allreduce(&sum, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d of %d: sum %ld total %ld\n", rank, size, sum, total);
    MPI_Finalize();
    return 0;
}
"""

# what RING does on each of 2 ranks: (rank, region) -> (visits, bytes sent, bytes received)
RING_CALLS = {
    (0, "MPI_Sendrecv"): (10, 40, 40), (1, "MPI_Sendrecv"): (10, 40, 40),
    (0, "MPI_Send"): (7, 56, 0), (1, "MPI_Recv"): (7, 0, 56),
    # Score-P's convention: an allreduce of n bytes is n x (ranks) each way
    (0, "MPI_Allreduce"): (3, 3 * 8 * 2, 3 * 8 * 2), (1, "MPI_Allreduce"): (3, 3 * 8 * 2, 3 * 8 * 2),
    (0, "MPI_Barrier"): (1, 0, 0), (1, "MPI_Barrier"): (1, 0, 0),
    (0, "MPI_Init"): (1, 0, 0), (1, "MPI_Init"): (1, 0, 0),
    (0, "MPI_Finalize"): (1, 0, 0), (1, "MPI_Finalize"): (1, 0, 0),
}


def clean_env(extra=None, base=None):
    """No SCOREP_* settings and no library search path from the caller: the
    installation must find its libraries by itself."""
    env = {k: v for k, v in (base or os.environ).items()
           if not k.startswith("SCOREP_") and k not in ("LD_LIBRARY_PATH", "LD_PRELOAD")}
    env.update(extra or {})
    return env


def run_mpi(argv, cwd, extra=None):
    """argv on 2 Open MPI ranks in clean_env(extra); Open MPI forwards to the
    ranks (and not to mpirun itself) the variables that -x names."""
    forward = [a for key in (extra or {}) for a in ("-x", key)]
    cmd = MPI_LAUNCHERS["openmpi"] + forward + ["-n", "2"] + [str(a) for a in argv]
    proc = subprocess.run(cmd, cwd=cwd, env=clean_env(extra, base=mpi_env()), capture_output=True, text=True,
                          timeout=120)
    if proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} exited {proc.returncode}\nstdout:\n{proc.stdout}\n"
                             f"stderr:\n{proc.stderr}")
    return proc


def is_elf(path):
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


@pytest.fixture(scope="module")
def moved(build_dir, tmp_path_factory):
    """The build installed into one temporary directory, then moved to another:
    (prefix, libdir) of the moved installation; the original place is gone."""
    first = tmp_path_factory.mktemp("install-here")
    prefix = install_build(build_dir, first)
    target = tmp_path_factory.mktemp("moved-there") / "scorep-wrapgen"
    shutil.move(str(prefix), str(target))
    shutil.rmtree(first)
    assert not prefix.exists()
    return target, target / build_option(build_dir, "libdir")


@pytest.fixture(scope="module")
def ring_plain(moved, tmp_path_factory):
    work = tmp_path_factory.mktemp("ring")
    (work / "ring.c").write_text(RING)
    subprocess.run(["mpicc", "ring.c", "-o", "ring"], cwd=work, check=True, capture_output=True, text=True)
    return work / "ring"


def elf_files(prefix):
    return sorted(p for p in prefix.rglob("*") if p.is_file() and not p.is_symlink() and is_elf(p))


def runpath(path):
    """The RUNPATH (or old-style RPATH) entries of an ELF file."""
    out = subprocess.run(["readelf", "-d", str(path)], capture_output=True, text=True, check=True).stdout
    return [d for line in out.splitlines() if "(RUNPATH)" in line or "(RPATH)" in line
            for d in line.split("[", 1)[1].rstrip("]").split(":")]


def mpi_profile(experiment):
    """profile.json and {(rank, region): (visits, bytes sent, bytes received)}."""
    data = json.loads((experiment / "profile.json").read_text())
    name = {r["id"]: r["name"] for r in data["regions"]}
    region_of = {c["id"]: c["region"] for c in data["callpaths"]}
    rank_of = {loc["id"]: loc["rank"] for loc in data["locations"]}
    out = {}
    for row in data["rows"]:
        key = (rank_of[row["location"]], name[region_of[row["callpath"]]])
        v, s, r = out.get(key, (0, 0, 0))
        out[key] = (v + row["visits"], s + row["bytes_sent"], r + row["bytes_received"])
    return data, out


def test_installed_tree_has_the_libraries_and_commands(moved):
    prefix, libdir = moved
    for name in ("scorep_measurement", "scorep_mpi_layer", "scorep_adapter_mpi"):
        assert (libdir / f"lib{name}.so").is_file(), name
    for name in ("scorep", "scorep-info", "scorep-filter"):
        assert os.access(prefix / "bin" / name, os.X_OK), name
    assert (prefix / "include" / "scorep_wrapgen" / "libwrap.h").is_file()


def test_every_installed_elf_file_has_an_origin_relative_runpath(moved):
    prefix, libdir = moved
    files = elf_files(prefix)
    assert any(f.parent == libdir for f in files) and any(f.parent == prefix / "bin" for f in files)
    wrong = {}
    for path in files:
        entries = runpath(path)
        if not entries or not all(d.startswith("$ORIGIN") for d in entries):
            wrong[str(path.relative_to(prefix))] = entries
    assert wrong == {}, "installed ELF files without a $ORIGIN-relative RUNPATH (install_rpath in meson)"


def test_ldd_finds_every_dependency_of_every_installed_library_and_executable(moved):
    prefix, _ = moved
    missing = {}
    for path in elf_files(prefix):
        out = subprocess.run(["ldd", str(path)], capture_output=True, text=True, env=clean_env()).stdout
        lost = [line.strip() for line in out.splitlines() if "not found" in line]
        if lost:
            missing[str(path.relative_to(prefix))] = lost
    assert missing == {}


def test_preloaded_mpi_adapter_measures_an_unmodified_mpi_program_from_the_moved_tree(moved, ring_plain,
                                                                                     tmp_path):
    _, libdir = moved
    adapter = libdir / "libscorep_adapter_mpi.so"
    plain = run_mpi([ring_plain], tmp_path)
    experiment = tmp_path / "experiment"
    measured = run_mpi([ring_plain], tmp_path, {"SCOREP_EXPERIMENT_DIRECTORY": str(experiment),
                                                "LD_PRELOAD": str(adapter)})
    assert "cannot open shared object" not in measured.stderr, measured.stderr
    assert sorted(measured.stdout.splitlines()) == sorted(plain.stdout.splitlines())
    assert len(plain.stdout.splitlines()) == 2
    data, calls = mpi_profile(experiment)
    assert data["experiment"]["ranks"] == 2
    assert {key: calls.get(key) for key in RING_CALLS} == RING_CALLS


def test_moved_scorep_builds_a_measured_program_that_runs(moved, ring_plain, tmp_path):
    prefix, libdir = moved
    work = tmp_path
    (work / "ring.c").write_text(RING)
    subprocess.run([str(prefix / "bin" / "scorep"), "mpicc", "ring.c", "-o", "ring_measured"], cwd=work,
                   check=True, capture_output=True, text=True, env=clean_env())
    program = work / "ring_measured"
    # linked against the moved installation, found there without any search path
    ldd = subprocess.run(["ldd", str(program)], capture_output=True, text=True, env=clean_env()).stdout
    assert f"libscorep_adapter_mpi.so => {libdir}/libscorep_adapter_mpi.so" in ldd, ldd
    assert f"libscorep_measurement.so => {libdir}/libscorep_measurement.so" in ldd, ldd
    experiment = work / "experiment"
    proc = run_mpi([program], work, {"SCOREP_EXPERIMENT_DIRECTORY": str(experiment)})
    plain = run_mpi([ring_plain], work)
    assert sorted(proc.stdout.splitlines()) == sorted(plain.stdout.splitlines())
    _, calls = mpi_profile(experiment)
    assert {key: calls.get(key) for key in RING_CALLS} == RING_CALLS


def test_moved_compiler_wrapper_instance_builds_a_measured_program(moved, ring_plain, tmp_path):
    """scorep-mpicc, a relative link to scorep-wrapper, runs the scorep beside
    it in the moved tree (docs/INSTRUMENTATION.md, build systems)."""
    prefix, libdir = moved
    assert os.readlink(prefix / "bin" / "scorep-mpicc") == "scorep-wrapper"
    (tmp_path / "ring.c").write_text(RING)
    env = clean_env({"PATH": f"{prefix / 'bin'}{os.pathsep}{os.environ['PATH']}"})
    for step in (["-c", "ring.c"], ["ring.o", "-o", "ring_measured"]):
        subprocess.run(["scorep-mpicc", *step], cwd=tmp_path, check=True, capture_output=True, text=True, env=env)
    ldd = subprocess.run(["ldd", str(tmp_path / "ring_measured")], capture_output=True, text=True,
                         env=clean_env()).stdout
    assert f"libscorep_measurement.so => {libdir}/libscorep_measurement.so" in ldd, ldd
    experiment = tmp_path / "experiment"
    proc = run_mpi([tmp_path / "ring_measured"], tmp_path, {"SCOREP_EXPERIMENT_DIRECTORY": str(experiment)})
    plain = run_mpi([ring_plain], tmp_path)
    assert sorted(proc.stdout.splitlines()) == sorted(plain.stdout.splitlines())
    _, calls = mpi_profile(experiment)
    assert {key: calls.get(key) for key in RING_CALLS} == RING_CALLS


def test_moved_scorep_filter_runs(moved, tmp_path):
    prefix, _ = moved
    path = tmp_path / "filter.txt"
    path.write_text("SCOREP_REGION_NAMES_BEGIN EXCLUDE deflate* SCOREP_REGION_NAMES_END\n")
    proc = subprocess.run([str(prefix / "bin" / "scorep-filter"), str(path)], input="deflate\ninflate\n",
                          capture_output=True, text=True, env=clean_env(), check=True)
    assert proc.stdout == "-deflate\n+inflate\n"


def test_session_installation_is_a_working_prefix(installed_prefix, build_dir):
    """The installed_prefix fixture (tests/conftest.py) that other tests use."""
    libdir = installed_prefix / build_option(build_dir, "libdir")
    assert (libdir / "libscorep_measurement.so").is_file()
    proc = subprocess.run([str(installed_prefix / "bin" / "scorep-info"), "config-vars"], capture_output=True,
                          text=True, env=clean_env(), check=True)
    assert "SCOREP_LIBWRAP_NESTED" in proc.stdout


def test_pkg_config_files_point_into_the_moved_tree(moved, tmp_path):
    prefix, libdir = moved
    env = clean_env({"PKG_CONFIG_PATH": str(libdir / "pkgconfig")})
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "scorep-measurement"], capture_output=True,
                           text=True, env=env, check=True).stdout
    paths = {f[:2]: os.path.realpath(f[2:]) for f in flags.split() if f[:2] in ("-L", "-I")}
    assert paths == {"-L": os.path.realpath(libdir), "-I": os.path.realpath(prefix / "include")}


ZLIB_CALLS = r"""
#include <stdio.h>
#include <zlib.h>
int main(void)
{
    unsigned long crc = 0;
    for (int i = 0; i < 6; i++) crc = crc32(crc, (const unsigned char*)"abc", 3);
    printf("%s %lu\n", zlibVersion(), crc);
    return 0;
}
"""


def test_library_wrapper_made_with_the_moved_tree_is_preloaded_by_full_path(moved, tmp_path):
    """scorep-libwrap-init of the moved tree, make install into that tree (the
    default), then LD_PRELOAD of the run-time wrapper by its full path (and
    of the measurement core) into an unmodified program."""
    prefix, libdir = moved
    env = clean_env()
    work = tmp_path / "wrap-z"
    subprocess.run([str(prefix / "bin" / "scorep-libwrap-init"), "--name", "z", "-x", "c", "--libs", "-lz",
                    "--header", "zlib.h", str(work)], check=True, capture_output=True, text=True, env=env)
    (work / "main.c").write_text(ZLIB_CALLS)
    for target in ((), ("install",)):
        make = subprocess.run(["make", "-C", str(work), *target], capture_output=True, text=True, env=env)
        assert make.returncode == 0, make.stdout + make.stderr
    wrapper = prefix / "lib" / "libscorep_libwrap_z_runtime.so"
    assert wrapper.is_file()
    plain = subprocess.run([str(work / "main")], capture_output=True, text=True, env=env, check=True)
    measured = subprocess.run([str(work / "main")], capture_output=True, text=True, check=True,
                              env=clean_env({"LD_PRELOAD": f"{wrapper}:{libdir / 'libscorep_measurement.so'}",
                                             "SCOREP_EXPERIMENT_DIRECTORY": str(tmp_path / "experiment")}))
    assert measured.stdout == plain.stdout
    profile = json.loads((tmp_path / "experiment" / "profile.json").read_text())
    names = {r["id"]: r["name"] for r in profile["regions"]}
    region_of = {c["id"]: c["region"] for c in profile["callpaths"] if "parameter" not in c}
    visits = {}
    for row in profile["rows"]:
        if row["callpath"] in region_of:
            name = names[region_of[row["callpath"]]]
            visits[name] = visits.get(name, 0) + row["visits"]
    assert visits.get("crc32") == 6 and visits.get("zlibVersion") == 1


def test_process_end_component_preloaded_by_full_path_from_the_moved_tree_writes_a_shells_data(moved, tmp_path):
    """dash ends every run with _exit: with the installed process-end component
    preloaded by its full path (beside the POSIX I/O adapter, which starts the
    measurement, and the core) its data is written, whole; without the
    component nothing is."""
    _, libdir = moved
    io = libdir / "libscorep_adapter_io_posix_rt.so"
    core = libdir / "libscorep_measurement.so"
    component = libdir / "libscorep_process_end.so"
    script = "echo hello > out; cat out"
    for name, preload in (("with", [io, component, core]), ("without", [io, core])):
        proc = subprocess.run(["/bin/sh", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                              env=clean_env({"LD_PRELOAD": ":".join(map(str, preload)),
                                             "SCOREP_EXPERIMENT_DIRECTORY": str(tmp_path / name)}))
        assert (proc.returncode, proc.stdout) == (0, "hello\n"), proc.stderr
        assert "cannot be preloaded" not in proc.stderr, proc.stderr
    data = json.loads((tmp_path / "with" / "profile.json").read_text())
    assert data["experiment"]["partial"] is False
    assert "write" in {r["name"] for r in data["regions"]}
    assert not (tmp_path / "without" / "profile.json").exists()
