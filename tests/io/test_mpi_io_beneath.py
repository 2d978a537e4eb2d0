"""MPI-IO with the POSIX calls beneath it (docs/IO_ADAPTER.md, "MPI-IO"):
inside an MPI_File_* call the MPI adapter leaves event generation on for the
I/O adapters only, so the file I/O the MPI library does for the call is
recorded nested under it, and nothing else the MPI library does (its other
calls' I/O, e.g. MPI_Init reading its configuration and topology files).
The program (mpi_write_all.c) writes BLOCK bytes per rank with
MPI_File_write_all on 2 ranks, on both MPIs, linked (scorep --io=posix: the
run-time I/O wrappers) and preloaded (scorep-exec --mpi --io=posix); oracles: the program's own check of the file
(size and bytes on disk) and its output without measurement."""
import json
import pathlib
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "mpi"))
from conftest import MPI_COMPILERS, install_build, mpi_build, mpirun   # noqa: E402
from measure import run_measured, scorep   # noqa: E402  tests/mpi/measure.py
from test_io_trace import io_records   # noqa: E402

BLOCK = 65536
RANKS = 2


def io_paths(experiment):
    """[(call path as region names, paradigm of each, bytes_read, bytes_written)]
    of every profile row of an io region, and the profile."""
    profile = json.loads((experiment / "profile.json").read_text())
    regions = {r["id"]: r for r in profile["regions"]}
    callpaths = {c["id"]: c for c in profile["callpaths"]}

    def path(cp):
        out = []
        while cp is not None:
            out.append(regions[callpaths[cp]["region"]])
            cp = callpaths[cp]["parent"]
        return list(reversed(out))

    rows = []
    for row in profile["rows"]:
        p = path(row["callpath"])
        if p[-1]["paradigm"] == "io":
            rows.append(([r["name"] for r in p], [r["paradigm"] for r in p], row["bytes_read"],
                         row["bytes_written"]))
    return rows, profile


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The build of each MPI installed once for the module (scorep-exec
    preloads installed adapters)."""
    prefixes = {}

    def prefix(mpi):
        if mpi not in prefixes:
            prefixes[mpi] = install_build(mpi_build(mpi), tmp_path_factory.mktemp(f"installed-{mpi}"))
        return prefixes[mpi]
    return prefix


def plain_run(mpi, source, tmp_path):
    """(the program built without measurement, its run on RANKS ranks), which
    writes BLOCK bytes per rank into plain/out.dat and says so."""
    plain = tmp_path / "plain_program"
    subprocess.run([MPI_COMPILERS[mpi]["c"], "-O1", str(HERE / source), "-o", str(plain)], check=True)
    (tmp_path / "plain").mkdir()
    proc = mpirun(RANKS, [plain, tmp_path / "plain" / "out.dat"], mpi=mpi, cwd=tmp_path / "plain")
    assert proc.stdout == f"{RANKS} ranks wrote {RANKS * BLOCK} bytes: ok\n"
    return plain, proc


@pytest.mark.parametrize("mode", ["linked", "preloaded"])
@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_posix_writes_of_mpi_file_write_all_are_nested_under_it(tmp_path, installed, mpi, mode):
    plain, plain_proc = plain_run(mpi, "mpi_write_all.c", tmp_path)

    target = tmp_path / "out.dat"
    if mode == "linked":
        program = tmp_path / "mpi_write_all"
        subprocess.run(scorep(mpi) + ["--io=posix", MPI_COMPILERS[mpi]["c"], "-O1",
                                      str(HERE / "mpi_write_all.c"), "-o", str(program)],
                       check=True, capture_output=True, text=True)
        args = [target]
    else:
        program = installed(mpi) / "bin" / "scorep-exec"
        args = ["--mpi", "--io=posix", "--", plain, target]
    # traced too (run_measured's default): scorep-check proves the trace
    # consistent with the I/O records nested in the MPI calls
    proc, experiment = run_measured(mpi, RANKS, program, tmp_path, args=args)
    assert proc.stdout == plain_proc.stdout
    # one experiment directory: under MPICH the library's dependencies do I/O
    # in their constructors, before the MPI layer's, and the I/O wrappers
    # start the measurement there; it still waits for MPI_Init (lifecycle.c)
    assert not list(experiment.parent.glob(experiment.name + "_*"))
    rows, profile = io_paths(experiment)

    # beneath MPI_File_write_all: POSIX writes of at least the bytes written
    # (the MPI library may write more, or split them among its aggregators)
    beneath = [r for r in rows if "MPI_File_write_all" in r[0]]
    assert beneath, f"no I/O under MPI_File_write_all: {rows}"
    for names, _, _, _ in beneath:
        assert names[-2] == "MPI_File_write_all" and names[-1].rstrip("64") in (
            "write", "pwrite", "writev", "pwritev", "lseek"), names
    assert sum(written for *_, written in beneath) >= RANKS * BLOCK
    # the file's open is beneath MPI_File_open
    assert any(r[0][-2:] in (["MPI_File_open", "open"], ["MPI_File_open", "open64"]) for r in rows), rows
    # an I/O call under an MPI region is under an MPI-IO call and nothing
    # else: none of MPI_Init's, MPI_Reduce's, MPI_Finalize's own I/O
    for names, paradigms, _, _ in rows:
        mpi_regions = [n for n, p in zip(names, paradigms) if p == "mpi"]
        assert all(n.startswith("MPI_File_") for n in mpi_regions), names
    # the file's figures: the same bytes (io_files)
    files = {f["name"]: f for f in profile["io_files"]}
    assert files[str(target)]["bytes_written"] == sum(written for *_, written in beneath)
    # in the trace: the transfers on the file, with the same bytes done
    writes = [int(fields["Bytes Result"]) for kind, name, fields in io_records(experiment)
              if kind == "IO_OPERATION_COMPLETE" and name == str(target)]
    assert sum(writes) == files[str(target)]["bytes_written"]


@pytest.mark.parametrize("interface", ["mpi_f08", "mpi"])
@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_posix_writes_of_fortran_mpi_file_write_all_are_nested_under_it(tmp_path, mpi, interface):
    """The same from Fortran: the Fortran 2008 wrappers (use mpi_f08) and the
    Fortran 77/90 ones (use mpi) leave event generation on for the I/O
    adapters in MPI-IO calls too."""
    source = tmp_path / "mpi_write_all.f90"
    text = (HERE / "mpi_write_all.f90").read_text()
    if interface == "mpi":
        text = text.replace("use mpi_f08", "use mpi").replace("type(MPI_File) :: fh", "integer :: fh")
    source.write_text(text)
    target = tmp_path / "out.dat"
    program = tmp_path / "mpi_write_all"
    subprocess.run(scorep(mpi) + ["--io=posix", MPI_COMPILERS[mpi]["f90"], "-O1", str(source), "-o", str(program)],
                   check=True, capture_output=True, text=True, cwd=tmp_path)
    proc, experiment = run_measured(mpi, RANKS, program, tmp_path, args=[target])
    assert proc.stdout == f"{RANKS} ranks, file size {RANKS * BLOCK}\n"
    assert not list(experiment.parent.glob(experiment.name + "_*"))
    rows, _ = io_paths(experiment)
    beneath = [r for r in rows if "MPI_File_write_all" in r[0]]
    assert beneath and all(names[-2] == "MPI_File_write_all" for names, *_ in beneath), rows
    assert sum(written for *_, written in beneath) >= RANKS * BLOCK
    for names, paradigms, _, _ in rows:
        assert all(n.startswith("MPI_File_") for n, p in zip(names, paradigms) if p == "mpi"), names
