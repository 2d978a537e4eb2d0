"""Every Fortran 2008 specific the MPI library exports has a wrapper, except
the reasoned exclusions (generated/mpi/f08/excluded.txt) and library
extensions outside the standard."""
import re
import subprocess

import pytest

from conftest import REPO
from f08_runs import f08_libraries

SPECIFIC = re.compile(r"^mpi_(\w+?)_f08(ts)?(_large)?_$")
# Exported by a library but not in the standard's procedure list.
EXTENSIONS = {"mpi_delete_error_class", "mpi_delete_error_code", "mpi_delete_error_string"}
FORTRAN_LIBRARY = {"openmpi": "/usr/lib/x86_64-linux-gnu/openmpi/lib/libmpi_usempif08.so",
                   "mpich": "/usr/lib/x86_64-linux-gnu/libmpichfort.so"}


def defined(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", str(lib)], capture_output=True,
                         text=True, check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_every_exported_f08_specific_is_wrapped(mpi):
    build, f08, _ = f08_libraries(mpi)
    library = defined(FORTRAN_LIBRARY[mpi])
    wrappers = defined(f08)
    excluded = {line.split(":")[0].lower()
                for line in (REPO / "generated/mpi/f08/excluded.txt").read_text().splitlines()}
    exported, missing = [], []
    for symbol in sorted(library):
        m = SPECIFIC.match(symbol)
        if not m or ("p" + symbol not in library and "pmpir_" + symbol[4:] not in library):
            continue
        name = f"mpi_{m.group(1)}" + ("_c" if m.group(3) else "")
        if name in excluded or f"mpi_{m.group(1)}" in EXTENSIONS:
            continue
        exported.append(symbol)
        if symbol not in wrappers:
            missing.append(symbol)
    print(f"{mpi}: {len(exported) - len(missing)} of {len(exported)} exported F08 specifics wrapped")
    assert exported, "no Fortran 2008 specifics found in the MPI library"
    assert not missing, f"exported but not wrapped: {missing}"
    report = (build / "runtime/mpi_adapter_f08/mpi-f08-coverage.txt").read_text()
    assert f" {len(exported)} wrapped" in report.splitlines()[0]
