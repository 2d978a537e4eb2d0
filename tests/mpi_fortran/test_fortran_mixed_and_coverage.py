"""The mpif.h / use mpi adapter: a `use mpi` program calling a C library
that uses MPI counts every call once (on MPICH the Fortran layer calls the C
MPI functions, which must record nothing then); and every Fortran symbol the
library's Fortran layer exports is wrapped, under each of its names, except
a reasoned list."""
import json
import re
import subprocess
import sys

import pytest

from conftest import MPI_COMPILERS, REPO, mpirun
from fortran_runs import HERE, RANKS, fortran_libraries

ROUNDS = 4    # mixed_main.f90
FORTRAN_LIBRARY = {"openmpi": "/usr/lib/x86_64-linux-gnu/openmpi/lib/libmpi_mpifh.so",
                   "mpich": "/usr/lib/x86_64-linux-gnu/libmpichfort.so"}


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_fortran_and_c_calls_count_once(mpi, tmp_path):
    build, _, _ = fortran_libraries(mpi)
    obj = tmp_path / "mixed_c_library.o"
    subprocess.run([MPI_COMPILERS[mpi]["c"], "-c", "-o", str(obj),
                    str(REPO / "tests/mpi_f08/mixed_c_library.c")], check=True, capture_output=True, text=True)
    exe = tmp_path / "mixed"
    subprocess.run([sys.executable, str(build / "runtime/mpi_adapter/scorep"), MPI_COMPILERS[mpi]["f90"],
                    "-o", str(exe), str(HERE / "mixed_main.f90"), str(obj)],
                   check=True, capture_output=True, text=True, cwd=tmp_path)
    experiment = tmp_path / "experiment"
    out = mpirun(RANKS, [exe], mpi=mpi, env={"SCOREP_EXPERIMENT_DIRECTORY": str(experiment)},
                 launcher_args=["-x", "SCOREP_EXPERIMENT_DIRECTORY"] if mpi == "openmpi" else []).stdout
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
    assert visits["MPI_Sendrecv"] == RANKS * ROUNDS                       # C
    assert sent["MPI_Sendrecv"] == RANKS * ROUNDS * 4
    # Fortran; one integer, which each rank sends to all RANKS ranks (Score-P's convention)
    assert visits["MPI_Allreduce"] == RANKS and sent["MPI_Allreduce"] == RANKS * RANKS * 4
    assert visits["MPI_Barrier"] == 3 * RANKS
    assert visits["MPI_Comm_rank"] == 2 * RANKS                            # Fortran and C
    assert visits["MPI_Init"] == RANKS and visits["MPI_Finalize"] == RANKS


def defined(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", str(lib)], capture_output=True,
                         text=True, check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def reasoned_exclusions():
    """Lower-case procedure names not wrapped, each with its reason."""
    from generator.specs import load_spec
    why = {line.split(":")[0].lower(): line.split(":", 1)[1].strip()
           for line in (REPO / "generated/mpi/fortran/excluded.txt").read_text().splitlines()}
    for proc in load_spec():
        if proc.is_predefined_function:
            why[proc.name.lower()] = ("a predefined callback (MPI_COMM_DUP_FN, ...): MPI calls it, "
                                      "the program only passes it")
    return why


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_every_exported_fortran_symbol_is_wrapped(mpi):
    build, fortran, _ = fortran_libraries(mpi)
    library = defined(FORTRAN_LIBRARY[mpi])
    wrappers = defined(fortran)
    why = reasoned_exclusions()
    exported, missing, excluded = [], [], set()
    for symbol in sorted(library):
        m = re.match(r"^mpi_(\w+?)_$", symbol)
        if not m or symbol.endswith("__") or "_f08" in symbol or "p" + symbol not in library:
            continue
        name = "mpi_" + m.group(1)
        # MPI_Sizeof's specifics: mpi_sizeof_<type>_<rank>_ (Open MPI)
        base = "mpi_sizeof" if name.startswith("mpi_sizeof_") else name
        if base in why:
            excluded.add(base)
            continue
        exported.append(symbol)
        # every name the library exports the procedure under is wrapped
        for alias in (symbol, name, symbol + "_", name.upper()):
            if alias in library and alias not in wrappers:
                missing.append(alias)
    print(f"\n{mpi}: {len(exported)} Fortran procedures exported and wrapped; not wrapped: "
          + ", ".join(f"{n} ({why[n]})" for n in sorted(excluded)))
    assert len(exported) > 350
    assert not missing, f"exported but not wrapped: {missing}"
    # the removed MPI-1 procedures are not on the list
    assert not excluded & {"mpi_address", "mpi_type_struct", "mpi_errhandler_create"}
