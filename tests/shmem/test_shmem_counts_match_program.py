"""OpenSHMEM end to end: tests/shmem/programs/shmem_ops.c (puts, gets,
atomics, barriers, broadcast, fcollect, reduction, alltoall, a barrier of an
active set) linked with `scorep oshcc` and, unmodified, run under
`scorep-exec --shmem`, on 2 and 3 PEs with oshrun. Its data lines are
unchanged; the visits of every call, the bytes put and got per target PE and
the collectives' bytes, in profile.json and in the OTF2 trace read with
otf2-print, are what the program itself counted and printed."""
import re
import subprocess
from collections import Counter

import pytest

from conftest import scorep
from shmem_oracle import HAVE_OSHMEM, PROGRAM, load_profile, oshrun, profile_reading, program_plan, trace_reading

pytestmark = pytest.mark.skipif(not HAVE_OSHMEM, reason="Open MPI's oshmem (oshcc, oshrun) not installed")

ATOMIC_TYPES = {"shmem_long_atomic_fetch_add": "FETCH_AND_ADD", "shmem_long_atomic_inc": "INCREMENT",
                "shmem_long_atomic_swap": "SWAP"}
COLLECTIVE_OPERATIONS = {"shmem_broadcast64": "BCAST", "shmem_fcollect64": "ALLGATHER",
                         "shmem_long_sum_to_all": "ALLREDUCE", "shmem_alltoall64": "ALLTOALL"}


@pytest.fixture(scope="module")
def programs(build_dir, tmp_path_factory):
    if not (build_dir / "runtime" / "shmem_adapter" / "scorep_shmem_wrap.flags").exists():
        pytest.fail("the build has no SHMEM adapter (shmem.h missing at configure time?)")
    out = tmp_path_factory.mktemp("shmem")
    built = {}
    for kind, prefix in (("plain", []), ("linked", scorep(build_dir))):
        subprocess.run(prefix + ["oshcc", str(PROGRAM), "-o", str(out / kind)], check=True, capture_output=True,
                       text=True, cwd=out)
        built[kind] = out / kind
    return built


def check_experiment(experiment, stdout, pes):
    """Every count of the measurement against the program's own plan."""
    want_visits, want_rma, want_coll = program_plan(stdout)
    assert {pe for pe, _ in want_visits} == set(range(pes)), stdout
    profile = load_profile(experiment)
    assert profile["experiment"]["ranks"] == pes
    assert not profile["experiment"]["partial"]
    visits, rma, coll = profile_reading(profile)
    for (pe, call), n in want_visits.items():
        assert visits[pe, call] == n, (pe, call)
    for pe in range(pes):
        assert visits[pe, "shmem_init"] == visits[pe, "shmem_finalize"] == 1
    # every one-sided call, and nothing else, under its target PE
    assert rma == want_rma
    assert coll == want_coll

    puts, gets, atomics, colls, enters, issued, completed, definitions = trace_reading(experiment)
    assert 'Paradigm: SHMEM' in definitions
    for (pe, call), n in want_visits.items():
        assert enters[pe, call] == n, ("trace enters", pe, call)
    want_puts, want_gets, want_atomics = Counter(), Counter(), Counter()
    for (pe, call, target), (n, put, got) in want_rma.items():
        if call in ATOMIC_TYPES:
            kind = ATOMIC_TYPES[call]
            want_atomics[pe, target, kind] += n
            want_atomics[pe, target, kind, "sent"] += put
            want_atomics[pe, target, kind, "received"] += got
        elif put:
            want_puts[pe, target, "records"] += n
            want_puts[pe, target, "bytes"] += put
        else:
            want_gets[pe, target, "records"] += n
            want_gets[pe, target, "bytes"] += got
    assert puts == want_puts
    assert gets == want_gets
    assert atomics == want_atomics
    assert issued and issued == completed["blocking"] | completed["nonblocking"]
    # the _nbi put's completion is non-blocking, every other one blocking
    assert len(completed["nonblocking"]) == sum(n for (_, call, _), (n, _, _) in want_rma.items()
                                                if call.endswith("_nbi"))

    barriers = Counter(rank for rank, op, *_ in colls if op == "BARRIER")
    for pe in range(pes):
        assert barriers[pe] == want_visits[pe, "shmem_barrier_all"] + want_visits[pe, "shmem_barrier"]
        got = {op: (sent, received) for rank, op, _, _, sent, received in colls if rank == pe and op != "BARRIER"}
        assert got == {COLLECTIVE_OPERATIONS[call]: bytes_ for (p, call), bytes_ in want_coll.items() if p == pe}
    assert {root for _, op, _, root, _, _ in colls if op == "BCAST"} == {"0"}
    # the even PEs' barrier: on a communicator of exactly those ranks
    evens = [line for line in definitions.splitlines() if line.startswith("GROUP") and '"active set"' in line]
    assert len(evens) == 1, definitions
    members = [int(m) for m in re.findall(r"(\d+) \(\"Master thread\"", evens[0])]
    assert members == list(range(0, pes, 2))


@pytest.mark.parametrize("pes", [2, 3])
def test_linked_program_measured_as_it_counts(programs, tmp_path, pes):
    plain = oshrun(pes, [programs["plain"]], tmp_path)
    assert plain.returncode == 0, plain.stderr
    experiment = tmp_path / "experiment"
    measured = oshrun(pes, [programs["linked"]], tmp_path,
                      {"SCOREP_EXPERIMENT_DIRECTORY": str(experiment), "SCOREP_ENABLE_TRACING": "true"})
    assert measured.returncode == 0, measured.stderr
    assert sorted(measured.stdout.splitlines()) == sorted(plain.stdout.splitlines())
    assert f"result counter={3 * pes} (want {3 * pes})" in plain.stdout
    check_experiment(experiment, measured.stdout, pes)


def test_exec_measures_unmodified_binary(programs, installed_prefix, tmp_path):
    ldd = subprocess.run(["ldd", str(programs["plain"])], capture_output=True, text=True, check=True).stdout
    assert "liboshmem.so" in ldd
    pes = 2
    plain = oshrun(pes, [programs["plain"]], tmp_path)
    assert plain.returncode == 0, plain.stderr
    experiment = tmp_path / "experiment"
    measured = oshrun(pes, [installed_prefix / "bin" / "scorep-exec", "--shmem", "--verbose", "--",
                            programs["plain"]], tmp_path,
                      {"SCOREP_EXPERIMENT_DIRECTORY": str(experiment), "SCOREP_ENABLE_TRACING": "true"})
    assert measured.returncode == 0, measured.stderr
    assert "libscorep_adapter_shmem_rt.so" in measured.stderr
    assert sorted(measured.stdout.splitlines()) == sorted(plain.stdout.splitlines())
    check_experiment(experiment, measured.stdout, pes)


def test_finalize_crash_leaves_complete_data(programs, tmp_path):
    """Without the MCA setting that avoids it, Open MPI 4.1's shmem_finalize
    may crash after the data is written: the measurement ends in the wrapper
    before the real call, so the experiment is complete either way."""
    pes = 2
    experiment = tmp_path / "experiment"
    measured = oshrun(pes, [programs["linked"]], tmp_path,
                      {"SCOREP_EXPERIMENT_DIRECTORY": str(experiment), "SCOREP_ENABLE_TRACING": "true"}, mca=[])
    assert len([line for line in measured.stdout.splitlines() if line.startswith("result ")]) == 2 * pes + 1
    check_experiment(experiment, measured.stdout, pes)
