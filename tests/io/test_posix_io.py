"""The POSIX I/O adapter (scorep --io=posix, scorep-exec --io=posix;
generated/io/posix/ from tasks/posix_io.json): a program of known I/O
(io_known.c) measured with the link-time wrappers and preloaded into the
unmodified binary. Oracle: the program's own source (which calls it makes,
with how many bytes, from which function) and its output without measurement;
the measurement's own files (experiment marker, profile, trace) never show up."""
import json
import pathlib
import subprocess
import sys

import pytest

from conftest import run_program, scorep

HERE = pathlib.Path(__file__).resolve().parent
PROGRAM = HERE / "io_known.c"

# (call path below the I/O function's caller, visits, bytes read, bytes written),
# from io_known.c: CHUNK 100, CHUNKS 7, READS 4, a file of 707 bytes
WRITES = {("open",): (1, 0, 0), ("write",): (6, 0, 600), ("pwrite",): (1, 0, 100),
          ("lseek",): (1, 0, 0), ("writev",): (1, 0, 7), ("close",): (1, 0, 0)}
# read_file's last read and close fail (EBADF): visits, no bytes
READS = {("open",): (1, 0, 0), ("read",): (6, 707, 0), ("pread",): (1, 4, 0), ("close",): (2, 0, 0)}


# built as is, with _FORTIFY_SOURCE (the default of some distributions'
# compilers: its reads of run-time sizes call __read_chk, __pread_chk, its
# open with run-time flags __open_2) and also with _FILE_OFFSET_BITS=64 (as
# meson and autoconf build: open64, lseek64, ...); the adapter wraps them
# all. Per build: flags, the wrapped symbols the program calls (nm), and the
# region names of open, pwrite, lseek and pread
BUILDS = {
    "plain": ([], {"open", "write", "pwrite", "lseek", "writev", "close", "read", "pread"}, ""),
    "fortified": (["-D_FORTIFY_SOURCE=2"],
                  {"open", "__open_2", "write", "pwrite", "lseek", "writev", "close", "read", "__read_chk",
                   "__pread_chk"}, ""),
    "largefile": (["-D_FILE_OFFSET_BITS=64", "-D_FORTIFY_SOURCE=2"],
                  {"open64", "__open64_2", "write", "pwrite64", "lseek64", "writev", "close", "read",
                   "__read_chk", "__pread64_chk"}, "64"),
}
WRAPPED = set((HERE.parent.parent / "generated" / "io" / "posix" / "wrapped.txt").read_text().split())


def named(calls, build):
    """WRITES/READS with the region names of the build (open64 for open, ...)."""
    suffix = BUILDS[build][2]
    return {(path[0] + suffix if path[0] in ("open", "pwrite", "lseek", "pread") else path[0],): value
            for path, value in calls.items()}


def compile_plain(tmp_path, flags=()):
    program = tmp_path / "io_plain"
    subprocess.run(["gcc", "-O2", *flags, str(PROGRAM), "-o", str(program)], check=True)
    return program


def check_calls(program, build):
    """The wrapped functions the uninstrumented program calls (nm): what the
    test measures is what it means to."""
    undefined = subprocess.run(["nm", "-u", "-D", str(program)], capture_output=True, text=True,
                               check=True).stdout.split()
    assert {s.split("@")[0] for s in undefined} & WRAPPED == BUILDS[build][1]


def run(program, cwd, experiment=None, extra_env=None, argv_prefix=()):
    proc = run_program([*argv_prefix, program, "data.bin"], experiment, extra_env, cwd=cwd)
    return proc, (pathlib.Path(cwd) / "data.bin").read_bytes()


def io_rows(experiment):
    """{call path (tuple of region names): (visits, bytes_read, bytes_written)}
    of every call path that ends in a region of paradigm io, and the io
    regions' names."""
    profile = json.loads((pathlib.Path(experiment) / "profile.json").read_text())
    regions = {r["id"]: r for r in profile["regions"]}
    callpaths = {c["id"]: c for c in profile["callpaths"]}

    def path(cp):
        names = []
        while cp is not None:
            names.append(regions[callpaths[cp]["region"]]["name"])
            cp = callpaths[cp]["parent"]
        return tuple(reversed(names))

    rows = {}
    for row in profile["rows"]:
        cp = callpaths[row["callpath"]]
        if regions[cp["region"]]["paradigm"] != "io":
            continue
        old = rows.get(path(row["callpath"]), (0, 0, 0))
        rows[path(row["callpath"])] = (old[0] + row["visits"], old[1] + row["bytes_read"],
                                       old[2] + row["bytes_written"])
    names = {r["name"] for r in profile["regions"] if r["paradigm"] == "io"}
    return rows, names


