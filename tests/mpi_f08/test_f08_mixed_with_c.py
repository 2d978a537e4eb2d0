"""A Fortran 2008 main program calling a C library that uses MPI, linked
against both adapters (no LD_PRELOAD; by hand, and by the `scorep`
instrumenter): one profile holds the Fortran calls and the C calls, each
counted once."""
import json
import subprocess
import sys

import pytest

from conftest import MPI_COMPILERS, mpirun
from f08_runs import HERE, f08_libraries

RANKS, ROUNDS = 3, 4


@pytest.mark.parametrize("link", ["by-hand", "scorep"])
@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_fortran_and_c_calls_share_one_profile(mpi, link, tmp_path):
    build, f08, c = f08_libraries(mpi)
    obj = tmp_path / "mixed_c_library.o"
    subprocess.run([MPI_COMPILERS[mpi]["c"], "-c", "-o", str(obj), str(HERE / "mixed_c_library.c")],
                   check=True, capture_output=True, text=True)
    exe = tmp_path / "mixed"
    command = [MPI_COMPILERS[mpi]["f90"], "-o", str(exe), str(HERE / "mixed_main.F90"), str(obj)]
    if link == "scorep":
        command = [sys.executable, str(build / "runtime/mpi_adapter/scorep")] + command
    else:
        # the adapters ahead of the MPI libraries the compiler wrapper appends
        command += [f"-L{f08.parent}", "-lscorep_adapter_mpi_f08", f"-L{c.parent}", "-lscorep_adapter_mpi",
                    f"-Wl,-rpath,{f08.parent}", f"-Wl,-rpath,{c.parent}"]
    subprocess.run(command, check=True, capture_output=True, text=True, cwd=tmp_path)
    experiment = tmp_path / "experiment"
    out = mpirun(RANKS, [exe], mpi=mpi, env={"SCOREP_EXPERIMENT_DIRECTORY": str(experiment)}).stdout
    assert len([l for l in out.splitlines() if " mixed " in l]) == RANKS

    profile = json.loads((experiment / "profile.json").read_text())
    names = {r["id"]: r["name"] for r in profile["regions"]}
    region_of = {cp["id"]: cp["region"] for cp in profile["callpaths"]}
    visits, sent = {}, {}
    for row in profile["rows"]:
        name = names[region_of[row["callpath"]]]
        visits[name] = visits.get(name, 0) + row["visits"]
        sent[name] = sent.get(name, 0) + row["bytes_sent"]
    assert profile["experiment"]["ranks"] == RANKS
    # from C
    assert visits["MPI_Sendrecv"] == RANKS * ROUNDS
    assert sent["MPI_Sendrecv"] == RANKS * ROUNDS * 4
    # from Fortran 2008 (MPI_Comm_rank: once from Fortran, once from C, per rank)
    assert visits["MPI_Allreduce"] == RANKS
    assert visits["MPI_Barrier"] == RANKS
    assert visits["MPI_Comm_rank"] == 2 * RANKS
    assert visits["MPI_Init"] == RANKS
