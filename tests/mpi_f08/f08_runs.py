"""Runs of the mpi_f08 test program per MPI library, with and without the F08 adapter."""
import json
import pathlib
import subprocess

import pytest

from conftest import BUILDS, MPI_COMPILERS, mpirun, profile_totals

HERE = pathlib.Path(__file__).resolve().parent
RANKS = 3


def f08_libraries(mpi):
    """The F08 adapter and the C adapter of the build for `mpi`, or skip."""
    build = BUILDS[mpi]
    f08 = build / "runtime" / "mpi_adapter_f08" / "libscorep_adapter_mpi_f08.so"
    c = build / "runtime" / "mpi_adapter" / "libscorep_adapter_mpi.so"
    if not f08.exists():
        pytest.skip(f"no F08 adapter in {build} (configure it with -Dmpi={mpi} and build)")
    return build, f08, c


def program(mpi, tmp_path_factory):
    source = HERE / "f08_behaviour.F90"
    out = tmp_path_factory.mktemp(f"f08-{mpi}") / "f08_behaviour"
    flags = ["-DHAVE_ISENDRECV"] if mpi == "mpich" else []
    # in the output's directory: the compiler writes the program's .mod files there
    subprocess.run([MPI_COMPILERS[mpi]["f90"], "-cpp", *flags, "-o", str(out), str(source)],
                   check=True, capture_output=True, text=True, cwd=out.parent)
    return out


class Run:
    """Output lines (sorted) and profile of one run of the test program."""
    def __init__(self, mpi, lines, profile):
        self.mpi, self.lines, self.profile = mpi, lines, profile

    def totals(self, region, rank):
        counters = profile_totals(self.profile).get((rank, region), {})
        return {key: counters.get(key, 0)
                for key in ("visits", "bytes_sent", "bytes_received", "messages_sent", "messages_received",
                            "bytes_put", "bytes_get")}


@pytest.fixture(scope="session", params=["openmpi", "mpich"])
def runs(request, tmp_path_factory):
    """The program without and with the adapter (LD_PRELOAD), on one MPI library."""
    mpi = request.param
    build, f08, c = f08_libraries(mpi)
    exe = program(mpi, tmp_path_factory)
    plain = mpirun(RANKS, [exe], mpi=mpi).stdout
    experiment = tmp_path_factory.mktemp(f"exp-{mpi}") / "experiment"
    # MISC: MPI_F_sync_reg's group, off by default; traced for the receive envelopes
    wrapped = mpirun(RANKS, [exe], mpi=mpi, env={"LD_PRELOAD": f"{f08} {c}",
                                                  "SCOREP_MPI_ENABLE_GROUPS": "DEFAULT,MISC",
                                                  "SCOREP_ENABLE_TRACING": "true",
                                                  "SCOREP_EXPERIMENT_DIRECTORY": str(experiment)}).stdout
    profile = json.loads((experiment / "profile.json").read_text())
    run = Run(mpi, sorted(wrapped.splitlines()), profile)
    run.experiment = experiment
    return sorted(plain.splitlines()), run