def io_summary(experiment):
    """profile.txt's I/O section: {function: (visits, bytes read, bytes written)}."""
    lines = (pathlib.Path(experiment) / "profile.txt").read_text().splitlines()
    start = lines.index("I/O summary by function (summed over all locations)")
    assert lines[start + 1].split() == ["function", "visits", "time", f"[{lines[start + 1].split()[3][1:-1]}]",
                                        "bytes", "read", "bytes", "written"]
    summary = {}
    for line in lines[start + 2:]:
        if not line:
            break
        name, visits, _time, read, written = line.split()
        summary[name] = (int(visits), int(read), int(written))
    return summary


def expected(write_prefix, read_prefix, build):
    rows = {write_prefix + k: v for k, v in named(WRITES, build).items()}
    rows.update({read_prefix + k: v for k, v in named(READS, build).items()})
    return rows


# --io=posix links the run-time wrappers (the default), --io=linktime:posix
# the __wrap_ ones
@pytest.mark.parametrize("io,build,tracing", [("posix", "plain", "false"), ("posix", "plain", "true"),
                                              ("posix", "fortified", "false"), ("linktime:posix", "plain", "false"),
                                              ("linktime:posix", "fortified", "true"),
                                              ("posix", "largefile", "false"), ("linktime:posix", "largefile", "false")])
def test_linked_io_adapter_records_exact_visits_and_bytes_per_call_path(build_dir, tmp_path, io, build, tracing):
    plain_dir, measured_dir = tmp_path / "plain", tmp_path / "measured"
    plain_dir.mkdir(), measured_dir.mkdir()
    plain_program = compile_plain(tmp_path, BUILDS[build][0])
    check_calls(plain_program, build)
    plain, plain_data = run(plain_program, plain_dir)
    assert plain.returncode == 0, plain.stderr
    program = tmp_path / "io_linked"
    subprocess.run(scorep(build_dir) + [f"--io={io}", "gcc", "-O2", *BUILDS[build][0], str(PROGRAM),
                                        "-o", str(program)], check=True, capture_output=True, text=True)
    # the wrappers are where the mode says: in the program, or a library it loads
    dynamic = subprocess.run(["ldd", str(program)], capture_output=True, text=True, check=True).stdout
    assert ("libscorep_adapter_io_posix_rt.so" in dynamic) == (io == "posix")
    experiment = tmp_path / "experiment"
    measured, data = run(program, measured_dir, experiment, {"SCOREP_ENABLE_TRACING": tracing})
    assert (measured.returncode, measured.stdout, data) == (plain.returncode, plain.stdout, plain_data)
    assert measured.stderr == ""
    rows, names = io_rows(experiment)
    # compiler instrumentation puts the I/O calls under the functions that make them
    # below the program region, named after the executable
    assert rows == expected(("io_linked", "main", "write_file"), ("io_linked", "main", "read_file"), build)
    assert names == {path[-1] for path in rows}
    # profile.txt's I/O section: the same, per function
    per_function = {}
    for path, (visits, read, written) in rows.items():
        old = per_function.get(path[-1], (0, 0, 0))
        per_function[path[-1]] = (old[0] + visits, old[1] + read, old[2] + written)
    assert io_summary(experiment) == per_function


