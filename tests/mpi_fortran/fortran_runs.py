"""Builds and runs of the mpif.h / use mpi test programs per MPI library:
plain, linked by the `scorep` instrumenter, and (free form) plain with the
adapters preloaded."""
import json
import pathlib
import subprocess
import sys

import pytest

from conftest import BUILDS, MPI_COMPILERS, mpirun, profile_totals

HERE = pathlib.Path(__file__).resolve().parent
RANKS = 3
SOURCES = {"free": "free_form.f90", "fixed": "fixed_form.f"}


def fortran_libraries(mpi):
    """The Fortran adapter and the C adapter of the build for `mpi`, or skip."""
    build = BUILDS[mpi]
    fortran = build / "runtime" / "mpi_adapter_fortran" / "libscorep_adapter_mpi_fortran.so"
    c = build / "runtime" / "mpi_adapter" / "libscorep_adapter_mpi.so"
    if not fortran.exists():
        pytest.skip(f"no Fortran adapter in {build} (configure it with -Dmpi={mpi} and build)")
    return build, fortran, c


def compile_fortran(mpi, source, out, instrumented):
    command = [MPI_COMPILERS[mpi]["f90"], f"-I{HERE}", str(HERE / source), "-o", str(out)]
    if instrumented:
        command = [sys.executable, str(BUILDS[mpi] / "runtime/mpi_adapter/scorep")] + command
    subprocess.run(command, check=True, capture_output=True, text=True, cwd=out.parent)
    return out


class Run:
    """Output lines (sorted) and profile of one run."""
    def __init__(self, lines, experiment=None):
        self.lines, self.experiment = lines, experiment
        self.profile = json.loads((experiment / "profile.json").read_text()) if experiment else None

    def totals(self, region, rank):
        counters = profile_totals(self.profile).get((rank, region), {})
        return {key: counters.get(key, 0)
                for key in ("visits", "bytes_sent", "bytes_received", "messages_sent", "messages_received")}


def run(mpi, exe, workdir, name, env=None):
    environment = dict(env or {})
    experiment = None
    if env is not None:
        experiment = workdir / f"experiment-{name}"
        environment["SCOREP_EXPERIMENT_DIRECTORY"] = str(experiment)
    args = []
    if mpi == "openmpi":      # Open MPI forwards only what -x names
        for key in environment:
            args += ["-x", key]
    out = mpirun(RANKS, [exe], mpi=mpi, env=environment, cwd=workdir, launcher_args=args).stdout
    return Run(sorted(out.splitlines()), experiment)


@pytest.fixture(scope="session", params=["openmpi", "mpich"])
def fortran_runs(request, tmp_path_factory):
    """{(program, how): Run} for program free/fixed and how plain/scorep/preload."""
    mpi = request.param
    build, fortran, c = fortran_libraries(mpi)
    workdir = tmp_path_factory.mktemp(f"fortran-{mpi}")
    runs = {"mpi": mpi}
    # MISC: MPI_Pcontrol and the info calls; traced for the message peers
    measured = {"SCOREP_MPI_ENABLE_GROUPS": "DEFAULT,MISC", "SCOREP_ENABLE_TRACING": "true"}
    for program, source in SOURCES.items():
        for how in ("plain", "scorep"):
            directory = workdir / f"{program}-{how}"
            directory.mkdir()
            exe = compile_fortran(mpi, source, directory / program, how == "scorep")
            runs[program, how] = run(mpi, exe, directory, how, measured if how == "scorep" else None)
            if program == "free" and how == "plain":
                runs[program, "preload"] = run(mpi, exe, directory, "preload",
                                               dict(measured, LD_PRELOAD=f"{fortran} {c}"))
    return runs
