"""scorep-exec into unmodified Coarray Fortran programs (installed tree):
a program linked with OpenCoarrays' shared libcaf_openmpi.so is measured by
preloading the run-time CAF adapter (libscorep_adapter_caf_rt.so): same
output, the exact visits and bytes per target image of the link-time
adapter's test (test_caf_end_to_end.expected); a program with libcaf linked
in statically (Debian's caf) is refused with the advice to relink it with
`scorep caf`."""
import json
import pathlib
import shutil
import subprocess

import pytest

from conftest import mpirun
from test_caf_end_to_end import PROGRAM, expected, mpi_visits, profile_counts

CAF_LIBDIR = pathlib.Path("/usr/lib/x86_64-linux-gnu/open-coarrays/openmpi/lib")

pytestmark = pytest.mark.skipif(not (shutil.which("caf") and (CAF_LIBDIR / "libcaf_openmpi.so").exists()),
                                reason="OpenCoarrays' caf and shared libcaf_openmpi.so not installed")


def test_exec_preloads_caf_adapter_for_shared_libcaf(installed_prefix, tmp_path):
    program = tmp_path / "caf_shared"
    subprocess.run(["mpif90", "-fcoarray=lib", str(PROGRAM), "-o", str(program), f"-L{CAF_LIBDIR}",
                    f"-Wl,-rpath,{CAF_LIBDIR}", "-lcaf_openmpi"], check=True, capture_output=True, text=True)
    ldd = subprocess.run(["ldd", str(program)], capture_output=True, text=True, check=True).stdout
    assert "libcaf_openmpi.so" in ldd
    images = 2
    plain = mpirun(images, [program], cwd=tmp_path)
    experiment = tmp_path / "experiment"
    measured = mpirun(images, [installed_prefix / "bin" / "scorep-exec", "--caf", "--verbose", "--", program],
                      cwd=tmp_path, env={"SCOREP_EXPERIMENT_DIRECTORY": str(experiment)},
                      launcher_args=["-x", "SCOREP_EXPERIMENT_DIRECTORY"])
    assert sorted(measured.stdout.splitlines()) == sorted(plain.stdout.splitlines())
    assert "libscorep_adapter_caf_rt.so" in measured.stderr
    profile = json.loads((experiment / "profile.json").read_text())
    assert profile["experiment"]["ranks"] == images
    assert mpi_visits(profile) == 0
    want_visits, want_put, want_got = expected(images)
    visits, put, got = profile_counts(profile)
    for me in range(1, images + 1):
        for region, n in want_visits[me].items():
            assert visits[me - 1, region] == n, (me, region)
        for target in range(1, images + 1):
            assert put[me - 1, target] == want_put[me][target], ("put", me, target)
            assert got[me - 1, target] == want_got[me][target], ("get", me, target)


def test_exec_refuses_static_libcaf(installed_prefix, tmp_path):
    program = tmp_path / "caf_static"
    subprocess.run(["caf", str(PROGRAM), "-o", str(program)], check=True, capture_output=True, text=True)
    assert "libcaf" not in subprocess.run(["ldd", str(program)], capture_output=True, text=True).stdout
    exec_ = installed_prefix / "bin" / "scorep-exec"
    proc = subprocess.run([exec_, "--caf", "--", program], capture_output=True, text=True)
    assert proc.returncode == 2 and not proc.stdout
    assert "linked in statically" in proc.stderr and "relink it with the CAF adapter: scorep caf" in proc.stderr
    # --mpi alone runs it, measuring the MPI calls underneath, but says the same first
    # (2 images: on 1, OpenCoarrays 2.10.1 fails in MPI_Win_create, plain too)
    proc = mpirun(2, [exec_, "--mpi", "--", program], cwd=tmp_path,
                  env={"SCOREP_EXPERIMENT_DIRECTORY": str(tmp_path / "experiment")},
                  launcher_args=["-x", "SCOREP_EXPERIMENT_DIRECTORY"])
    assert "done 2" in proc.stdout
    assert "warning:" in proc.stderr and "relink it with the CAF adapter: scorep caf" in proc.stderr
    proc = subprocess.run([exec_, "--mpi", "--", "/bin/true"], capture_output=True, text=True)
    assert proc.returncode == 0 and "libcaf" not in proc.stderr
    # a program that is no coarray program at all is no reason for that advice
    proc = subprocess.run([exec_, "--caf", "--", "/bin/true"], capture_output=True, text=True)
    assert proc.returncode == 2 and "does not load OpenCoarrays' shared libcaf" in proc.stderr
