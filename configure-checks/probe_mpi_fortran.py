#!/usr/bin/env python3
"""Configure-time probe: which mpif.h / use mpi procedures can the Fortran adapter wrap here?

For every procedure in generated/mpi/probes/fortran-procedures.txt (its name
and the symbols a Fortran compiler may give it: mpi_send_, mpi_send,
mpi_send__, MPI_SEND) it decides under which of them the library's Fortran
layer exports it, and which profiling symbol of the same binding the wrapper
calls (pmpi_send_, ...). The wrappers are C functions with the Fortran calling
convention and declare these symbols themselves, so one compile checks that
the user's mpi.h neither declares nor defines any of them otherwise.

Batched: one symbol-table read per library, one compile of all candidates,
candidates its errors name dropped and the rest compiled again.

Writes a header of SCOREP_MPIF_HAVE_/PNAME_/ALIASES_ macros and a coverage report.
"""
import argparse
import pathlib
import re
import subprocess
import tempfile
import time

from mpi_symbols import exported_symbols, link_libraries


def profiling(symbol):
    """The profiling twin of a Fortran symbol: pmpi_send_ for mpi_send_, PMPI_SEND for MPI_SEND."""
    return ("P" if symbol[0] == "M" else "p") + symbol


def compile_errors(cc, symbols, workdir):
    """Symbols the compile refuses (declared or defined otherwise by mpi.h)."""
    source = pathlib.Path(workdir) / "probe.c"
    lines = ["#include <mpi.h>"]
    lines += [f"void {s}(void *scorep_a, MPI_Fint *scorep_b);" for s in symbols]
    source.write_text("\n".join(lines) + "\n")
    proc = subprocess.run([cc, "-fsyntax-only", "-Werror", str(source)], capture_output=True, text=True)
    if proc.returncode == 0:
        return set(), True
    named = set(re.findall(r"[‘'`](\w+)[’']", proc.stderr)) & set(symbols)
    return named, False


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--fc", required=True, help="the MPI Fortran compiler wrapper (mpif90)")
    parser.add_argument("--cc", required=True, help="the MPI C compiler wrapper (mpicc)")
    parser.add_argument("--procedures", required=True, help="generated/mpi/probes/fortran-procedures.txt")
    parser.add_argument("--output", required=True, help="header to write")
    parser.add_argument("--report", required=True, help="coverage report to write")
    args = parser.parse_args()

    started = time.perf_counter()
    entries = [line.split() for line in pathlib.Path(args.procedures).read_text().splitlines() if line.strip()]
    libs = link_libraries(args.fc)
    symbols = exported_symbols(libs)
    status, names, pnames = {}, {}, {}
    for name, *candidates in entries:
        exported = [s for s in candidates if s in symbols]
        twins = [profiling(s) for s in exported if profiling(s) in symbols]
        if not exported:
            status[name] = "not exported by the MPI library's Fortran layer"
        elif not twins:
            status[name] = "no profiling symbol (pmpi_) to call"
        else:
            names[name], pnames[name] = exported, twins[0]
    compiles = 0
    with tempfile.TemporaryDirectory() as work:
        todo = sorted({s for n in names for s in names[n] + [pnames[n]]})
        while todo:
            compiles += 1
            bad, ok = compile_errors(args.cc, todo, work)
            if ok or not bad:
                if not ok:
                    raise SystemExit(f"probe: '{args.cc}' cannot compile a declaration of the "
                                     "Fortran symbols against mpi.h")
                break
            todo = [s for s in todo if s not in bad]
            for n in list(names):
                if pnames[n] in bad:
                    status[n] = f"mpi.h declares {pnames[n]} otherwise"
                    del names[n]
                    continue
                names[n] = [s for s in names[n] if s not in bad]
                if not names[n]:
                    status[n] = "mpi.h declares its Fortran symbols otherwise"
                    del names[n]
    wrapped = [e[0] for e in entries if e[0] in names]

    header = ["/* Written by configure-checks/probe_mpi_fortran.py at configure time. */",
              "#ifndef SCOREP_MPI_FORTRAN_PROBES_H", "#define SCOREP_MPI_FORTRAN_PROBES_H"]
    for name, *_ in entries:
        if name in names:
            header.append(f"#define SCOREP_MPIF_HAVE_{name} 1")
            header.append(f"#define SCOREP_MPIF_PNAME_{name} {pnames[name]}")
            header.append(f"#define SCOREP_MPIF_ALIASES_{name}(f) "
                          + " ".join(f"SCOREP_MPIF_ALIAS(f, {s})" for s in names[name]))
        else:
            header.append(f"#define SCOREP_MPIF_HAVE_{name} 0  /* {status[name]} */")
    header.append("#endif")
    pathlib.Path(args.output).write_text("\n".join(header) + "\n")
    elapsed = time.perf_counter() - started
    report = [f"# Fortran (mpif.h / use mpi) MPI procedures: {len(wrapped)} wrapped, {len(status)} not "
              f"({len(entries)} probed with {args.fc}, libraries {' '.join(p.name for p in libs)}, "
              f"{compiles} compiles, {elapsed:.2f} s)"]
    report += [f"wrapped {n} {' '.join(names[n])} -> {pnames[n]}" for n in wrapped]
    report += [f"skipped {e[0]}: {status[e[0]]}" for e in entries if e[0] in status]
    pathlib.Path(args.report).write_text("\n".join(report) + "\n")
    print(report[0])


if __name__ == "__main__":
    main()
