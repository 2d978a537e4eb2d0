"""OTF2 I/O records of the I/O adapters, read with otf2-print (the OTF2
library's own reader, nothing of the measurement): per file an IoHandle of
its paradigm named after the file, IoCreateHandle/IoDestroyHandle at each
successful open and close, an IoOperationBegin/IoOperationComplete pair per
transfer with the bytes requested and done, IoSeek with the offset reached;
scorep-check still finds the trace consistent. Programs of known I/O:
io_known.c (POSIX) and stdio_known.c (ISO C)."""
import pathlib
import re
import subprocess
import sys

import pytest

from conftest import MPI_COMPILERS
from conftest import run_program, scorep

HERE = pathlib.Path(__file__).resolve().parent
RECORD = re.compile(r'^(IO_\w+)\s+(\d+)\s+(\d+)\s+Handle: "([^"]*)" <(\d+)>(.*)$')
FIELD = re.compile(r"([A-Z][\w ]*?): (\S+?)(?:,|$)")


def io_records(experiment):
    """[(kind, file name, {field: value})] of the trace's I/O event records."""
    proc = subprocess.run(["otf2-print", str(experiment / "traces.otf2")], capture_output=True, text=True,
                          check=True)
    assert proc.stderr == ""   # no warning of OTF2's reader either
    out = proc.stdout
    records = []
    for line in out.splitlines():
        m = RECORD.match(line)
        if m:
            records.append((m.group(1), m.group(4), dict(FIELD.findall(m.group(6)))))
    return records


def io_definitions(experiment):
    """{handle name: [its handles' paradigm names, in definition order]} of the
    IoHandle definitions, and the IoRegularFile names."""
    proc = subprocess.run(["otf2-print", "-G", str(experiment / "traces.otf2")], capture_output=True, text=True,
                          check=True)
    assert proc.stderr == ""
    out = proc.stdout
    handles = {}
    for name, paradigm in re.findall(r'^IO_HANDLE\s+\d+\s+Name: "([^"]*)" <\d+>, File: "[^"]*" <\d+>, '
                                     r'I/O Paradigm: "([^"]*)"', out, re.M):
        handles.setdefault(name, []).append(paradigm)
    files = re.findall(r'^IO_REGULAR_FILE\s+\d+\s+Name: "([^"]*)"', out, re.M)
    return handles, files


def transfers(records):
    """[(mode, bytes requested, bytes done)] in order, each begin paired with
    its complete by matching id (and checked to be the next record)."""
    out = []
    for i, (kind, name, fields) in enumerate(records):
        if kind == "IO_OPERATION_BEGIN":
            done_kind, done_name, done = records[i + 1]
            assert (done_kind, done_name, done["Matching Id"]) == ("IO_OPERATION_COMPLETE", name,
                                                                  fields["Matching Id"])
            out.append((fields["Mode"], int(fields["Bytes Request"]), int(done["Bytes Result"])))
    return out


