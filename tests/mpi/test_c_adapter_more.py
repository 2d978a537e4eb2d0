"""End-to-end: threads, MPI I/O through ROMIO, coverage of the library's symbols."""
import re
import subprocess

import pytest

from conftest import MPI_COMPILERS, mpi_build
from measure import (PROGRAMS, compile_program, expectations, load_profile, per_rank_region,
                     per_rank_region_io, results, run_measured)


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_thread_multiple_gives_each_thread_its_own_consistent_location(mpi, tmp_path):
    program = compile_program(mpi, "threads.c", tmp_path, extra=["-pthread"])
    proc, experiment = run_measured(mpi, 2, program, tmp_path)
    if "SKIP" in proc.stdout:
        pytest.skip(f"{mpi} offers no MPI_THREAD_MULTIPLE here")
    assert len(results(proc.stdout)) == 4
    profile = load_profile(experiment)
    rank_of = {loc["id"]: loc["rank"] for loc in profile["locations"]}
    region_of = {cp["id"]: cp["region"] for cp in profile["callpaths"]}
    name_of = {r["id"]: r["name"] for r in profile["regions"]}
    per_location = {}
    for row in profile["rows"]:
        if name_of[region_of[row["callpath"]]] == "MPI_Sendrecv":
            per_location[row["location"]] = row
    # two threads per rank, each 200 exchanges of 128 bytes, nothing lost or merged
    assert sorted(rank_of[loc] for loc in per_location) == [0, 0, 1, 1]
    for row in per_location.values():
        assert (row["visits"], row["messages_sent"], row["messages_received"]) == (200, 200, 200)
        assert row["bytes_sent"] == row["bytes_received"] == 200 * 128


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_mpi_io_records_bytes_and_no_calls_made_inside_the_library(mpi, tmp_path):
    program = compile_program(mpi, "mpiio.c", tmp_path)
    proc, experiment = run_measured(mpi, 2, program, tmp_path, args=[str(tmp_path / "data.bin")])
    profile = load_profile(experiment)
    measured = per_rank_region(profile)
    expected = expectations(proc.stdout)
    for key, counters in expected.items():
        assert measured[key]["visits"] == counters["visits"], key
    # MPI regions only: scorep also instruments the program's own functions (main)
    extra = sorted(name for (rank, name) in measured
                   if name.startswith("MPI_") and (rank, name) not in expected and name != "MPI_Finalize")
    assert extra == [], "calls MPI made internally were measured"
    io = per_rank_region_io(profile)
    for line in proc.stdout.splitlines():
        if line.startswith("BYTES"):
            _, rank, _, written, _, read = line.split()
            assert io[(int(rank), "MPI_File_write_at_all")][1] == int(written)
            assert io[(int(rank), "MPI_File_read_at")][0] == int(read)


LIBRARIES = {"openmpi": "libmpi.so", "mpich": "libmpich.so"}


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_every_declared_and_exported_mpi_function_is_wrapped(mpi, tmp_path):
    """Against the library's own symbol table: what it exports and mpi.h declares
    is wrapped, unless the catalogue excludes it with a reason."""
    from generator.extract.header import parse_header
    from generator.tasks import Catalogue
    build = mpi_build(mpi)
    wrapped = set(re.findall(r"^wrapped (\w+)$",
                             (build / "runtime/mpi_adapter/mpi-c-coverage.txt").read_text(), re.M))
    link = subprocess.run([MPI_COMPILERS[mpi]["c"], "-show"], capture_output=True, text=True).stdout
    if not link.strip():
        link = subprocess.run([MPI_COMPILERS[mpi]["c"], "--showme"], capture_output=True, text=True).stdout
    libdirs = [w[2:] for w in link.split() if w.startswith("-L")] + ["/usr/lib/x86_64-linux-gnu"]
    library = next(f"{d}/{LIBRARIES[mpi]}" for d in libdirs
                   if subprocess.run(["test", "-e", f"{d}/{LIBRARIES[mpi]}"]).returncode == 0)
    nm = subprocess.run(["nm", "-D", "--defined-only", library], capture_output=True, text=True,
                        check=True).stdout
    exported = {line.split()[-1].split("@")[0] for line in nm.splitlines()}
    exported = {s for s in exported if s.startswith("MPI_")}
    probe = tmp_path / "p.c"
    probe.write_text("#include <mpi.h>\n")
    deps = subprocess.run([MPI_COMPILERS[mpi]["c"], "-M", str(probe)], capture_output=True,
                          text=True, check=True).stdout
    header = next(t for t in deps.replace("\\\n", " ").split() if t.endswith("/mpi.h"))
    functions, _ = parse_header(header, ["-I" + header.rsplit("/", 1)[0]])
    catalogue = Catalogue()
    should = {n for n in exported & set(functions) if not catalogue.excluded(n)}
    # The MPI-1 procedures removed in MPI 3.0 are wrapped wherever the library
    # exports them, also when its mpi.h no longer declares them (Open MPI 4.1)
    from generator.specs import load_spec
    removed = {p.name for p in load_spec() if p.removed and not p.is_callback}
    assert not {n for n in removed if catalogue.excluded(n)}, "a removed procedure is excluded"
    should |= exported & removed
    if mpi == "openmpi":
        assert len(exported & removed) == 10, sorted(exported & removed)
    missing = sorted(should - wrapped)
    print(f"\n{mpi}: {len(wrapped)} C wrappers; {len(should)} functions exported and declared")
    assert missing == []
    assert len(wrapped) > 300


def test_mpich_fortran_calls_reach_the_c_adapter_once_each(tmp_path):
    """MPICH's mpif.h binding is a layer over its C functions: 7 Fortran MPI_SEND
    calls are 7 MPI_Send visits, not 14 and not 0."""
    import sys
    out = tmp_path / "fortran_send"
    build = mpi_build("mpich")
    subprocess.run([sys.executable, str(build / "runtime/mpi_adapter/scorep"), "mpif90.mpich",
                    str(PROGRAMS / "fortran_send.f90"), "-o", str(out)], check=True,
                   capture_output=True, text=True)
    proc, experiment = run_measured("mpich", 2, out, tmp_path)
    measured = per_rank_region(load_profile(experiment))
    assert measured[(0, "MPI_Send")]["visits"] == 7
    assert measured[(0, "MPI_Send")]["bytes_sent"] == 7 * 16 * 8
    assert measured[(1, "MPI_Recv")]["messages_received"] == 7
