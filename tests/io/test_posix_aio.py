"""POSIX asynchronous I/O in the POSIX I/O adapter (docs/IO_ADAPTER.md,
"Asynchronous I/O"): aio_read, aio_write, lio_listio, aio_error, aio_return,
aio_suspend, aio_cancel, aio_fsync (their 64 forms with _FILE_OFFSET_BITS=64)
are wrapped; an operation's bytes count once, at its aio_return, for
aio_return's call path and the file; the trace has each operation's
IoOperationBegin (non-blocking), IoOperationIssued, IoOperationTest (an
aio_error that saw EINPROGRESS) and IoOperationComplete or
IoOperationCancelled, paired by the matching id (the aiocb).
The program (aio_known.c) makes known calls, every one deterministic (see its
comment); oracles: its own output and file without measurement, and
otf2-print for the records."""
import collections
import json
import pathlib
import re
import subprocess
import sys

import pytest

from test_io_trace import io_records
from conftest import run_program, scorep
from test_posix_io import io_rows

HERE = pathlib.Path(__file__).resolve().parent
PROGRAM = HERE / "aio_known.c"

# region: (visits, bytes read, bytes written), from aio_known.c: the bytes at
# aio_return (1000 + 300 + 50 written to the file, 5 into the pipe, 600 +
# 100 + 10 read), none at the submissions; the fifo's write of 10 and the
# pipe's read of 5 are blocking transfers (the pipe's close is not wrapped:
# the program leaves it open)
CALLS = {"open": (2, 0, 0), "aio_write": (2, 0, 0), "aio_read": (3, 0, 0), "lio_listio": (2, 0, 0),
         "aio_suspend": (6, 0, 0), "aio_error": (10, 0, 0), "aio_return": (9, 710, 1355),
         "aio_fsync": (1, 0, 0), "aio_cancel": (1, 0, 0), "write": (1, 0, 10), "read": (1, 5, 0),
         "close": (2, 0, 0)}
# per file: transfers (the fifo's cancelled read is none), bytes read and written
FILES = {"aio.dat": (5, 700, 1350), "aio.fifo": (2, 10, 10)}
LARGEFILE = ["-D_FILE_OFFSET_BITS=64"]


def named(build):
    """CALLS with the region names of the build: aio_read64, ... with _FILE_OFFSET_BITS=64."""
    if build == "plain":
        return dict(CALLS)
    return {(name + "64" if name.startswith(("aio_", "lio_", "open")) else name): value for name, value in CALLS.items()}


def run(argv, cwd, experiment=None, tracing="false"):
    cwd.mkdir()
    proc = run_program(argv, experiment, {"SCOREP_ENABLE_TRACING": tracing} if experiment else None, cwd=cwd)
    return proc, (cwd / "aio.dat").read_bytes()


def per_region(rows, linked):
    """{region: (visits, read, written)} of io_rows, summed over the call
    paths, all below the program region (the executable's name): linked, the
    program is instrumented, the calls are under main or its helpers
    (aio_return, with the bytes, under finish); preloaded, right below it."""
    out = {}
    for path, value in rows.items():
        assert path[0] == ("aio_measured" if linked else "aio_plain"), path
        path = path[1:]
        if linked:
            assert path[0] == "main" and path[1:-1] in ((), ("wait_for",), ("finish",)), path
            if path[-1].startswith("aio_return"):
                assert path == ("main", "finish", path[-1]), path
        else:
            assert len(path) == 1, path
        old = out.get(path[-1], (0, 0, 0))
        out[path[-1]] = tuple(a + b for a, b in zip(old, value))
    return out


def operations(records):
    """{(file, matching id): [(record kind, fields)]} of the aio operations
    (matching ids of blocking transfers are small per-thread counters,
    an aio operation's is its aiocb's address)."""
    ops = collections.defaultdict(list)
    for kind, name, fields in records:
        if "Matching Id" in fields and int(fields["Matching Id"]) > 1 << 20:
            ops[(name, int(fields["Matching Id"]))].append((kind, fields))
    return ops


