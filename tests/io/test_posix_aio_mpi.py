"""Non-blocking MPI-IO with the POSIX aio beneath it (docs/IO_ADAPTER.md,
"Asynchronous I/O" and "MPI-IO"): Open MPI (OMPIO) and MPICH (ROMIO) both
hand MPI_File_iwrite_at's data to POSIX aio: aio_write inside
MPI_File_iwrite_at, aio_error (EINPROGRESS while the C library's helper
thread writes) and aio_return inside MPI_Wait. With the aio wrappers
recording inside MPI calls, the program (mpi_iwrite.c, 2 ranks, BLOCK bytes
each) shows MPI_File_iwrite_at > aio_write and MPI_Wait > aio_return with
the rank's BLOCK bytes; oracles: the program's own check of the file and
its output without measurement, otf2-print for the records."""
import collections
import subprocess

import pytest

from test_io_trace import io_records
from test_mpi_io_beneath import (BLOCK, HERE, MPI_COMPILERS, RANKS, installed, io_paths, mpirun,  # noqa: F401
                                 plain_run, run_measured, scorep)


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_mpi_file_iwrite_shows_aio_write_beneath_it_and_its_completion_beneath_mpi_wait(tmp_path, mpi):
    _, plain_proc = plain_run(mpi, "mpi_iwrite.c", tmp_path)

    program = tmp_path / "mpi_iwrite"
    subprocess.run(scorep(mpi) + ["--io=posix", MPI_COMPILERS[mpi]["c"], "-O1", str(HERE / "mpi_iwrite.c"),
                                  "-o", str(program)], check=True, capture_output=True, text=True)
    target = tmp_path / "out.dat"
    proc, experiment = run_measured(mpi, RANKS, program, tmp_path, args=[target])
    assert proc.stdout == plain_proc.stdout
    rows, profile = io_paths(experiment)
    locations = {loc["id"]: loc for loc in profile["locations"]}
    rank_of = {}
    for row in profile["rows"]:
        rank_of.setdefault(row["location"], locations[row["location"]]["rank"])

    def beneath(mpi_call, io_call):
        return [r for r in rows if r[0][-2:] == [mpi_call, io_call]]
    # per rank: one aio_write (no bytes yet) under MPI_File_iwrite_at, and its
    # aio_return with the rank's bytes under MPI_Wait; the MPI library's
    # polling aio_error calls are not recorded (tens of thousands per wait)
    submitted, returned = beneath("MPI_File_iwrite_at", "aio_write"), beneath("MPI_Wait", "aio_return")
    assert [(r[2], r[3]) for r in submitted] == [(0, 0)] * RANKS, rows
    assert [(r[2], r[3]) for r in returned] == [(0, BLOCK)] * RANKS, rows
    assert beneath("MPI_Wait", "aio_error") == [], rows
    # inside an MPI call other than MPI-IO only aio calls are recorded (not
    # MPI_Init's, MPI_Reduce's, MPI_Finalize's other I/O)
    for names, paradigms, _, _ in rows:
        inner = [n for n, p in zip(names, paradigms) if p == "mpi"]
        assert all(n.startswith("MPI_File_") for n in inner) or names[-1].startswith("aio_"), names
    # the file's figures: the aio bytes, one transfer per rank
    files = {f["name"]: f for f in profile["io_files"]}
    assert (files[str(target)]["visits"], files[str(target)]["bytes_written"]) == (RANKS, RANKS * BLOCK)
    # the trace: per rank one non-blocking write of BLOCK bytes on the file,
    # begun and issued, complete with BLOCK bytes (no tests: the polls are not recorded)
    ops = collections.defaultdict(list)
    for kind, name, fields in io_records(experiment):
        if name == str(target) and kind.startswith("IO_OPERATION"):
            ops[fields["Matching Id"]].append((kind, fields))
    assert len(ops) == RANKS, ops.keys()
    for records in ops.values():
        kinds = [kind for kind, _ in records]
        assert kinds == ["IO_OPERATION_BEGIN", "IO_OPERATION_ISSUED", "IO_OPERATION_COMPLETE"], kinds
        begin, complete = records[0][1], records[-1][1]
        assert (begin["Mode"], begin["Operation Flags"], int(begin["Bytes Request"])) == (
            "WRITE", "{NON_BLOCKING}", BLOCK)
        assert int(complete["Bytes Result"]) == BLOCK


