#!/usr/bin/env python3
"""Configure-time probe: which C MPI procedures can the adapter wrap here?

For every procedure in generated/mpi/probes/c-procedures.txt it decides whether
the user's MPI declares it, exports it (and its PMPI_ twin), and declares it
with the standard's signature. Batched: one symbol-table read per library, one
compile for all declarations, bisection only over failing batches.

Writes a header of SCOREP_WRAPGEN_HAVE_<name> macros and a coverage report.
"""
import argparse
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

from mpi_symbols import exported_symbols, link_libraries


def compiles(cc, names, prototypes, workdir):
    """Does redeclaring these procedures (standard signature) and taking the
    address of MPI_x and PMPI_x compile cleanly?"""
    lines = [f"#define SCOREP_WRAPGEN_DECLARE_{n} 1" for n in names]
    lines += ["#include <mpi.h>", f'#include "{prototypes}"', "void scorep_probe(void);",
              "void scorep_probe(void) {"]
    lines += [f"    (void)&{n}; (void)&P{n};" for n in names]
    lines.append("}")
    source = pathlib.Path(workdir) / "probe.c"
    source.write_text("\n".join(lines) + "\n")
    # Deprecated procedures are still wrapped: their use is not an error here.
    proc = subprocess.run([cc, "-fsyntax-only", "-Werror", "-Wall", "-Wno-deprecated-declarations",
                           str(source)],
                          capture_output=True, text=True)
    return proc.returncode == 0, proc.stderr


def failing(cc, names, prototypes, workdir, compiles_count):
    """Names whose declaration check fails. The compiler's errors usually name
    them; bisection finds the rest."""
    compiles_count[0] += 1
    ok, errors = compiles(cc, names, prototypes, workdir)
    if ok:
        return []
    if len(names) == 1:
        return names
    named = {n for n in names
             if re.search(r"error: (conflicting types for [‘'`]P?" + n + r"[’']|[‘'`]P?" + n
                          + r"[’'] undeclared)", errors)}
    if named and len(named) < len(names):
        rest = [n for n in names if n not in named]
        return sorted(named) + failing(cc, rest, prototypes, workdir, compiles_count)
    half = len(names) // 2
    return (failing(cc, names[:half], prototypes, workdir, compiles_count)
            + failing(cc, names[half:], prototypes, workdir, compiles_count))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cc", required=True, help="the MPI C compiler wrapper (mpicc)")
    parser.add_argument("--procedures", required=True, help="generated/mpi/probes/c-procedures.txt")
    parser.add_argument("--prototypes", required=True, help="generated/mpi/c/prototypes.h")
    parser.add_argument("--output", required=True, help="header to write")
    parser.add_argument("--report", required=True, help="coverage report to write")
    args = parser.parse_args()

    started = time.perf_counter()
    names = [n for n in pathlib.Path(args.procedures).read_text().split() if n]
    symbols = exported_symbols(link_libraries(args.cc))
    status = {}
    for n in names:
        if n not in symbols:
            status[n] = "not exported by the MPI library"
        elif "P" + n not in symbols:
            status[n] = "no PMPI_ symbol to call"
    candidates = [n for n in names if n not in status]
    compiles_count = [0]
    with tempfile.TemporaryDirectory() as work:
        bad = failing(args.cc, candidates, pathlib.Path(args.prototypes).resolve(), work,
                      compiles_count)
    for n in bad:
        status[n] = "declaration differs from the standard's (or missing) in mpi.h"
    wrapped = [n for n in names if n not in status]

    header = ["/* Written by configure-checks/probe_mpi.py at configure time. */",
              "#ifndef SCOREP_MPI_PROBES_H", "#define SCOREP_MPI_PROBES_H"]
    for n in names:
        header.append(f"#define SCOREP_WRAPGEN_HAVE_{n} {0 if n in status else 1}"
                      + (f"  /* {status[n]} */" if n in status else ""))
    header.append("#endif")
    pathlib.Path(args.output).write_text("\n".join(header) + "\n")
    elapsed = time.perf_counter() - started
    report = [f"# C MPI procedures: {len(wrapped)} wrapped, {len(status)} not "
              f"({len(names)} probed with {args.cc}, {compiles_count[0]} compiles, {elapsed:.2f} s)"]
    report += [f"wrapped {n}" for n in wrapped]
    report += [f"skipped {n}: {status[n]}" for n in names if n in status]
    pathlib.Path(args.report).write_text("\n".join(report) + "\n")
    print(report[0])


if __name__ == "__main__":
    main()
