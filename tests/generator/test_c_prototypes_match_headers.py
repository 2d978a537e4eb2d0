"""The C prototypes rendered from the spec are compatible with real mpi.h headers.

For each installed MPI library, every procedure its mpi.h declares is redeclared
from generated/mpi/c/prototypes.h; the compiler (-Werror) rejects any conflict in
return type, parameter types or const-ness.
"""
import json
import pathlib
import re
import subprocess

import pytest

from conftest import MPI_COMPILERS, REPO
from generator.extract.header import parse_header

PROTOTYPES = REPO / "generated" / "mpi" / "c" / "prototypes.h"
DEVIATIONS = json.loads((REPO / "configure-checks" / "known-header-deviations.json").read_text())


def mpi_header(mpi, tmp_path):
    """The mpi.h the library's compiler wrapper really includes."""
    probe = tmp_path / "probe.c"
    probe.write_text("#include <mpi.h>\n")
    deps = subprocess.run([MPI_COMPILERS[mpi]["c"], "-M", str(probe)], capture_output=True,
                          text=True, check=True).stdout
    return next(tok for tok in deps.replace("\\\n", " ").split() if tok.endswith("/mpi.h"))


def redeclaration_unit(names):
    lines = [f"#define SCOREP_WRAPGEN_DECLARE_{n} 1" for n in sorted(names)]
    lines += ["#include <mpi.h>", f'#include "{PROTOTYPES}"']
    return "\n".join(lines) + "\n"


def compile_unit(mpi, source, tmp_path):
    path = tmp_path / "redeclare.c"
    path.write_text(source)
    return subprocess.run([MPI_COMPILERS[mpi]["c"], "-fsyntax-only", "-Wall", "-Werror",
                           str(path)], capture_output=True, text=True)


def declared_by_header(mpi, tmp_path):
    header = mpi_header(mpi, tmp_path)
    functions, macros = parse_header(header, ["-I" + str(pathlib.Path(header).parent)])
    return header, {n for n in set(functions) | set(macros) if not n.startswith("MPIX_")}


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_rendered_prototypes_compile_against_header(mpi, tmp_path):
    header, declared = declared_by_header(mpi, tmp_path)
    rendered = set(re.findall(r"^#ifdef SCOREP_WRAPGEN_DECLARE_(\w+)$", PROTOTYPES.read_text(), re.M))
    names = (declared & rendered) - set(DEVIATIONS[mpi])
    assert len(names) > 350, f"only {len(names)} procedures of {header} found in the spec"
    result = compile_unit(mpi, redeclaration_unit(names), tmp_path)
    errors = [line for line in result.stderr.splitlines() if "error" in line]
    assert result.returncode == 0, f"{len(errors)} conflicts with {header}:\n" + "\n".join(errors[:20])
    print(f"\n{len(names)} prototypes agree with {header}")


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_every_header_procedure_is_in_the_spec(mpi, tmp_path):
    header, declared = declared_by_header(mpi, tmp_path)
    rendered = set(re.findall(r"^#ifdef SCOREP_WRAPGEN_DECLARE_(\w+)$", PROTOTYPES.read_text(), re.M))
    assert sorted(declared - rendered) == [], f"declared by {header} but not in the spec"


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_listed_header_deviations_are_real(mpi, tmp_path):
    """Each listed deviation names a spec procedure whose standard prototype really
    conflicts with the header (the list is empty while both headers agree)."""
    rendered = set(re.findall(r"^#ifdef SCOREP_WRAPGEN_DECLARE_(\w+)$", PROTOTYPES.read_text(), re.M))
    for name in DEVIATIONS[mpi]:
        assert name in rendered, f"{name} is not a procedure of the spec"
        result = compile_unit(mpi, redeclaration_unit({name}), tmp_path)
        assert result.returncode != 0, f"{name} matches {mpi}'s header: remove it from the list"


def test_a_wrong_prototype_is_caught(tmp_path):
    """The check can fail: a const dropped from MPI_Send's buffer conflicts."""
    source = "#include <mpi.h>\nint (MPI_Send)(void *buf, int count, MPI_Datatype datatype, " \
             "int dest, int tag, MPI_Comm comm);\n"
    assert compile_unit("mpich", source, tmp_path).returncode != 0
