"""The ISO C I/O adapter (scorep --io=isoc, scorep-exec --io=isoc;
generated/io/isoc/ from tasks/isoc_io.json): a program of known stdio I/O
(stdio_known.c) measured with the link-time and run-time wrappers and
preloaded into the unmodified binary, alone and with the POSIX adapter.
Oracle: the program's own source (which calls it makes, with how many bytes,
from which function), nm (which wrapped symbols it calls), its output without
measurement (which gives printf's and puts' bytes). The measurement writes
its files with stdio too (profile, reports): they never show up."""
import pathlib
import subprocess

import pytest

from conftest import run_program, scorep
from test_posix_io import io_rows, io_summary

HERE = pathlib.Path(__file__).resolve().parent
PROGRAM = HERE / "stdio_known.c"
WRAPPED = set((HERE.parent.parent / "generated" / "io" / "isoc" / "wrapped.txt").read_text().split())

# (region, visits, bytes read, bytes written) per function of stdio_known.c
WRITES = {"fopen": (1, 0, 0), "fprintf": (3, 0, 48), "fwrite": (1, 0, 50), "fputs": (1, 0, 11),
          "fputc": (2, 0, 2), "putc": (1, 0, 1), "fflush": (1, 0, 0), "fseek": (1, 0, 0), "ftell": (1, 0, 0),
          "fclose": (1, 0, 0)}
# three lines, the fputs line and a NULL at the end: 5 fgets, 59 bytes; the
# third fgetc meets the end of the file (EOF: a visit, no byte)
READS = {"fopen": (1, 0, 0), "fgets": (5, 59, 0), "fread": (1, 50, 0), "fgetc": (3, 2, 0), "getc": (1, 1, 0),
         "rewind": (1, 0, 0), "fscanf": (1, 0, 0), "fclose": (1, 0, 0)}

# per build: compiler flags and the wrapped symbols the program calls (nm);
# with _FORTIFY_SOURCE fprintf and printf are __fprintf_chk and
# __printf_chk, the fread of a run-time count __fread_chk, recorded under
# the names the source uses
COMMON = {"fopen", "fputs", "fputc", "putc", "fflush", "fseek", "ftell", "fclose", "fgets", "fgetc", "getc",
          "rewind", "__isoc99_fscanf", "fwrite", "puts"}
BUILDS = {"plain": ([], COMMON | {"fprintf", "fread", "printf"}),
          "fortified": (["-D_FORTIFY_SOURCE=2"], COMMON | {"__fprintf_chk", "__fread_chk", "__printf_chk"})}


def compile_plain(tmp_path, build):
    program = tmp_path / "stdio_plain"
    subprocess.run(["gcc", "-O2", *BUILDS[build][0], str(PROGRAM), "-o", str(program)], check=True)
    undefined = subprocess.run(["nm", "-u", "-D", str(program)], capture_output=True, text=True,
                               check=True).stdout.split()
    assert {s.split("@")[0] for s in undefined} & WRAPPED == BUILDS[build][1]
    return program


def run(program, cwd, experiment=None, extra_env=None, argv_prefix=()):
    proc = run_program([*argv_prefix, program, "data.txt"], experiment, extra_env, cwd=cwd)
    return proc, (pathlib.Path(cwd) / "data.txt").read_bytes()


def expected(plain_stdout, write_prefix, read_prefix, main_prefix):
    """The rows of stdio_known.c; printf's and puts' bytes are the lines the
    unmeasured program printed."""
    printed, done = plain_stdout.splitlines(keepends=True)
    assert done == "done\n"
    rows = {write_prefix + (k,): v for k, v in WRITES.items()}
    rows.update({read_prefix + (k,): v for k, v in READS.items()})
    rows[main_prefix + ("printf",)] = (1, 0, len(printed))
    rows[main_prefix + ("puts",)] = (1, 0, len(done))
    return rows


def merged(rows):
    """Rows whose call paths are roots (no compiler instrumentation): the
    same region under write_file and read_file is one root."""
    out = {}
    for path, (visits, read, written) in rows.items():
        old = out.get(path[-1:], (0, 0, 0))
        out[path[-1:]] = (old[0] + visits, old[1] + read, old[2] + written)
    return out


