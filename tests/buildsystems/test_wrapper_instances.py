"""scorep-wrapper and its instances scorep-<compiler> from an installed tree:
the default set, --create, --help, and what each instance runs under
SCOREP_WRAPPER, SCOREP_WRAPPER_INSTRUMENTER_FLAGS and
SCOREP_WRAPPER_COMPILER_FLAGS. A stand-in compiler (fakecc) records every
call it gets, so the assertions read the command the compiler received, not
what the wrapper says it ran; real compiles check the result with ldd."""
import json
import os
import subprocess
import sys

import pytest

from conftest import build_option, mpi_env, mpirun, profile_totals

DEFAULT_INSTANCES = ["scorep-gcc", "scorep-g++", "scorep-gfortran", "scorep-mpicc", "scorep-mpicxx",
                     "scorep-mpif77", "scorep-mpif90", "scorep-mpifort"]

# the stand-in compiler: one JSON line per call (its arguments, its
# SCOREP_WRAPPER) into $FAKECC_LOG; prints a version for -dumpversion
FAKECC = f"""#!{sys.executable}
import json, os, sys
with open(os.environ["FAKECC_LOG"], "a") as log:
    log.write(json.dumps({{"argv": sys.argv[1:], "SCOREP_WRAPPER": os.environ.get("SCOREP_WRAPPER")}}) + "\\n")
if "-dumpversion" in sys.argv:
    print("99")
"""


def clean_env(extra=None, path_first=()):
    """The caller's environment without SCOREP_* settings and library paths,
    the given directories first in PATH, extra added."""
    env = {k: v for k, v in mpi_env().items()
           if not k.startswith("SCOREP_") and k not in ("LD_LIBRARY_PATH", "LD_PRELOAD", "OMPI_CC", "OMPI_FC")}
    env["PATH"] = os.pathsep.join([str(p) for p in path_first] + [env.get("PATH", "")])
    env.update(extra or {})
    return env


@pytest.fixture(scope="module")
def bindir(installed_prefix, build_dir):
    return installed_prefix / build_option(build_dir, "bindir")


@pytest.fixture
def fake(bindir, tmp_path):
    """(the fakecc instance, a function running it in an environment and
    returning (process, the calls fakecc got))."""
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "fakecc").write_text(FAKECC)
    (tools / "fakecc").chmod(0o755)
    made = subprocess.run([str(bindir / "scorep-wrapper"), "--create", "fakecc", str(tools)],
                          capture_output=True, text=True, env=clean_env())
    assert made.returncode == 0, made.stderr
    log = tmp_path / "fakecc.log"

    def run(args, env=None, cwd=None):
        if log.exists():
            log.unlink()
        proc = subprocess.run([str(tools / "scorep-fakecc"), *args], capture_output=True, text=True,
                              cwd=cwd or tmp_path, timeout=120,
                              env=clean_env(dict(env or {}, FAKECC_LOG=str(log)), path_first=[tools, bindir]))
        calls = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
        return proc, calls

    return tools / "scorep-fakecc", run


def test_default_instances_are_links_to_scorep_wrapper_listed_by_help(bindir):
    for name in DEFAULT_INSTANCES:
        assert (bindir / name).is_symlink(), name
        # relative: the installation keeps working when it is moved
        assert os.readlink(bindir / name) == "scorep-wrapper", name
    helped = subprocess.run([str(bindir / "scorep-wrapper"), "--help"], capture_output=True, text=True,
                            env=clean_env())
    assert helped.returncode == 0
    listed = helped.stdout.split("Instances of this installation:")[1].split()
    assert listed == DEFAULT_INSTANCES
    for variable in ("SCOREP_WRAPPER", "SCOREP_WRAPPER_INSTRUMENTER_FLAGS", "SCOREP_WRAPPER_COMPILER_FLAGS"):
        assert variable in helped.stdout