@pytest.mark.parametrize("mode,build,tracing", [("runtime", "plain", "true"), ("linktime", "plain", "false"),
                                                ("runtime", "largefile", "false"),
                                                ("linktime", "largefile", "true"),
                                                ("preloaded", "plain", "true")])
def test_aio_bytes_count_once_at_aio_return_per_call_path_and_file(request, build_dir, tmp_path, mode, build,
                                                                   tracing):
    flags = LARGEFILE if build == "largefile" else []
    plain_program = tmp_path / "aio_plain"
    subprocess.run(["gcc", "-O2", *flags, str(PROGRAM), "-o", str(plain_program)], check=True)
    plain, plain_data = run([plain_program], tmp_path / "plain")
    assert plain.returncode == 0 and "written 1355, read 710, file size 1350" in plain.stdout, plain.stdout
    assert "cancelled\n" in plain.stdout and "in progress" in plain.stdout   # the program did what it says
    experiment = tmp_path / "experiment"
    if mode == "preloaded":
        installed = request.getfixturevalue("installed_prefix")
        argv = [installed / "bin" / "scorep-exec", "--io=posix", "--", plain_program]
    else:
        program = tmp_path / "aio_measured"
        subprocess.run(scorep(build_dir) + [f"--io={mode}:posix", "gcc", "-O2", *flags, str(PROGRAM),
                                            "-o", str(program)], check=True, capture_output=True, text=True)
        argv = [program]
    measured, data = run(argv, tmp_path / "measured", experiment, tracing)
    assert (measured.returncode, measured.stdout, measured.stderr, data) == (0, plain.stdout, "", plain_data)
    rows, _ = io_rows(experiment)
    assert per_region(rows, mode != "preloaded") == named(build)
    profile = json.loads((experiment / "profile.json").read_text())
    files = {pathlib.Path(f["name"]).name: (f["visits"], f["bytes_read"], f["bytes_written"])
             for f in profile["io_files"]}
    assert files == FILES
    if tracing == "true":
        check_records(experiment)


def check_records(experiment):
    """otf2-print's records of every aio operation, by matching id, in order
    (the pipe's has none: its descriptor has no I/O handle)."""
    ops = operations(io_records(experiment))
    shapes = sorted(
        (name, tuple(kind for kind, _ in recs), recs[0][1]["Mode"], recs[0][1]["Operation Flags"],
         int(recs[0][1]["Bytes Request"]),
         int(recs[-1][1]["Bytes Result"]) if recs[-1][0] == "IO_OPERATION_COMPLETE" else None)
        for (name, _), recs in ops.items())
    done = ("IO_OPERATION_BEGIN", "IO_OPERATION_ISSUED", "IO_OPERATION_COMPLETE")
    assert {pathlib.Path(name).name for name, *_ in shapes} == {"aio.dat", "aio.fifo"}
    assert [shape[1:] for shape in shapes if pathlib.Path(shape[0]).name == "aio.dat"] == sorted([
        (done, "WRITE", "{NON_BLOCKING}", 1000, 1000),   # aio_write
        (done, "READ", "{NON_BLOCKING}", 600, 600),      # aio_read
        (done, "WRITE", "NONE", 300, 300),               # lio_listio(LIO_WAIT)
        (done, "READ", "NONE", 100, 100),
        (done, "WRITE", "{NON_BLOCKING}", 50, 50)])      # lio_listio(LIO_NOWAIT)
    assert [shape[1:] for shape in shapes if pathlib.Path(shape[0]).name == "aio.fifo"] == sorted([
        (("IO_OPERATION_BEGIN", "IO_OPERATION_ISSUED", "IO_OPERATION_TEST", "IO_OPERATION_COMPLETE"),
         "READ", "{NON_BLOCKING}", 10, 10),              # tested before its data came
        (("IO_OPERATION_BEGIN", "IO_OPERATION_ISSUED", "IO_OPERATION_CANCELLED"),
         "READ", "{NON_BLOCKING}", 10, None)])           # cancelled