# --io=isoc alone and with posix: the POSIX calls the C library makes inside
# fwrite, fclose, ... are nested in a recorded call and not recorded (no
# double counting); the program makes no POSIX call of its own
@pytest.mark.parametrize("io,build,tracing", [("posix,isoc", "plain", "false"), ("posix,isoc", "fortified", "true"),
                                              ("isoc", "fortified", "false"),
                                              ("linktime:posix,linktime:isoc", "plain", "true"),
                                              ("linktime:isoc", "fortified", "false")])
def test_linked_isoc_adapter_records_exact_visits_and_bytes_per_call_path(build_dir, tmp_path, io, build, tracing):
    plain_dir, measured_dir = tmp_path / "plain", tmp_path / "measured"
    plain_dir.mkdir(), measured_dir.mkdir()
    plain, plain_data = run(compile_plain(tmp_path, build), plain_dir)
    assert plain.returncode == 0, plain.stderr
    program = tmp_path / "stdio_linked"
    subprocess.run(scorep(build_dir) + [f"--io={io}", "gcc", "-O2", *BUILDS[build][0], str(PROGRAM),
                                        "-o", str(program)], check=True, capture_output=True, text=True)
    dynamic = subprocess.run(["ldd", str(program)], capture_output=True, text=True, check=True).stdout
    assert ("libscorep_adapter_io_isoc_rt.so" in dynamic) == (not io.startswith("linktime:"))
    experiment = tmp_path / "experiment"
    measured, data = run(program, measured_dir, experiment, {"SCOREP_ENABLE_TRACING": tracing})
    assert (measured.returncode, measured.stdout, measured.stderr, data) == (0, plain.stdout, "", plain_data)
    rows, names = io_rows(experiment)
    # below the program region, named after the executable
    assert rows == expected(plain.stdout, ("stdio_linked", "main", "write_file"), ("stdio_linked", "main", "read_file"),
                            ("stdio_linked", "main"))
    assert names == set(WRITES) | set(READS) | {"printf", "puts"}
    per_function = merged(rows)
    assert io_summary(experiment) == {path[0]: value for path, value in per_function.items()}


@pytest.mark.parametrize("build", BUILDS)
def test_preloaded_isoc_adapter_records_exact_visits_and_bytes_and_not_its_own_stdio(installed_prefix, tmp_path,
                                                                                   build):
    """Preloaded with the POSIX adapter, tracing on, verbose messages on and
    a filter file (all read and written by the measurement while the
    wrappers are in place): only the program's calls, the filtered-out ftell
    not at all."""
    plain_dir, measured_dir = tmp_path / "plain", tmp_path / "measured"
    plain_dir.mkdir(), measured_dir.mkdir()
    program = compile_plain(tmp_path, build)
    plain, plain_data = run(program, plain_dir)
    experiment = tmp_path / "experiment"
    filter_file = tmp_path / "io.filter"
    filter_file.write_text("SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE ftell\nSCOREP_REGION_NAMES_END\n")
    measured, data = run(program, measured_dir, experiment,
                         {"SCOREP_ENABLE_TRACING": "true", "SCOREP_VERBOSE": "true",
                          "SCOREP_FILTERING_FILE": str(filter_file)},
                         argv_prefix=[installed_prefix / "bin" / "scorep-exec", "--io=posix,isoc", "--"])
    assert (measured.returncode, measured.stdout, data) == (0, plain.stdout, plain_data)
    assert (experiment / "traces.otf2").exists()
    rows, names = io_rows(experiment)
    want = merged(expected(plain.stdout, ("write_file",), ("read_file",), ()))
    del want[("ftell",)]
    # no instrumentation: the calls are right below the program region
    assert rows == {("stdio_plain",) + path: value for path, value in want.items()}
    # the filtered-out region is defined (that is where the filter decides), never entered
    assert names == {path[0] for path in want} | {"ftell"}