def test_scorep_wrapper_arguments_are_checked(bindir, tmp_path):
    wrapper = str(bindir / "scorep-wrapper")

    def run(*args):
        return subprocess.run([wrapper, *args], capture_output=True, text=True, env=clean_env())

    bare = run()
    assert bare.returncode == 1 and "--create COMPILER" in bare.stderr
    unknown = run("--frobnicate")
    assert unknown.returncode == 2 and "unknown argument '--frobnicate'" in unknown.stderr
    too_many = run("--create", "cc", str(tmp_path), "extra")
    assert too_many.returncode == 2 and "usage: scorep-wrapper --create COMPILER [DIRECTORY]" in too_many.stderr
    with_dir = run("--create", "/usr/bin/cc", str(tmp_path))
    assert with_dir.returncode == 1 and "'/usr/bin/cc' has a directory" in with_dir.stderr
    no_dir = run("--create", "cc", str(tmp_path / "missing"))
    assert no_dir.returncode == 1 and f"no directory '{tmp_path / 'missing'}'" in no_dir.stderr
    itself = run("--create", "wrapper", str(tmp_path))
    assert itself.returncode == 1 and "replace scorep-wrapper itself" in itself.stderr
    assert list(tmp_path.iterdir()) == []


def test_create_links_to_the_installed_script_and_refuses_to_replace(bindir, tmp_path):
    made = subprocess.run([str(bindir / "scorep-wrapper"), "--create", "cc", str(tmp_path)],
                          capture_output=True, text=True, env=clean_env())
    assert made.returncode == 0, made.stderr
    link = tmp_path / "scorep-cc"
    assert made.stdout.strip() == str(link)
    assert os.readlink(link) == os.path.realpath(bindir / "scorep-wrapper")
    again = subprocess.run([str(bindir / "scorep-wrapper"), "--create", "cc", str(tmp_path)],
                           capture_output=True, text=True, env=clean_env())
    assert again.returncode == 1 and "exists already" in again.stderr
    # a compiler not in PATH now: made, with a note
    later = subprocess.run([str(bindir / "scorep-wrapper"), "--create", "no-such-cc-here", str(tmp_path)],
                           capture_output=True, text=True, env=clean_env())
    assert later.returncode == 0 and "not in PATH now" in later.stderr
    assert (tmp_path / "scorep-no-such-cc-here").is_symlink()


def test_off_runs_the_plain_compiler_with_the_arguments_unchanged(fake):
    _, run = fake
    args = ["-c", "a b.c", '-DMSG="x y"', "-o", "out.o"]
    proc, calls = run(args, {"SCOREP_WRAPPER": "off", "SCOREP_WRAPPER_COMPILER_FLAGS": "-DNOT_USED",
                             "SCOREP_WRAPPER_INSTRUMENTER_FLAGS": "--verbose"})
    assert proc.returncode == 0, proc.stderr
    assert calls == [{"argv": args, "SCOREP_WRAPPER": "off"}]
    for value in ("OFF", "no", "0", "false"):
        _, calls = run(args, {"SCOREP_WRAPPER": value})
        assert [c["argv"] for c in calls] == [args], value


def test_instrumented_call_is_scorep_with_the_flags_of_both_variables(fake, installed_prefix, build_dir):
    _, run = fake
    args = ["-c", "a b.c", '-DMSG="x y"', "-o", "out.o"]
    proc, calls = run(args, {"SCOREP_WRAPPER_INSTRUMENTER_FLAGS": "--nocompiler  --verbose",
                             "SCOREP_WRAPPER_COMPILER_FLAGS": "-DONE -DTWO=2"})
    assert proc.returncode == 0, proc.stderr
    # --nocompiler: no version query, one call; --verbose: scorep says what it runs
    assert len(calls) == 1, calls
    argv = calls[0]["argv"]
    include = str(installed_prefix / build_option(build_dir, "includedir"))
    assert argv == [f"-I{include}", "-DONE", "-DTWO=2", *args]
    assert "scorep: fakecc " in proc.stderr
    # the compiler under the instrumenter does not instrument again
    assert calls[0]["SCOREP_WRAPPER"] == "off"