@pytest.mark.parametrize("build", BUILDS)
def test_preloaded_io_adapter_records_exact_visits_and_bytes_and_not_its_own_files(installed_prefix, tmp_path,
                                                                                    build):
    plain_dir, measured_dir = tmp_path / "plain", tmp_path / "measured"
    plain_dir.mkdir(), measured_dir.mkdir()
    program = compile_plain(tmp_path, BUILDS[build][0])
    check_calls(program, build)
    plain, plain_data = run(program, plain_dir)
    experiment = tmp_path / "experiment"
    # tracing on: the trace files are written with write() too, through the
    # preloaded wrappers, while the measurement ends
    measured, data = run(program, measured_dir, experiment, {"SCOREP_ENABLE_TRACING": "true"},
                         argv_prefix=[installed_prefix / "bin" / "scorep-exec", "--io=posix", "--verbose", "--"])
    assert (measured.returncode, measured.stdout, data) == (plain.returncode, plain.stdout, plain_data)
    assert "libscorep_adapter_io_posix_rt.so" in measured.stderr
    assert (experiment / "traces.otf2").exists()
    rows, names = io_rows(experiment)
    # no instrumentation: the calls are right below the program region (named
    # after the executable); the program's two opens and closes, none of the
    # experiment directory's files
    want = {}
    for k, (visits, read, written) in list(named(WRITES, build).items()) + list(named(READS, build).items()):
        old = want.get(("io_plain",) + k, (0, 0, 0))
        want[("io_plain",) + k] = (old[0] + visits, old[1] + read, old[2] + written)
    assert rows == want
    assert names == {path[-1] for path in rows}


@pytest.mark.parametrize("tool", ["scorep", "scorep-exec"])
def test_unknown_io_paradigm_is_an_error_naming_the_valid_ones(build_dir, tmp_path, tool):
    if tool == "scorep":
        argv = scorep(build_dir) + ["--io=posix,stdio", "gcc", str(PROGRAM), "-o", str(tmp_path / "never")]
    else:
        argv = [sys.executable, str(pathlib.Path(build_dir) / "tools" / "scorep-exec"), "--io=stdio", "--", "true"]
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "unknown I/O paradigm 'stdio'" in proc.stderr and "valid: posix" in proc.stderr
    assert not (tmp_path / "never").exists()


def test_trace_buffer_spills_and_messages_of_the_measurement_record_no_io(build_dir, tmp_path):
    """The spill's pwrite and the verbose message about it happen inside an
    event of the program's own function (compiler instrumentation, depth 0
    of any wrapper): the wrappers linked in (runtime: form, the preloadable
    ones) pass them through, so no io region appears and no event is
    recorded inside another (OTF2 would refuse its timestamps)."""
    source = HERE / "many_calls.c"
    program = tmp_path / "many_calls"
    subprocess.run(scorep(build_dir) + ["--io=runtime:posix", "gcc", "-O1", str(source), "-o", str(program)],
                   check=True, capture_output=True, text=True)
    assert "libscorep_adapter_io_posix_rt.so" in subprocess.run(["ldd", str(program)], capture_output=True,
                                                                text=True, check=True).stdout
    experiment = tmp_path / "experiment"
    proc = run_program([program], experiment, {"SCOREP_ENABLE_TRACING": "true", "SCOREP_TOTAL_MEMORY": "1M",
                                               "SCOREP_VERBOSE": "true"}, timeout=30)
    assert (proc.returncode, proc.stdout) == (0, f"{sum(3 * i for i in range(200000))}\n")
    assert "spilled the buffer" in proc.stderr          # what the test is about happened
    assert "[OTF2]" not in proc.stderr and "Warning" not in proc.stderr, proc.stderr
    profile = json.loads((experiment / "profile.json").read_text())
    assert {r["name"] for r in profile["regions"]} == {"many_calls", "main", "triple", "TRACE_BUFFER_FLUSH"}