SPLIT_BLOCK = 1 << 20   # mpi_split.c


def region_visits(profile):
    """{region name: visits summed over locations and call paths} of a profile.json."""
    names = {r["id"]: r["name"] for r in profile["regions"]}
    region_of = {c["id"]: c["region"] for c in profile["callpaths"] if "parameter" not in c}
    visits = collections.Counter()
    for row in profile["rows"]:
        if row["callpath"] in region_of:
            visits[names[region_of[row["callpath"]]]] += row["visits"]
    return visits


@pytest.mark.parametrize("mode", ["linked", "preloaded"])
@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_aio_error_polling_inside_split_collective_and_nonblocking_mpi_io_is_not_recorded(tmp_path, installed, mpi,
                                                                                          mode):
    plain = tmp_path / "plain_program"
    subprocess.run([MPI_COMPILERS[mpi]["c"], "-O1", str(HERE / "mpi_split.c"), "-o", str(plain)], check=True)
    (tmp_path / "plain").mkdir()
    plain_proc = mpirun(RANKS, [plain, tmp_path / "plain" / "out.dat"], mpi=mpi, cwd=tmp_path / "plain")
    assert plain_proc.stdout == f"{RANKS} ranks wrote {2 * RANKS * SPLIT_BLOCK} bytes: ok\n"

    target = tmp_path / "out.dat"
    if mode == "linked":
        program = tmp_path / "mpi_split"
        subprocess.run(scorep(mpi) + ["--io=posix", MPI_COMPILERS[mpi]["c"], "-O1", str(HERE / "mpi_split.c"),
                                      "-o", str(program)], check=True, capture_output=True, text=True)
        args = [target]
    else:
        program = installed(mpi) / "bin" / "scorep-exec"
        args = ["--mpi", "--io=posix", "--", plain, target]
    proc, experiment = run_measured(mpi, RANKS, program, tmp_path, args=args)
    assert proc.stdout == plain_proc.stdout
    rows, profile = io_paths(experiment)
    visits = region_visits(profile)
    # the MPI calls the program made, each once per rank
    for call in ("MPI_File_write_at_all_begin", "MPI_File_write_at_all_end", "MPI_File_read_at_all_begin",
                 "MPI_File_read_at_all_end", "MPI_File_iwrite_at_all", "MPI_File_iread_at", "MPI_Wait"):
        assert visits[call] == RANKS, (call, visits[call])
    assert visits["MPI_Test"] >= RANKS
    # no aio_error under any MPI call (the program makes none of its own),
    # and no IoOperationTest (what a recorded aio_error of an operation in
    # flight adds) in the trace
    assert visits["aio_error"] == 0, [r for r in rows if r[0][-1] == "aio_error"]
    tests = [kind for kind, _, _ in io_records(experiment) if kind == "IO_OPERATION_TEST"]
    assert tests == []
    # the split collectives' I/O is still recorded beneath them: at least the
    # bytes moved (Open MPI: aio_write in _begin, its aio_return in _end;
    # MPICH: pwrite and pread in _begin)
    def moved(prefix):
        beneath = [r for r in rows if any(n.startswith(prefix) for n in r[0])]
        return sum(r[2] for r in beneath), sum(r[3] for r in beneath)
    assert moved("MPI_File_write_at_all_")[1] >= RANKS * SPLIT_BLOCK, rows
    assert moved("MPI_File_read_at_all_")[0] >= RANKS * SPLIT_BLOCK, rows