def test_instrumented_link_adds_the_measurement(fake, installed_prefix, build_dir):
    _, run = fake
    proc, calls = run(["main.o", "-o", "app"], {"SCOREP_WRAPPER_INSTRUMENTER_FLAGS": "--nocompiler"})
    assert proc.returncode == 0, proc.stderr
    argv = calls[-1]["argv"]
    libdir = str(installed_prefix / build_option(build_dir, "libdir"))
    assert argv[argv.index("main.o"):argv.index("main.o") + 3] == ["main.o", "-o", "app"]
    assert f"-L{libdir}" in argv and "-lscorep_measurement" in argv
    # no MPI compiler, no MPI adapter (scorep's decision, passed through)
    assert "-lscorep_adapter_mpi" not in argv


@pytest.mark.parametrize("args, cwd", [
    (["-c", "conftest.c", "-o", "conftest.o"], None),            # autoconf
    (["-o", "conftest", "-g", "conftest.c", "-lm"], None),        # autoconf link
    (["-c", "conftest.f90"], None),                               # autoconf, Fortran
    (["CMakeCCompilerId.c"], "CMakeFiles/3.25.1/CompilerIdC"),    # CMake's compiler identification
    (["-o", "cmTC_1.dir/src.c.o", "-c", "src.c"], "CMakeFiles/CMakeScratch/TryCompile-x1"),  # try_compile
    (["/b/meson-private/tmpab/testfile.c", "-o", "/b/meson-private/tmpab/output.exe"], None),  # meson
    (["--version"], None),                                        # queries
    (["-dumpversion"], None),
    (["-showme:link"], None),
])
def test_configure_checks_get_the_plain_compiler_unless_on(fake, tmp_path, args, cwd):
    _, run = fake
    where = tmp_path / (cwd or "")
    where.mkdir(parents=True, exist_ok=True)
    proc, calls = run(args, {"SCOREP_WRAPPER_INSTRUMENTER_FLAGS": "--nocompiler"}, cwd=where)
    assert proc.returncode == 0, proc.stderr
    assert calls == [{"argv": args, "SCOREP_WRAPPER": None}]
    # on: everything through scorep, as Score-P's instances do without off
    proc, calls = run(args, {"SCOREP_WRAPPER": "on", "SCOREP_WRAPPER_INSTRUMENTER_FLAGS": "--nocompiler"},
                      cwd=where)
    assert proc.returncode == 0, proc.stderr
    assert calls[-1]["argv"] != args and calls[-1]["argv"][0].startswith("-I"), calls


def test_an_unknown_scorep_wrapper_value_is_an_error_without_compiling(fake):
    _, run = fake
    proc, calls = run(["-c", "a.c"], {"SCOREP_WRAPPER": "maybe"})
    assert proc.returncode == 2
    assert "SCOREP_WRAPPER='maybe'" in proc.stderr and "scorep-fakecc" in proc.stderr
    assert calls == []


CONFTEST = "int main(void) { return 0; }\n"


def linked_measurement(program):
    out = subprocess.run(["ldd", str(program)], capture_output=True, text=True, check=True).stdout
    return "libscorep_measurement" in out


def test_real_conftest_program_is_plain_in_auto_mode_and_measured_when_on(bindir, tmp_path):
    (tmp_path / "conftest.c").write_text(CONFTEST)
    for mode, measured in (("", False), ("on", True)):
        if (tmp_path / "conftest").exists():
            (tmp_path / "conftest").unlink()
        proc = subprocess.run([str(bindir / "scorep-gcc"), "-o", "conftest", "conftest.c"], cwd=tmp_path,
                              capture_output=True, text=True, env=clean_env({"SCOREP_WRAPPER": mode}))
        assert proc.returncode == 0, proc.stderr
        assert linked_measurement(tmp_path / "conftest") == measured, mode


