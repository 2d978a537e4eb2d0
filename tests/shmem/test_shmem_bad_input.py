"""What the SHMEM instrumenters refuse, and how they say it: scorep-exec
--shmem on a program that does not load liboshmem (and, when that program
is the launcher, where scorep-exec belongs), scorep with an unknown form of
the option."""
import subprocess

import pytest

from conftest import scorep
from shmem_oracle import HAVE_OSHMEM, PROGRAM

pytestmark = pytest.mark.skipif(not HAVE_OSHMEM, reason="Open MPI's oshmem (oshcc, oshrun) not installed")


def test_exec_refuses_a_program_without_liboshmem(installed_prefix, tmp_path):
    program = tmp_path / "plain"
    (tmp_path / "plain.c").write_text("int main(void) { return 0; }\n")
    subprocess.run(["gcc", str(tmp_path / "plain.c"), "-o", str(program)], check=True)
    proc = subprocess.run([installed_prefix / "bin" / "scorep-exec", "--shmem", "--", program],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert f"--shmem: {program} does not load Open MPI's liboshmem.so: not an OpenSHMEM program?" in proc.stderr


def test_exec_outside_the_launcher_says_where_it_goes(installed_prefix):
    proc = subprocess.run([installed_prefix / "bin" / "scorep-exec", "--shmem", "--", "oshrun", "-n", "2", "./app"],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert "scorep-exec goes inside the launcher: oshrun -n N scorep-exec --shmem -- ./app" in proc.stderr


def test_scorep_unknown_shmem_option_is_an_error(build_dir, tmp_path):
    proc = subprocess.run(scorep(build_dir) + ["--shmem=openshmem", "oshcc", str(PROGRAM), "-o",
                                               str(tmp_path / "app")], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "unknown option '--shmem=openshmem'" in proc.stderr
    assert not (tmp_path / "app").exists()


def test_noshmem_links_without_the_adapter(build_dir, tmp_path):
    app = tmp_path / "app"
    subprocess.run(scorep(build_dir) + ["--noshmem", "--nocompiler", "oshcc", str(PROGRAM), "-o", str(app)],
                   check=True, capture_output=True, text=True)
    symbols = subprocess.run(["nm", str(app)], capture_output=True, text=True, check=True).stdout
    assert "__wrap_shmem_long_put" not in symbols
    linked = tmp_path / "linked"
    subprocess.run(scorep(build_dir) + ["--nocompiler", "oshcc", str(PROGRAM), "-o", str(linked)],
                   check=True, capture_output=True, text=True)
    symbols = subprocess.run(["nm", str(linked)], capture_output=True, text=True, check=True).stdout
    assert "T __wrap_shmem_long_put" in symbols
