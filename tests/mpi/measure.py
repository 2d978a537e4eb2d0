"""Build, run and read measured MPI test programs (shared by the MPI tests)."""
import json
import pathlib
import subprocess
import sys
from collections import defaultdict

from conftest import MPI_COMPILERS, REPO, mpi_build, mpirun, profile_totals

PROGRAMS = REPO / "tests" / "mpi" / "programs"
COUNTERS = ("visits", "bytes_sent", "bytes_received", "messages_sent", "messages_received")


def scorep(mpi):
    """The build tree's instrumenter for the given MPI (a Python script)."""
    return [sys.executable, str(mpi_build(mpi) / "runtime" / "mpi_adapter" / "scorep")]


def compile_program(mpi, source, out_dir, instrumented=True, extra=()):
    out = pathlib.Path(out_dir) / (pathlib.Path(source).stem + ("" if instrumented else "_plain"))
    command = [MPI_COMPILERS[mpi]["c"], "-O1", str(PROGRAMS / source), "-o", str(out), *extra]
    if instrumented:
        command = scorep(mpi) + command
    subprocess.run(command, check=True, capture_output=True, text=True)
    return out


def compile_fortran_pair(mpi, source, out_dir, extra=()):
    """A Fortran program built plain and with the instrumenter, each in a
    directory of its own (the compiler writes the program's .mod files there),
    with extra compiler arguments. Returns (plain, instrumented) executables."""
    compiler = MPI_COMPILERS[mpi]["f90"]
    name = pathlib.Path(source).stem
    built = []
    for kind, command in (("plain", [compiler]), ("measured", scorep(mpi) + [compiler])):
        directory = pathlib.Path(out_dir) / kind
        directory.mkdir()
        subprocess.run(command + [*extra, str(PROGRAMS / source), "-o", str(directory / name)], check=True,
                       capture_output=True, text=True, cwd=directory)
        built.append(directory / name)
    return tuple(built)


def run_measured(mpi, nprocs, program, workdir, env=None, args=(), check=True):
    """Runs a measured program; unless env says otherwise, with tracing on as
    well, so that scorep-check (conftest.mpirun) proves its trace consistent:
    the profile is the same either way."""
    experiment = pathlib.Path(workdir) / f"experiment-{pathlib.Path(program).name}"
    environment = {"SCOREP_EXPERIMENT_DIRECTORY": str(experiment), "SCOREP_ENABLE_TRACING": "true"}
    environment.update(env or {})
    if mpi == "openmpi":
        # Open MPI forwards only what -x names; MPICH's launcher forwards everything.
        forwarded = []
        for key in environment:
            forwarded += ["-x", key]
        proc = mpirun(nprocs, [program, *args], mpi=mpi, env=environment, cwd=workdir,
                      launcher_args=forwarded, check=check)
    else:
        proc = mpirun(nprocs, [program, *args], mpi=mpi, env=environment, cwd=workdir, check=check)
    return proc, experiment


def run_three_ways(mpi, nprocs, source, workdir):
    """A C program built plain and measured, run plain, measured (profile) and
    traced: the outputs and the measurements of a test module's fixture."""
    workdir = pathlib.Path(workdir)
    measured = compile_program(mpi, source, workdir)
    plain = compile_program(mpi, source, workdir, instrumented=False)
    proc, experiment = run_measured(mpi, nprocs, measured, workdir)
    plain_proc = mpirun(nprocs, [plain], mpi=mpi, cwd=workdir)
    (workdir / "traced").mkdir()
    traced_proc, traced = run_measured(mpi, nprocs, measured, workdir / "traced",
                                       env={"SCOREP_ENABLE_TRACING": "true"})
    return {"mpi": mpi, "stdout": proc.stdout, "plain_stdout": plain_proc.stdout,
            "traced_stdout": traced_proc.stdout, "profile": load_profile(experiment),
            "traced_profile": load_profile(traced), "trace": traced / "traces.otf2"}


def run_with_rank_files(mpi, nprocs, program, workdir, name, env=None):
    """Runs a program that writes <dir>/rank<R>.out; returns (proc, experiment, text)."""
    outdir = pathlib.Path(workdir) / f"out-{name}"
    outdir.mkdir()
    proc, experiment = run_measured(mpi, nprocs, program, workdir, env=env, args=[str(outdir)])
    text = "".join(p.read_text() for p in sorted(outdir.glob("rank*.out")))
    return proc, experiment, text


def load_profile(experiment):
    return json.loads((pathlib.Path(experiment) / "profile.json").read_text())


def per_rank_region(profile):
    """{(rank, region name): {counter: total}} summed over call paths and threads."""
    return defaultdict(lambda: dict.fromkeys(COUNTERS, 0), {
        key: {c: counters.get(c, 0) for c in COUNTERS} for key, counters in profile_totals(profile).items()})


def expectations(stdout):
    """The EXPECT lines test programs print: {(rank, region): counters}."""
    expected = {}
    for line in stdout.splitlines():
        if line.startswith("EXPECT "):
            _, rank, rest = line.split(" ", 2)
            for entry in json.loads(rest):
                expected[(int(rank), entry.pop("region"))] = entry
    return expected


def results(stdout):
    return sorted(line for line in stdout.splitlines() if line.startswith("RESULT"))


def per_rank_region_io(profile):
    """{(rank, region name): (bytes_read, bytes_written)}."""
    return defaultdict(lambda: [0, 0], {
        key: [c.get("bytes_read", 0), c.get("bytes_written", 0)] for key, c in profile_totals(profile).items()})