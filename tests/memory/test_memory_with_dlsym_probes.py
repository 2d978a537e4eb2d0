"""A program that probes for symbols with dlsym (plugin loaders, optional
libraries) runs unchanged under the memory adapter: glibc frees a failed
dlsym's error string at the next dl call through free, and a wrapper that
looked its original up with dlsym at that moment freed it twice and aborted
the program. The measurement's own checks for the MPI layer leave the
program's dlerror() state alone. Oracle: the program's own output and exit
status, unmeasured and measured."""
import pathlib
import subprocess

import pytest

from conftest import run_program, scorep

HERE = pathlib.Path(__file__).resolve().parent
EXPECTED = "found 0, error after clearing: none\n"


@pytest.mark.parametrize("tracing", ["false", "true"])
@pytest.mark.parametrize("memory", ["--memory", "--memory=linktime"])
def test_program_probing_missing_symbols_runs_unchanged(build_dir, tmp_path, memory, tracing):
    plain = tmp_path / "plain"
    subprocess.run(["gcc", "-O1", str(HERE / "dlsym_probe.c"), "-o", str(plain), "-ldl"], check=True)
    assert subprocess.run([str(plain)], capture_output=True, text=True).stdout == EXPECTED
    program = tmp_path / "probe"
    subprocess.run(scorep(build_dir) + ["--io=posix", memory, "gcc", "-O1", str(HERE / "dlsym_probe.c"), "-o",
                                        str(program), "-ldl"], check=True, capture_output=True)
    for run in range(5):
        proc = run_program([program], tmp_path / f"experiment-{run}", {"SCOREP_ENABLE_TRACING": tracing})
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, EXPECTED, ""), f"run {run}"
