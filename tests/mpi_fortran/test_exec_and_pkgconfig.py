"""Unmodified Fortran binaries (use mpi, use mpi_f08) measured with the
installed `scorep-exec --mpi`, and Fortran programs linked with the adapters'
pkg-config files, on both MPIs: one experiment, both ranks, every call of the
program counted once (tests/mpi_fortran/exec_*.f90: 1 MPI_Init, 1
MPI_Comm_rank, 3 MPI_Allreduce, 1 MPI_Barrier, 1 MPI_Finalize per rank)."""
import collections
import json
import os
import subprocess

import pytest

from conftest import MPI_COMPILERS, REPO, build_option, install_build, mpi_build, mpirun

HERE = REPO / "tests" / "mpi_fortran"
RANKS = 2
CALLS = {"MPI_Init": 1, "MPI_Comm_rank": 1, "MPI_Allreduce": 3, "MPI_Barrier": 1, "MPI_Finalize": 1}
# rank r reduces r + i: (0 + i) + (1 + i) summed over i = 1..3
EXPECTED_OUTPUT = [f"RESULT {rank} 15" for rank in range(RANKS)]
PKG = {"exec_use_mpi": "scorep-adapter-mpi-fortran", "exec_f08": "scorep-adapter-mpi-f08"}


@pytest.fixture(scope="module", params=["openmpi", "mpich"])
def installed(request, tmp_path_factory):
    mpi = request.param
    prefix = install_build(mpi_build(mpi), tmp_path_factory.mktemp(f"installed-{mpi}"))
    return mpi, prefix, prefix / build_option(mpi_build(mpi), "libdir")


def compile_plain(mpi, name, directory, extra=()):
    exe = directory / name
    subprocess.run([MPI_COMPILERS[mpi]["f90"], str(HERE / f"{name}.f90"), "-o", str(exe), *extra],
                   check=True, capture_output=True, text=True, cwd=directory)
    return exe


def run_measured(mpi, argv, workdir):
    experiment = workdir / "experiment"
    env = {"SCOREP_EXPERIMENT_DIRECTORY": str(experiment)}
    forwarded = ["-x", "SCOREP_EXPERIMENT_DIRECTORY"] if mpi == "openmpi" else []
    return mpirun(RANKS, argv, mpi=mpi, env=env, cwd=workdir, launcher_args=forwarded), experiment


def check_experiment(proc, experiment, program):
    assert sorted(line for line in proc.stdout.splitlines() if line.startswith("RESULT")) == EXPECTED_OUTPUT
    assert not list(experiment.glob("profile.rank*"))
    profile = json.loads((experiment / "profile.json").read_text())
    assert profile["experiment"]["ranks"] == RANKS and profile["experiment"]["partial"] is False
    rank_of = {loc["id"]: loc["rank"] for loc in profile["locations"]}
    region_of = {cp["id"]: cp["region"] for cp in profile["callpaths"]}
    name_of = {r["id"]: r["name"] for r in profile["regions"]}
    visits = collections.Counter()
    for row in profile["rows"]:
        visits[rank_of[row["location"]], name_of[region_of[row["callpath"]]]] += row["visits"]
    # and the program region, named after the executable, once per rank
    assert dict(visits) == {(rank, region): n for rank in range(RANKS)
                            for region, n in {**CALLS, program: 1}.items()}


@pytest.mark.parametrize("name", ["exec_use_mpi", "exec_f08"])
def test_scorep_exec_preloads_the_adapters_of_an_unmodified_fortran_binary(installed, name, tmp_path):
    mpi, prefix, _ = installed
    exe = compile_plain(mpi, name, tmp_path)
    proc, experiment = run_measured(mpi, [prefix / "bin" / "scorep-exec", "--mpi", "--verbose", "--", exe],
                                    tmp_path)
    check_experiment(proc, experiment, name)
    preloaded = [os.path.basename(p) for line in proc.stderr.splitlines()
                 if line.startswith("scorep-exec: LD_PRELOAD=")
                 for p in line.split()[1].split("=", 1)[1].split(":")]
    wanted = {"exec_use_mpi": "libscorep_adapter_mpi_fortran.so", "exec_f08": "libscorep_adapter_mpi_f08.so"}
    assert wanted[name] in preloaded and "libscorep_adapter_mpi.so" in preloaded


@pytest.mark.parametrize("name", ["exec_use_mpi", "exec_f08"])
def test_pkg_config_libs_link_a_measured_fortran_program(installed, name, tmp_path):
    mpi, prefix, libdir = installed
    env = dict(os.environ, PKG_CONFIG_PATH=str(libdir / "pkgconfig"))
    # the installed files name the configured prefix; the test's installation is elsewhere
    libs = subprocess.run(["pkg-config", f"--define-variable=prefix={prefix}", "--libs", PKG[name]], env=env,
                          check=True, capture_output=True, text=True).stdout.split()
    exe = compile_plain(mpi, name, tmp_path, extra=libs + [f"-Wl,-rpath,{libdir}"])
    proc, experiment = run_measured(mpi, [exe], tmp_path)
    check_experiment(proc, experiment, name)
