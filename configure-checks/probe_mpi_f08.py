#!/usr/bin/env python3
"""Configure-time probe: which mpi_f08 procedures can the F08 adapter wrap here?

For every procedure in generated/mpi/probes/f08-procedures.txt it decides
whether the user's MPI Fortran library exports a Fortran 2008 specific for it
(mpi_x_f08ts_ with TS 29113 choice buffers, else mpi_x_f08_; `_large` for the
large-count twin) together with its profiling twin (pmpi_x_... in Open MPI,
pmpir_x_... in MPICH), and whether the user's mpi_f08 module accepts the
wrapper's call of the PMPI_ generic with the wrapper's dummy declarations.

Batched: one symbol-table read per library; one compile of all candidates
(generated/mpi/f08/probe_declarations.F90); candidates a failing compile's
errors point at are dropped and the rest compiled again; bisection only when
an error names no candidate.

Writes a cpp header of SCOREP_F08_HAVE_/NAME_/TS_ macros (the wrappers'
names) and a coverage report.
"""
import argparse
import pathlib
import re
import subprocess
import sys
import tempfile
import time

from mpi_symbols import exported_symbols, link_libraries

FLAGS = ["-fsyntax-only", "-cpp", "-ffree-line-length-none"]


def specific(name, symbols):
    """(symbol, ts) of the library's F08 specific of `name` with a profiling twin, or None."""
    large = name.endswith("_c")
    base = (name[:-2] if large else name).lower()
    suffix = "_large_" if large else "_"
    for ts in (True, False):
        symbol = f"{base}_f08{'ts' if ts else ''}{suffix}"
        if symbol in symbols and ("p" + symbol in symbols or "pmpir_" + symbol[4:] in symbols):
            return symbol, ts
    return None


def probe_blocks(source):
    """Line range of each candidate's block in the probe source."""
    blocks, start, name = {}, None, None
    for number, line in enumerate(source.read_text().splitlines(), 1):
        m = re.match(r"#if SCOREP_F08_PROBE_(\w+)", line)
        if m:
            name, start = m.group(1), number
        elif line.startswith("#endif") and name:
            blocks[name] = (start, number)
            name = None
    return blocks


def compile_errors(fc, names, ts, source, workdir):
    """Line numbers of the errors a compile of these candidates reports ([] if clean)."""
    defines = [f"-DSCOREP_F08_PROBE_{n}=1" for n in names]
    defines += [f"-DSCOREP_F08_TS_{n}=1" for n in names if ts[n]]
    proc = subprocess.run([fc, *FLAGS, *defines, str(source)], capture_output=True, text=True,
                          cwd=workdir)
    if proc.returncode == 0:
        return []
    lines = [int(m.group(1)) for m in re.finditer(rf"{re.escape(source.name)}:(\d+):", proc.stderr)]
    return lines or [0]


def failing(fc, names, ts, source, blocks, workdir, counter):
    """Candidates whose call the module refuses: drop what the errors point at, repeat."""
    bad = []
    while names:
        counter[0] += 1
        lines = compile_errors(fc, names, ts, source, workdir)
        if not lines:
            return bad
        hit = [n for n in names if any(blocks[n][0] <= l <= blocks[n][1] for l in lines)]
        if not hit:
            return bad + bisect(fc, names, ts, source, workdir, counter)
        bad += hit
        names = [n for n in names if n not in hit]
    return bad


def bisect(fc, names, ts, source, workdir, counter):
    counter[0] += 1
    if not compile_errors(fc, names, ts, source, workdir):
        return []
    if len(names) == 1:
        return names
    half = len(names) // 2
    return (bisect(fc, names[:half], ts, source, workdir, counter)
            + bisect(fc, names[half:], ts, source, workdir, counter))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--fc", required=True, help="the MPI Fortran compiler wrapper (mpif90)")
    parser.add_argument("--procedures", required=True, help="generated/mpi/probes/f08-procedures.txt")
    parser.add_argument("--declarations", required=True, help="generated/mpi/f08/probe_declarations.F90")
    parser.add_argument("--output", required=True, help="cpp header to write")
    parser.add_argument("--report", required=True, help="coverage report to write")
    args = parser.parse_args()

    started = time.perf_counter()
    names = [n for n in pathlib.Path(args.procedures).read_text().split() if n]
    libs = link_libraries(args.fc)
    symbols = exported_symbols(libs)
    status, found = {}, {}
    for n in names:
        hit = specific(n, symbols)
        if hit:
            found[n] = hit
        else:
            status[n] = "no Fortran 2008 specific (with a profiling twin) exported"
    source = pathlib.Path(args.declarations).resolve()
    blocks = probe_blocks(source)
    ts = {n: found[n][1] for n in found}
    counter = [1]
    with tempfile.TemporaryDirectory() as work:
        # Without a usable mpi_f08 module every candidate would fail, one
        # bisection step at a time: check the module alone first.
        if compile_errors(args.fc, [], ts, source, work):
            for n in found:
                status[n] = f"'{args.fc}' cannot compile a `use mpi_f08` (no Fortran 2008 module?)"
            bad = []
        else:
            bad = failing(args.fc, [n for n in names if n in found], ts, source, blocks, work, counter)
    for n in bad:
        status[n] = "the mpi_f08 module refuses the PMPI_ call with the standard's declarations"
    wrapped = [n for n in names if n not in status]

    header = [f"#define SCOREP_F08_HAVE_{n} {0 if n in status else 1}" for n in names]
    for n in wrapped:
        symbol, is_ts = found[n]
        header.append(f"#define SCOREP_F08_NAME_{n} {symbol[:-1]}")
        header.append(f"#define SCOREP_F08_TS_{n} {1 if is_ts else 0}")
    pathlib.Path(args.output).write_text("\n".join(header) + "\n")
    elapsed = time.perf_counter() - started
    report = [f"# Fortran 2008 MPI procedures: {len(wrapped)} wrapped, {len(status)} not "
              f"({len(names)} probed with {args.fc}, libraries "
              f"{' '.join(p.name for p in libs)}, {counter[0]} compiles, {elapsed:.2f} s)"]
    report += [f"wrapped {n} {found[n][0]}" for n in wrapped]
    report += [f"skipped {n}: {status[n]}" for n in names if n in status]
    pathlib.Path(args.report).write_text("\n".join(report) + "\n")
    print(report[0])


if __name__ == "__main__":
    main()