def measure(build_dir, tmp_path, io, source, argument):
    program = tmp_path / "program"
    subprocess.run(scorep(build_dir) + [f"--io={io}", "gcc", "-O2", str(source), "-o", str(program)],
                   check=True, capture_output=True, text=True)
    experiment = tmp_path / "experiment"
    proc = run_program([program, argument], experiment, {"SCOREP_ENABLE_TRACING": "true"}, cwd=tmp_path)
    assert (proc.returncode, proc.stderr) == (0, "")
    check = subprocess.run([str(build_dir / "tools" / "scorep-check"), str(experiment)], capture_output=True,
                           text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    return experiment


@pytest.mark.parametrize("io", ["posix", "linktime:posix"])
def test_posix_io_trace_has_handles_and_operations_with_their_bytes(build_dir, tmp_path, io):
    experiment = measure(build_dir, tmp_path, io, HERE / "io_known.c", "data.bin")
    assert io_definitions(experiment) == ({"data.bin": ["POSIX I/O"]}, ["data.bin"])
    records = io_records(experiment)
    assert {name for _, name, _ in records} == {"data.bin"}
    kinds = [kind for kind, _, _ in records]
    # write_file: open, 6 writes, pwrite, lseek, writev, close; read_file:
    # open, 4 reads and one at the end, pread, close; the read and the close
    # of the closed descriptor have no handle: no I/O record
    assert [k for k in kinds if k in ("IO_CREATE_HANDLE", "IO_DESTROY_HANDLE", "IO_SEEK")] == \
        ["IO_CREATE_HANDLE", "IO_SEEK", "IO_DESTROY_HANDLE", "IO_CREATE_HANDLE", "IO_DESTROY_HANDLE"]
    modes = [fields["Access Mode"] for kind, _, fields in records if kind == "IO_CREATE_HANDLE"]
    assert modes == ["WRITE_ONLY", "READ_ONLY"]
    seek = next(fields for kind, _, fields in records if kind == "IO_SEEK")
    assert (seek["Offset Request"], seek["Whence"], seek["Offset Result"]) == ("0", "FROM_END", "700")
    each = 707 // 4 + 1
    assert transfers(records) == [("WRITE", 100, 100)] * 7 + [("WRITE", 7, 7)] + \
        [("READ", each, each)] * 3 + [("READ", each, 707 - 3 * each), ("READ", 1, 0), ("READ", 4, 4)]


def test_isoc_io_trace_has_stream_handles_and_operations_with_their_bytes(build_dir, tmp_path):
    """With POSIX on too: the file has its ISO C handle and, as in Score-P,
    a POSIX handle of the descriptor under the stream (its parent), created
    and destroyed with it, first; the POSIX calls inside the stdio calls
    record nothing on it. printf and puts write to stdout's pre-created
    handle."""
    experiment = measure(build_dir, tmp_path, "posix,isoc", HERE / "stdio_known.c", "data.txt")
    assert io_definitions(experiment) == ({"data.txt": ["ISO C I/O", "POSIX I/O"], "stdout": ["ISO C I/O"]},
                                          ["data.txt", "stdout"])
    out = subprocess.run(["otf2-print", "-G", str(experiment / "traces.otf2")], capture_output=True, text=True,
                         check=True).stdout
    stream = re.search(r'^IO_HANDLE\s+(\d+)\s+Name: "data.txt" .*I/O Paradigm: "ISO C I/O".*Parent: UNDEFINED$',
                       out, re.M)
    assert stream and re.search(r'^IO_HANDLE\s+\d+\s+Name: "data.txt" .*I/O Paradigm: "POSIX I/O".*'
                                rf'Parent: "data.txt" <{stream[1]}>$', out, re.M), out
    assert re.search(r'^IO_HANDLE .* Name: "stdout" .* Flags: \{PRE_CREATED\}', out, re.M)
    assert re.search(r'^IO_PRE_CREATED_HANDLE_STATE\s+Handle: "stdout" <\d+>, Access Mode: WRITE_ONLY', out, re.M)
    records = io_records(experiment)
    # stdout's: printf (its request unknown before the call) and puts("done")
    printed = len("read 112 bytes, first number 0\n")
    assert [(kind, fields.get("Bytes Result")) for kind, name, fields in records if name == "stdout"] == \
        [("IO_OPERATION_BEGIN", None), ("IO_OPERATION_COMPLETE", str(printed)),
         ("IO_OPERATION_BEGIN", None), ("IO_OPERATION_COMPLETE", "5")]
    records = [record for record in records if record[1] == "data.txt"]
    assert [fields["Access Mode"] for kind, _, fields in records if kind == "IO_CREATE_HANDLE"] == \
        ["WRITE_ONLY", "WRITE_ONLY", "READ_ONLY", "READ_ONLY"]
    assert sum(kind == "IO_DESTROY_HANDLE" for kind, _, _ in records) == 4
    seek = next(fields for kind, _, fields in records if kind == "IO_SEEK")
    assert (seek["Offset Request"], seek["Whence"], seek["Offset Result"]) == ("0", "FROM_END", "112")
    # fprintf's request is not known before the call (0); fgets asks for
    # its buffer less one (63); the last fgetc and fgets meet the end
    assert transfers(records) == \
        [("WRITE", 0, 16)] * 3 + [("WRITE", 50, 50), ("WRITE", 11, 11)] + [("WRITE", 1, 1)] * 3 + \
        [("READ", 63, 16)] * 3 + [("READ", 50, 50), ("READ", 63, 11)] + [("READ", 1, 1)] * 3 + \
        [("READ", 1, 0), ("READ", 63, 0)]


def test_io_handles_are_unified_across_ranks(tmp_path):
    """Two ranks: each its own file, both one shared file. The shared file
    is one IoHandle (one IoRegularFile) in the global definitions, and each
    rank's records name its own files through its mapping table."""
    sys.path.insert(0, str(HERE.parent / "mpi"))
    from measure import run_measured, scorep as mpi_scorep   # tests/mpi/measure.py
    program = tmp_path / "mpi_files"
    subprocess.run(mpi_scorep("openmpi") + ["--io=posix", MPI_COMPILERS["openmpi"]["c"], "-O1",
                                            str(HERE / "mpi_files.c"), "-o", str(program)],
                   check=True, capture_output=True, text=True)
    proc, experiment = run_measured("openmpi", 2, program, tmp_path)
    assert sorted(proc.stdout.splitlines()) == ["rank 0 ok", "rank 1 ok"]
    handles, files = io_definitions(experiment)
    assert handles == {"rank0.dat": ["POSIX I/O"], "rank1.dat": ["POSIX I/O"], "shared.dat": ["POSIX I/O"]}
    assert sorted(files) == ["rank0.dat", "rank1.dat", "shared.dat"]
    out = subprocess.run(["otf2-print", str(experiment / "traces.otf2")], capture_output=True, text=True,
                         check=True).stdout
    per_rank = {}
    for line in out.splitlines():
        m = RECORD.match(line)
        if m and m.group(1) == "IO_OPERATION_COMPLETE":
            rank = int(m.group(2)) >> 32
            fields = dict(FIELD.findall(m.group(6)))
            per_rank.setdefault(rank, []).append((m.group(4), int(fields["Bytes Result"])))
    assert per_rank == {r: [(f"rank{r}.dat", 10 * (r + 1)), ("shared.dat", 64), ("shared.dat", 64)]
                        for r in (0, 1)}


def test_preloaded_io_adapters_write_the_same_io_records(installed_prefix, tmp_path):
    """scorep-exec --io=posix,isoc on the unmodified binary: the records of
    the linked run (no compiler instrumentation: the same I/O records), and
    none of the measurement's own files (it writes them through the
    preloaded wrappers with event generation off)."""
    program = tmp_path / "stdio_plain"
    subprocess.run(["gcc", "-O2", str(HERE / "stdio_known.c"), "-o", str(program)], check=True)
    experiment = tmp_path / "experiment"
    proc = run_program([installed_prefix / "bin" / "scorep-exec", "--io=posix,isoc", "--", program, "data.txt"],
                       experiment, {"SCOREP_ENABLE_TRACING": "true"}, cwd=tmp_path)
    assert (proc.returncode, proc.stderr) == (0, "")
    assert io_definitions(experiment) == ({"data.txt": ["ISO C I/O", "POSIX I/O"], "stdout": ["ISO C I/O"]},
                                          ["data.txt", "stdout"])
    records = [record for record in io_records(experiment) if record[1] == "data.txt"]
    assert [kind for kind, _, _ in records].count("IO_CREATE_HANDLE") == 4
    assert sum(done for mode, _, done in transfers(records) if mode == "WRITE") == 112
    assert sum(done for mode, _, done in transfers(records) if mode == "READ") == 112


def test_io_records_of_threads_are_on_each_threads_location(build_dir, tmp_path):
    """threaded_io.c: three threads at once, each opening a file of its own,
    writing 5 blocks of 10 * (thread + 1) bytes and reading them back: each
    thread's location has exactly its file's records (the descriptor table
    is shared, the matching ids are per thread)."""
    program = tmp_path / "threaded_io"
    subprocess.run(scorep(build_dir) + ["--nocompiler", "--io=posix", "gcc", "-O2", "-pthread",
                                        str(HERE / "threaded_io.c"), "-o", str(program)],
                   check=True, capture_output=True, text=True)
    experiment = tmp_path / "experiment"
    proc = run_program([program, tmp_path], experiment, {"SCOREP_ENABLE_TRACING": "true"})
    assert (proc.returncode, proc.stderr) == (0, "")
    check = subprocess.run([str(build_dir / "tools" / "scorep-check"), str(experiment)], capture_output=True,
                           text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    out = subprocess.run(["otf2-print", str(experiment / "traces.otf2")], capture_output=True, text=True,
                         check=True).stdout
    per_location = {}
    for line in out.splitlines():
        m = RECORD.match(line)
        if m:
            per_location.setdefault(int(m.group(2)), []).append((m.group(1), m.group(4),
                                                                 dict(FIELD.findall(m.group(6)))))
    got = {}
    for records in per_location.values():
        names = {name for _, name, _ in records}
        assert len(names) == 1
        thread = int(names.pop().rsplit("thread", 1)[1].split(".")[0])
        size = 10 * (thread + 1)
        got[thread] = [kind for kind, _, _ in records]
        assert transfers(records) == [("WRITE", size, size)] * 5 + [("READ", 200, 5 * size)]
    assert got == {t: ["IO_CREATE_HANDLE"] + ["IO_OPERATION_BEGIN", "IO_OPERATION_COMPLETE"] * 6 + ["IO_DESTROY_HANDLE"]
                   for t in range(3)}
