"""End-to-end: MPI I/O bytes per procedure, exact, in the direction the data went.

tests/mpi/programs/mpiio_variants.c (C) and mpiio_variants_f.F90 (mpif.h and
mpi_f08) call every data-access procedure once per rank with a count of its own
(blocking, _at, _shared, _ordered, _all, split collectives, non-blocking
iread/iwrite*), check each call's status and the data read back, and print
what each moved. The profile's bytes_read / bytes_written of each region must
be exactly that; non-blocking calls and split collectives have their bytes at
the call that starts them, so MPI_Wait and the _end calls have none."""
import pytest

from measure import compile_fortran_pair, compile_program, load_profile, per_rank_region_io, run_measured

NPROCS = 2
# the procedures each program calls, once per rank (the _end calls and MPI_Wait besides)
PROCEDURES = 2 * 14


def program_io(stdout):
    """{(rank, procedure): [bytes read, bytes written]} as the program printed it,
    after its own checks of the statuses and of the data read back."""
    assert "FAILED" not in stdout, stdout
    checked = [line.split() for line in stdout.splitlines() if line.startswith("CHECKED")]
    assert sorted(int(rank) for _, rank, _ in checked) == list(range(NPROCS)), stdout
    assert all(int(calls) == PROCEDURES for _, _, calls in checked)
    io = {}
    for line in stdout.splitlines():
        if line.startswith("IO "):
            _, rank, name, read, written = line.split()
            assert (int(rank), name) not in io
            io[(int(rank), name)] = [int(read), int(written)]
    assert len(io) == NPROCS * PROCEDURES
    return io


def check_profile(stdout, experiment):
    expected = program_io(stdout)
    measured = per_rank_region_io(load_profile(experiment))
    # the reads are there, with bytes read, in every binding
    assert sum(1 for (_, name), (read, _) in expected.items() if name.startswith("MPI_File_iread") and read) \
        == 5 * NPROCS
    wrong = {key: (measured[key], value) for key, value in expected.items() if measured[key] != value}
    assert wrong == {}, "profile (read, written) vs the program's"
    # completion calls record no bytes
    for rank in range(NPROCS):
        for name in ("MPI_Wait", "MPI_File_read_all_end", "MPI_File_write_all_end", "MPI_File_read_at_all_end",
                     "MPI_File_write_at_all_end", "MPI_File_read_ordered_end", "MPI_File_write_ordered_end"):
            assert measured[(rank, name)] == [0, 0], (rank, name)
    # nothing else carries I/O bytes
    extra = {key: value for key, value in measured.items() if key not in expected and value != [0, 0]}
    assert extra == {}


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_mpi_io_bytes_per_procedure_are_exact_and_reads_count_as_read_c(mpi, tmp_path):
    program = compile_program(mpi, "mpiio_variants.c", tmp_path)
    (tmp_path / "files").mkdir()
    proc, experiment = run_measured(mpi, NPROCS, program, tmp_path, args=[str(tmp_path / "files")])
    check_profile(proc.stdout, experiment)


@pytest.mark.parametrize("binding", ["f08", "mpif.h"])
@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_mpi_io_bytes_per_procedure_are_exact_and_reads_count_as_read_fortran(mpi, binding, tmp_path):
    extra = ["-cpp", "-ffree-line-length-none"] + (["-DUSE_MPI_F08"] if binding == "f08" else [])
    _, measured = compile_fortran_pair(mpi, "mpiio_variants_f.F90", tmp_path, extra)
    (tmp_path / "files").mkdir()
    proc, experiment = run_measured(mpi, NPROCS, measured, tmp_path, args=[str(tmp_path / "files")])
    check_profile(proc.stdout, experiment)
