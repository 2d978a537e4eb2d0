"""Real MPI+OpenMP applications from Debian, measured unmodified
(`mpirun scorep-exec --mpi --thread=omp -- <application>`): their results
are the program's own when measured, and their OpenMP regions are in the
profile, one location per thread.

The oracle is the application itself: it runs twice without measurement
and once measured, and every result line that is the same in both plain
runs must be the same measured. One exception, the application's own: a
value summed by an OpenMP reduction is not reproducible in its last digits,
measured or not (libgomp combines the threads' partial sums in the order
they arrive; CP2K's energy terms, printed with 14 decimals, vary in the
last one or two from plain run to plain run, and so does the SCF table's
last energy change, about 1e-12), so a line whose numbers differ by at most
1e-12 (relative above 1) counts as the same. Files the application writes
at a precision it reproduces (CP2K's forces, GROMACS's coordinates) must
match byte for byte.
"""
import collections
import json
import pathlib
import re
import shutil
import subprocess

import pytest

from conftest import MPI_LAUNCHERS, mpi_env

RANKS, THREADS = 2, 2


def launch(argv, cwd, experiment=None, preload=None, timeout=300):
    """argv on RANKS ranks of THREADS threads each, with preload (a test's
    own library, not the measurement) preloaded into the ranks."""
    env = mpi_env({"OMP_NUM_THREADS": str(THREADS), "OMP_WAIT_POLICY": "passive", "GMX_MAXBACKUP": "-1"})
    env.pop("LD_PRELOAD", None)
    if experiment is not None:
        env["SCOREP_EXPERIMENT_DIRECTORY"] = str(experiment)
    launcher = MPI_LAUNCHERS["openmpi"] + ["-np", str(RANKS)] + (["-x", f"LD_PRELOAD={preload}"] if preload else [])
    return subprocess.run(launcher + [str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def three_runs(tmp_path, prepare, argv, exec_, preload=None):
    """The application run twice plain and once measured, each in a fresh
    directory that prepare(dir) fills with its input: ([plain, plain,
    measured] directories, the experiment)."""
    dirs = []
    for name in ("plain1", "plain2", "measured"):
        d = tmp_path / name
        d.mkdir()
        prepare(d)
        dirs.append(d)
    for d in dirs[:2]:
        proc = launch(argv, d, preload=preload)
        assert proc.returncode == 0, f"{argv} exited {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    experiment = tmp_path / "experiment"
    proc = launch([exec_, "--mpi", "--thread=omp", "--"] + argv, dirs[2], experiment, preload)
    assert proc.returncode == 0, f"measured {argv} exited {proc.returncode}\n{proc.stderr[-3000:]}"
    return dirs, experiment


NUMBER = re.compile(r"-?\d+\.\d+(?:[eE][-+]?\d+)?")


def same_but_last_digits(line, other):
    """line and other alike but for numbers that differ by at most 1e-12
    (relative where the value is above 1): the last digits of an energy
    printed with 14 decimals, or of a difference of two such energies
    (the SCF table's last change, about 1e-12)"""
    if NUMBER.sub("#", line) != NUMBER.sub("#", other):
        return False
    return all(abs(float(x) - float(y)) <= 1e-12 * max(1.0, abs(float(x)))
               for x, y in zip(NUMBER.findall(line), NUMBER.findall(other)))


def assert_reproducible_lines_unchanged(plain1, plain2, measured, what):
    """Every line the two plain runs agree on (by position) is the same in
    the measured run (up to same_but_last_digits); returns how many lines
    were compared."""
    assert len(plain1) == len(plain2), f"{what}: the plain runs differ in length"
    assert len(measured) == len(plain1), f"{what}: {len(measured)} lines measured, {len(plain1)} plain"
    compared = 0
    for number, (a, b, m) in enumerate(zip(plain1, plain2, measured), 1):
        if a == b or same_but_last_digits(a, b):
            assert m == a or same_but_last_digits(m, a), \
                f"{what} line {number}: {m!r} measured, {a!r} and {b!r} plain"
            compared += 1
    return compared


def openmp_rows(experiment):
    """{location id: {construct: visits}} of the OpenMP regions (a parallel
    region inside another one counted as "nested parallel"), the locations
    by id, and the locations per rank, from profile.json."""
    profile = json.loads((experiment / "profile.json").read_text())
    regions = {r["id"]: r["name"].split(" @")[0] for r in profile["regions"]}
    callpaths = {c["id"]: c for c in profile["callpaths"]}

    def constructs(cid):
        names = []
        while cid is not None:
            names.append(regions[callpaths[cid]["region"]])
            cid = callpaths[cid]["parent"]
        return names
    locations = {loc["id"]: loc for loc in profile["locations"]}
    rows = collections.defaultdict(collections.Counter)
    for row in profile["rows"]:
        path = constructs(row["callpath"])
        if path[0].startswith("!$omp"):
            nested = path[0] == "!$omp parallel" and path.count("!$omp parallel") > 1
            rows[row["location"]]["nested parallel" if nested else path[0]] += row["visits"]
    per_rank = collections.Counter(loc["rank"] for loc in locations.values())
    return rows, locations, per_rank


def assert_every_thread_records_parallel_regions(experiment):
    rows, locations, per_rank = openmp_rows(experiment)
    assert per_rank == {rank: THREADS for rank in range(RANKS)}, per_rank
    for location in locations:
        assert rows[location]["!$omp parallel"] > 0, (locations[location], dict(rows[location]))
        assert rows[location]["!$omp implicit barrier"] > 0, (locations[location], dict(rows[location]))
    # a worker's outermost parts are parts of regions its master forked:
    # never more than its master's (inner, inactive regions a thread forks
    # alone are its own)
    for rank in range(RANKS):
        master, worker = sorted((loc for loc in locations.values() if loc["rank"] == rank),
                                key=lambda loc: loc.get("team_member", 0))
        assert rows[worker["id"]]["!$omp parallel"] <= rows[master["id"]]["!$omp parallel"]


CP2K_INPUT = """&GLOBAL
  PROJECT h2o
  RUN_TYPE ENERGY_FORCE
  PRINT_LEVEL LOW
&END GLOBAL
&FORCE_EVAL
  METHOD Quickstep
  &DFT
    BASIS_SET_FILE_NAME BASIS_MOLOPT
    POTENTIAL_FILE_NAME GTH_POTENTIALS
    &MGRID
      CUTOFF 200
    &END MGRID
    &SCF
      EPS_SCF 1.0E-6
      MAX_SCF 30
    &END SCF
    &XC
      &XC_FUNCTIONAL PBE
      &END XC_FUNCTIONAL
    &END XC
  &END DFT
  &SUBSYS
    &CELL
      ABC 6.0 6.0 6.0
    &END CELL
    &COORD
      O   0.000000    0.000000   -0.065587
      H   0.000000   -0.757136    0.520545
      H   0.000000    0.757136    0.520545
    &END COORD
    &KIND H
      BASIS_SET DZVP-MOLOPT-SR-GTH
      POTENTIAL GTH-PBE-q1
    &END KIND
    &KIND O
      BASIS_SET DZVP-MOLOPT-SR-GTH
      POTENTIAL GTH-PBE-q6
    &END KIND
  &END SUBSYS
  &PRINT
    &FORCES ON
      FILENAME forces
    &END FORCES
  &END PRINT
&END FORCE_EVAL
"""


def cp2k_results(directory):
    """CP2K's results in its output: the SCF iterations (without the time
    column), the energy terms, the total energy; the forces file whole."""
    text = (directory / "out.txt").read_text()
    block = re.search(r"SCF WAVEFUNCTION OPTIMIZATION\n(.*?ENERGY\|[^\n]*)", text, re.S)
    assert block, f"no SCF block and ENERGY| line in {directory / 'out.txt'}"
    lines = []
    for line in block.group(1).splitlines():
        scf = re.match(r"(\s+\d+ \S+\s+\S+)\s+[\d.]+(\s+.*)$", line)
        lines.append(scf.group(1) + " <time>" + scf.group(2) if scf else line)
    return lines, (directory / "h2o-forces-1_0.xyz").read_bytes()


@pytest.mark.skipif(shutil.which("cp2k.psmp") is None, reason="no cp2k.psmp (Debian's cp2k; make check installs it)")
def test_cp2k_gives_its_own_results_and_its_openmp_regions_measured(installed_prefix, tmp_path):
    """CP2K 2023.1 (Debian's cp2k.psmp, MPI + OpenMP, built with gfortran):
    a Quickstep energy and forces of a water molecule on 2 ranks x 2
    threads."""
    dirs, experiment = three_runs(tmp_path, lambda d: (d / "h2o.inp").write_text(CP2K_INPUT),
                                  ["cp2k.psmp", "-i", "h2o.inp", "-o", "out.txt"],
                                  installed_prefix / "bin" / "scorep-exec")
    (scf1, forces1), (scf2, forces2), (scfm, forcesm) = (cp2k_results(d) for d in dirs)
    compared = assert_reproducible_lines_unchanged(scf1, scf2, scfm, "CP2K's SCF and energies")
    assert compared >= 20, f"only {compared} result lines are reproducible between two plain runs"
    assert forces1 == forces2, "CP2K's forces differ between two plain runs"
    assert forcesm == forces1, "the forces file differs measured"
    assert_every_thread_records_parallel_regions(experiment)


GROMACS_MDP = """integrator = md
dt = 0.002
nsteps = 200
nstxout = 0
nstvout = 0
nstenergy = 50
nstlog = 50
cutoff-scheme = Verlet
nstlist = 10
rlist = 1.0
coulombtype = PME
rcoulomb = 1.0
rvdw = 1.0
tcoupl = v-rescale
tc-grps = System
tau_t = 0.1
ref_t = 300
gen_vel = yes
gen_temp = 300
gen_seed = 1234
ld-seed = 42
constraints = h-bonds
"""


def rdtscp_for_gromacs(tmp_path):
    """programs/gromacs_rdtscp.cc built, where the CPU executes rdtscp but
    its CPUID hides it (GROMACS's Debian build then refuses to run; the
    test skips where the instruction itself is missing)."""
    probe = tmp_path / "rdtscp"
    subprocess.run(["gcc", "-x", "c", "-", "-o", str(probe)], check=True, text=True,
                   input="#include <x86intrin.h>\nint main(void) { unsigned aux; return __rdtscp(&aux) == 0; }\n")
    if subprocess.run([str(probe)]).returncode != 0:
        pytest.skip("this CPU has no rdtscp instruction, which Debian's GROMACS build needs")
    shim = tmp_path / "gromacs_rdtscp.so"
    subprocess.run(["g++", "-O2", "-shared", "-fPIC", str(pathlib.Path(__file__).parent / "programs" /
                                                          "gromacs_rdtscp.cc"), "-o", str(shim), "-ldl"], check=True)
    return shim


@pytest.mark.skipif(shutil.which("gmx_mpi") is None, reason="no gmx_mpi (Debian's gromacs; make check installs it)")
def test_gromacs_mdrun_gives_its_own_trajectory_end_and_its_openmp_regions_measured(installed_prefix, tmp_path):
    """GROMACS 2022 (Debian's gmx_mpi, MPI + OpenMP): 200 steps of a box of
    SPC/E water, mdrun -ntomp 2 -reprod on 2 ranks; the final coordinates
    and velocities (confout.gro) and the energies of the log. Where the
    CPU hides rdtscp from CPUID, both plain and measured runs get
    programs/gromacs_rdtscp.cc preloaded (rdtscp_for_gromacs)."""
    setup = tmp_path / "setup"
    setup.mkdir()
    (setup / "topol.top").write_text('#include "oplsaa.ff/forcefield.itp"\n#include "oplsaa.ff/spce.itp"\n\n'
                                     "[ system ]\nwater\n\n[ molecules ]\n")
    (setup / "md.mdp").write_text(GROMACS_MDP)
    for argv in (["gmx_mpi", "solvate", "-cs", "spc216.gro", "-box", "2.5", "2.5", "2.5", "-o", "conf.gro", "-p",
                  "topol.top"],
                 ["gmx_mpi", "grompp", "-f", "md.mdp", "-c", "conf.gro", "-p", "topol.top", "-o", "topol.tpr"]):
        proc = subprocess.run(argv, cwd=setup, capture_output=True, text=True, timeout=120,
                              env=mpi_env({"GMX_MAXBACKUP": "-1"}))
        assert proc.returncode == 0, f"{argv}: {proc.stderr[-3000:]}"
    mdrun = ["gmx_mpi", "mdrun", "-ntomp", str(THREADS), "-reprod", "-npme", "0", "-pin", "off", "-s", "topol.tpr"]
    preload = None
    probe = launch(mdrun + ["-nsteps", "0"], setup)
    if probe.returncode != 0 and "rdtscp" in probe.stdout + probe.stderr:
        preload = rdtscp_for_gromacs(tmp_path)
        probe = launch(mdrun + ["-nsteps", "0"], setup, preload=preload)
    assert probe.returncode == 0, probe.stdout[-3000:] + probe.stderr[-3000:]
    dirs, experiment = three_runs(tmp_path, lambda d: shutil.copy(setup / "topol.tpr", d), mdrun,
                                  installed_prefix / "bin" / "scorep-exec", preload)

    def energies(directory):
        log = (directory / "md.log").read_text()
        return [line for block in re.findall(r"\n   Energies \(kJ/mol\)\n(.*?)\n\n", log, re.S)
                for line in block.splitlines()]
    coordinates = [(d / "confout.gro").read_text().splitlines() for d in dirs]
    compared = assert_reproducible_lines_unchanged(*coordinates, "confout.gro")
    compared += assert_reproducible_lines_unchanged(*(energies(d) for d in dirs), "md.log's energies")
    assert compared >= 1000, f"only {compared} result lines are reproducible between two plain runs"
    assert_every_thread_records_parallel_regions(experiment)