def test_mpi_compiler_whose_backend_is_an_instance_instruments_once(bindir, tmp_path):
    """OMPI_CC=scorep-gcc under scorep-mpicc: Open MPI's mpicc runs the
    instance, which sees SCOREP_WRAPPER=off from the instrumenter above it."""
    (tmp_path / "app.c").write_text('#include <mpi.h>\nint main(int c, char** v) '
                                    '{ MPI_Init(&c, &v); MPI_Finalize(); return 0; }\n')
    proc = subprocess.run([str(bindir / "scorep-mpicc"), "app.c", "-o", "app"], cwd=tmp_path,
                          capture_output=True, text=True,
                          env=clean_env({"OMPI_CC": "scorep-gcc", "SCOREP_WRAPPER_INSTRUMENTER_FLAGS": "--verbose"},
                                        path_first=[bindir]))
    assert proc.returncode == 0, proc.stderr
    said = [line for line in proc.stderr.splitlines() if line.startswith("scorep: ")]
    assert len(said) == 1 and said[0].startswith("scorep: mpicc "), proc.stderr
    assert linked_measurement(tmp_path / "app")


def needed(program):
    out = subprocess.run(["readelf", "-d", str(program)], capture_output=True, text=True, check=True).stdout
    return [line.split("[")[1].rstrip("]") for line in out.splitlines() if "(NEEDED)" in line]


def test_adapter_comes_before_an_mpi_library_the_link_names(bindir, tmp_path):
    """A plain compiler's instance linking an MPI library by path or -l (what
    CMake's FindMPI and meson's dependency('mpi') give it): the MPI adapter
    goes ahead of libmpi in the program's NEEDED list, where the dynamic
    linker binds MPI_* to it, and the program's MPI calls are measured; the
    libraries after it keep the command's as-needed state."""
    (tmp_path / "app.c").write_text('#include <mpi.h>\nint main(int c, char** v) '
                                    '{ MPI_Init(&c, &v); MPI_Barrier(MPI_COMM_WORLD); MPI_Finalize(); return 0; }\n')
    flags = subprocess.run(["mpicc", "--showme:compile"], capture_output=True, text=True, check=True).stdout.split()
    link = subprocess.run(["mpicc", "--showme:link"], capture_output=True, text=True, check=True).stdout.split()
    libdirs = [a[2:] for a in link if a.startswith("-L")]
    libmpi = next(os.path.join(d, "libmpi.so") for d in libdirs if os.path.exists(os.path.join(d, "libmpi.so")))
    for how, args in (("path", [libmpi, "-Wl,--as-needed", "-lz"]),
                      ("-l", [f"-L{os.path.dirname(libmpi)}", "-lmpi", "-Wl,--as-needed", "-lz"])):
        command = [str(bindir / "scorep-gcc"), *flags, "app.c", "-o", "app", *args]
        proc = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, env=clean_env())
        assert proc.returncode == 0, proc.stderr
        libs = needed(tmp_path / "app")
        mpi = next(i for i, lib in enumerate(libs) if lib.startswith("libmpi.so"))
        assert libs.index("libscorep_adapter_mpi.so") < mpi, (how, libs)
        # -lz, unused, after the command's own --as-needed: left out as it asks
        assert "libz.so.1" not in libs, (how, libs)
        experiment = tmp_path / f"experiment-{how.strip('-')}"
        mpirun(1, [tmp_path / "app"], cwd=tmp_path, env={"SCOREP_EXPERIMENT_DIRECTORY": str(experiment)})
        totals = profile_totals(json.loads((experiment / "profile.json").read_text()))
        assert {name: totals.get((0, name), {}).get("visits") for name in ("MPI_Init", "MPI_Barrier", "MPI_Finalize")} \
            == {"MPI_Init": 1, "MPI_Barrier": 1, "MPI_Finalize": 1}, how