def test_many_aio_operations_in_flight_complete_out_of_order_on_two_threads(build_dir, tmp_path):
    """500 operations in flight at once (the core's table of them), each
    completed once, in another order than submitted, half of them on another
    thread than submitted them: every aio_return counts its own operation's
    bytes on its own thread, the file gets each operation once, and the trace
    pairs each operation's begin and complete by its aiocb."""
    program = tmp_path / "aio_many"
    subprocess.run(scorep(build_dir) + ["--io=posix", "gcc", "-O2", str(HERE / "aio_many.c"), "-o", str(program),
                                        "-pthread"], check=True, capture_output=True, text=True)
    experiment = tmp_path / "experiment"
    proc = run_program([program], experiment, {"SCOREP_ENABLE_TRACING": "true"}, cwd=tmp_path)
    # 1 + 3 + ... + 499 on the main thread, 2 + 4 + ... + 500 on the second
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "main thread 62500 bytes, second thread 62750 bytes\n",
                                                           "")
    profile = json.loads((experiment / "profile.json").read_text())
    regions = {r["id"]: r["name"] for r in profile["regions"]}
    callpaths = {c["id"]: c["region"] for c in profile["callpaths"]}
    returned = sorted((row["visits"], row["bytes_written"]) for row in profile["rows"]
                      if regions[callpaths[row["callpath"]]] == "aio_return")
    assert returned == [(250, 62500), (250, 62750)]
    files = {pathlib.Path(f["name"]).name: (f["visits"], f["bytes_written"]) for f in profile["io_files"]}
    assert files == {"aio_many.dat": (500, 125250)}
    ops = operations(io_records(experiment))
    assert len(ops) == 500
    shapes = collections.Counter((tuple(kind for kind, _ in recs), int(recs[0][1]["Bytes Request"]) ==
                                  int(recs[-1][1]["Bytes Result"])) for recs in ops.values())
    assert shapes == {(("IO_OPERATION_BEGIN", "IO_OPERATION_ISSUED", "IO_OPERATION_COMPLETE"), True): 500}
    # scorep-score's trace size estimate counts these records: within 10 % of
    # the real event files (about 30 % short without them)
    score = subprocess.run([sys.executable, str(build_dir / "runtime" / "scorep-score"), str(experiment)],
                           capture_output=True, text=True, check=True).stdout
    estimate = int(re.search(r"^\s+ALL\s+[\d,]+\s+([\d,]+)\s", score, re.M).group(1).replace(",", ""))
    real = sum(f.stat().st_size for f in (experiment / "traces").glob("*.evt"))
    assert abs(estimate - real) <= 0.10 * real, (estimate, real)


def test_aio_completions_collected_in_the_notification_signals_handler_never_hang(build_dir, tmp_path):
    """aio_error and aio_return are async-signal-safe, and programs collect
    completions in the handler of the aio's notification signal
    (aio_signal.c: SIGEV_SIGNAL, 500 writes). A handler that interrupts its
    own thread inside the core's table of operations must not wait for the
    table's lock, which that thread holds (it waited for ever with nested
    library calls recorded). SCOREP_IO_TEST_AIO_LOCK_HOLD_US holds the table
    so that the signals arrive then; three runs, each as the program's
    unmeasured run."""
    plain = tmp_path / "aio_signal_plain"
    subprocess.run(["gcc", "-O2", str(HERE / "aio_signal.c"), "-o", str(plain)], check=True)
    expected = run_program([plain, tmp_path / "plain.dat"])
    assert (expected.returncode, expected.stdout) == (0, "collected 500, 8000 bytes\n")
    program = tmp_path / "aio_signal"
    subprocess.run(scorep(build_dir) + ["--io=posix", "gcc", "-O2", str(HERE / "aio_signal.c"), "-o", str(program)],
                   check=True, capture_output=True, text=True)
    for round_ in range(3):
        proc = run_program([program, tmp_path / f"out{round_}.dat"], tmp_path / f"experiment{round_}",
                           {"SCOREP_LIBWRAP_NESTED": "true", "SCOREP_IO_TEST_AIO_LOCK_HOLD_US": "200"}, timeout=30)
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, expected.stdout, "")
        assert (tmp_path / f"out{round_}.dat").read_bytes() == (tmp_path / "plain.dat").read_bytes()
