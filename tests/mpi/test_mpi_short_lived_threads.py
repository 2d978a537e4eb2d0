"""Many short-lived threads making MPI calls under MPI_THREAD_MULTIPLE (the
shape of MPICH's threads/pt2pt/alltoall): each rank starts 200 threads, two
at a time, each exchanging one message. A thread that ended hands its location
on, so every rank has at most three locations (not 201), every call and
message is in the profile and in the trace, and otf2-print reads the trace.
(Threads without MPI: tests/trace/test_short_lived_threads.py.)"""
import collections
import subprocess

import pytest

from measure import compile_program, load_profile, run_measured

RANKS, THREADS, CONCURRENT = 4, 200, 2


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_200_short_lived_threads_per_rank_share_three_locations_with_every_message(mpi, tmp_path):
    program = compile_program(mpi, "short_threads.c", tmp_path, extra=["-pthread"])
    proc, experiment = run_measured(mpi, RANKS, program, tmp_path, args=[THREADS],
                                    env={"SCOREP_ENABLE_TRACING": "true"})
    if "SKIP" in proc.stdout:
        pytest.skip(f"{mpi} offers no MPI_THREAD_MULTIPLE here")
    assert sorted(line for line in proc.stdout.splitlines() if line.startswith("RESULT")) == [
        f"RESULT rank {r} threads {THREADS} wrong 0" for r in range(RANKS)]

    profile = load_profile(experiment)
    locations_per_rank = collections.Counter(loc["rank"] for loc in profile["locations"])
    assert sorted(locations_per_rank) == list(range(RANKS))
    assert all(n <= CONCURRENT + 1 for n in locations_per_rank.values()), locations_per_rank
    rank_of = {loc["id"]: loc["rank"] for loc in profile["locations"]}
    names = {r["id"]: r["name"] for r in profile["regions"]}
    region_of = {c["id"]: c["region"] for c in profile["callpaths"]}
    per_rank = collections.defaultdict(collections.Counter)
    for row in profile["rows"]:
        if names[region_of[row["callpath"]]] == "MPI_Sendrecv":
            for key in ("visits", "messages_sent", "messages_received", "bytes_sent"):
                per_rank[rank_of[row["location"]]][key] += row[key]
    for rank in range(RANKS):
        assert per_rank[rank] == {"visits": THREADS, "messages_sent": THREADS,
                                  "messages_received": THREADS, "bytes_sent": THREADS * 64}, rank

    printed = subprocess.run(["otf2-print", str(experiment / "traces.otf2")], capture_output=True,
                             text=True, timeout=300)
    assert printed.returncode == 0 and "ERROR" not in printed.stderr, printed.stderr[-2000:]
    kinds = collections.Counter()
    locations = set()
    for line in printed.stdout.splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[0].isupper() and fields[1].isdigit():
            locations.add(int(fields[1]))
            region = line.split('Region: "')[1].split('"')[0] if 'Region: "' in line else None
            kinds[(fields[0], region)] += 1
    assert kinds[("ENTER", "MPI_Sendrecv")] == kinds[("LEAVE", "MPI_Sendrecv")] == RANKS * THREADS
    assert kinds[("MPI_SEND", None)] == kinds[("MPI_RECV", None)] == RANKS * THREADS
    assert len(locations) <= RANKS * (CONCURRENT + 1)
