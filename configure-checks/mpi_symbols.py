"""What an MPI compiler wrapper links, and which symbols those libraries export
(shared by the C and Fortran 2008 probes)."""
import pathlib
import shlex
import subprocess
import sys


def link_libraries(compiler):
    """Shared libraries the compiler wrapper links (from its -show / --showme line)."""
    for flag in ("-show", "--showme"):
        proc = subprocess.run([compiler, flag], capture_output=True, text=True)
        if proc.returncode == 0 and proc.stdout.strip():
            words = shlex.split(proc.stdout)
            break
    else:
        sys.exit(f"probe: cannot ask '{compiler}' for its link line (-show / --showme)")
    dirs = [w[2:] for w in words if w.startswith("-L")]
    dirs += ["/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib"]
    libs = []
    for w in words:
        if w.startswith("-l"):
            for d in dirs:
                path = pathlib.Path(d) / f"lib{w[2:]}.so"
                if path.exists():
                    libs.append(path.resolve())
                    break
    if not libs:
        sys.exit(f"probe: no shared MPI library found in the link line of '{compiler}'")
    return libs


def exported_symbols(libs):
    symbols = set()
    for lib in libs:
        # a linker script (libm.so) has no symbol table: nm fails, nothing to read
        out = subprocess.run(["nm", "-D", "--defined-only", str(lib)], capture_output=True,
                             text=True).stdout
        symbols.update(line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip())
    return symbols