@pytest.mark.parametrize("tool", ["build", "installed"])
def test_io_on_threads_is_recorded_on_each_threads_location(request, build_dir, tmp_path, tool):
    """Each thread's calls and bytes land on its own location (the core makes
    a location per thread at its first event), with the link-time adapter of
    the build tree's and of the installed instrumenter."""
    if tool == "installed":
        instrumenter = [str(request.getfixturevalue("installed_prefix") / "bin" / "scorep")]
    else:
        instrumenter = scorep(build_dir)
    program = tmp_path / "threaded_io"
    subprocess.run(instrumenter + ["--nocompiler", "--io=linktime:posix", "gcc", "-O2", "-pthread",
                                   str(HERE / "threaded_io.c"), "-o", str(program)],
                   check=True, capture_output=True, text=True)
    experiment = tmp_path / "experiment"
    proc = run_program([program, tmp_path], experiment)
    assert proc.returncode == 0, proc.stderr
    threads = 3
    assert proc.stdout == "".join(f"thread {i} read {5 * (i + 1) * 10} bytes\n" for i in range(threads))
    profile = json.loads((experiment / "profile.json").read_text())
    regions = {r["id"]: r["name"] for r in profile["regions"]}
    callpaths = {c["id"]: c for c in profile["callpaths"]}
    per_location = {}
    program = []
    for row in profile["rows"]:
        cp = callpaths[row["callpath"]]
        if regions[cp["region"]] == "threaded_io":
            # the program region: the root of the thread whose first call
            # started the measurement, above that thread's calls; on the
            # other threads' locations, without a visit, above THREADS
            assert cp["parent"] is None
            if row["visits"]:
                program.append(row["location"])
            continue
        if regions[cp["region"]] == "THREADS":
            # Score-P's place for the calls of the threads that did not start it
            assert row["visits"] == 0 and regions[callpaths[cp["parent"]]["region"]] == "threaded_io"
            continue
        assert regions[callpaths[cp["parent"]]["region"]] in ("threaded_io", "THREADS")
        per_location.setdefault(row["location"], {})[regions[cp["region"]]] = (
            row["visits"], row["bytes_read"], row["bytes_written"])
    assert len(program) == 1 and program[0] in per_location
    # one location per thread that did I/O (the main thread did none; the
    # threads live at the same time); which thread got which location id is
    # the order of their first calls
    got = sorted(per_location.values(), key=lambda calls: calls["write"][2])
    assert got == [{"open": (1, 0, 0), "write": (5, 0, 5 * size), "pread": (1, 5 * size, 0), "close": (1, 0, 0)}
                   for size in (10, 20, 30)]


FORTRAN = """program fortran_io
  implicit none
  integer :: a(1000), b(1000), i
  a = [(i, i = 1, 1000)]
  open(10, file='fortran.dat', access='stream', form='unformatted', status='replace')
  write(10) a
  close(10)
  open(10, file='fortran.dat', access='stream', form='unformatted', status='old')
  read(10) b
  close(10)
  if (any(a /= b)) stop 1
end program
"""


@pytest.mark.parametrize("how", ["linked", "preloaded"])
def test_fortran_io_through_gfortrans_runtime_is_recorded(request, build_dir, tmp_path, how):
    """gfortran's runtime (libgfortran) makes the POSIX calls of Fortran I/O:
    the run-time wrappers see them, linked (--io=posix) and preloaded. The
    program writes 1000 default integers (4000 bytes) to a stream file and
    reads them back; how many write()/read() calls carry them is
    libgfortran's business, the bytes are not."""
    source = tmp_path / "fortran_io.f90"
    source.write_text(FORTRAN)
    program = tmp_path / "fortran_io"
    if how == "linked":
        subprocess.run(scorep(build_dir) + ["--nocompiler", "--io=posix", "gfortran", str(source), "-o", str(program)],
                       check=True, capture_output=True, text=True)
        prefix = []
    else:
        subprocess.run(["gfortran", str(source), "-o", str(program)], check=True)
        prefix = [request.getfixturevalue("installed_prefix") / "bin" / "scorep-exec", "--io=posix", "--"]
    experiment = tmp_path / "experiment"
    proc = run_program([*prefix, program], experiment, cwd=tmp_path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    assert (tmp_path / "fortran.dat").stat().st_size == 4000
    rows, _ = io_rows(experiment)
    # below the program region, named after the executable
    rows = {path[1:]: value for path, value in rows.items() if path[0] == "fortran_io"}
    assert rows[("open",)] == (2, 0, 0) and rows[("close",)] == (2, 0, 0)
    assert rows[("write",)][1:] == (0, 4000) and rows[("read",)][1:] == (4000, 0)
    assert sum(r[1] for r in rows.values()) == 4000 and sum(r[2] for r in rows.values()) == 4000


def test_exec_io_on_a_static_binary_says_how_to_measure_it(installed_prefix, tmp_path):
    program = tmp_path / "io_static"
    subprocess.run(["gcc", "-O2", "-static", str(PROGRAM), "-o", str(program)], check=True)
    proc = subprocess.run([installed_prefix / "bin" / "scorep-exec", "--io=posix", "--", program],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 2 and proc.stdout == "" and not (tmp_path / "data.bin").exists()
    assert proc.stderr == (f"scorep-exec: {program} is statically linked: preloading cannot reach its calls; "
                           f"relink it dynamically with the instrumenter: scorep --io=posix <compiler> ...\n")
