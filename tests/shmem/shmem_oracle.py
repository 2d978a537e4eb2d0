"""What the SHMEM tests share: building tests/shmem/programs/shmem_ops.c,
running it with oshrun, and the two readings compared: the program's own
"plan" and "coll" lines (what each PE did, counted by the program from its
constants and sizeof) and the measurement, read from profile.json and from
otf2-print's output (the OTF2 project's own reader, not ours)."""
import json
import re
import shutil
import subprocess
from collections import Counter

import cube_consistency
import trace_consistency
from conftest import REPO, mpi_env

PROGRAM = REPO / "tests" / "shmem" / "programs" / "shmem_ops.c"
# Open MPI 4.1's shmem_finalize crashes in its one-sided MPI component's
# finalisation (osc rdma: a memory hook of an unloaded component, UCX reports
# "Caught signal 11"); without that component it exits cleanly
# (docs/SHMEM_ADAPTER.md)
CLEAN_EXIT = ["--mca", "osc", "^rdma"]
HAVE_OSHMEM = bool(shutil.which("oshcc") and shutil.which("oshrun"))


def oshrun(pes, argv, cwd, env=None, mca=CLEAN_EXIT, timeout=120):
    """argv on pes PEs; env's variables are forwarded (-x). Every traced
    run's trace and profile.cubex get the suite's consistency checks, as
    conftest.mpirun's runs do."""
    forwarded = [a for key in (env or {}) for a in ("-x", key)]
    started = trace_consistency.run_started()
    proc = subprocess.run(["oshrun", "--oversubscribe", "-n", str(pes), *mca, *forwarded, *map(str, argv)],
                          env=mpi_env(env), cwd=cwd, capture_output=True, text=True, timeout=timeout)
    trace_consistency.check_run(env, cwd, started, proc.returncode)
    cube_consistency.check_run(env, cwd, started)
    return proc


PLAN = re.compile(r"^plan pe=(\d+) call=(\w+) visits=(\d+) bytes_put=(\d+) bytes_get=(\d+) target=(-?\d+)$")
COLL = re.compile(r"^coll pe=(\d+) call=(\w+) visits=(\d+) bytes_sent=(\d+) bytes_received=(\d+)$")


def program_plan(stdout):
    """From the program's output: visits per (pe, call); bytes put and got
    and visits per (pe, call, target pe); collective bytes per (pe, call)."""
    visits, rma, coll = Counter(), {}, {}
    for line in stdout.splitlines():
        m = PLAN.match(line)
        if m:
            pe, call, n, put, got, target = m.groups()
            visits[int(pe), call] += int(n)
            if int(target) >= 0:
                rma[int(pe), call, int(target)] = (int(n), int(put), int(got))
            continue
        m = COLL.match(line)
        if m:
            pe, call, n, sent, received = m.groups()
            visits[int(pe), call] += int(n)
            coll[int(pe), call] = (int(sent), int(received))
    return visits, rma, coll


def profile_reading(profile):
    """The same from profile.json: visits of the shmem_* regions per (rank,
    region); (visits, bytes_put, bytes_get) of their pe=N parameter nodes;
    (bytes_sent, bytes_received) of the collectives."""
    regions = {r["id"]: r for r in profile["regions"]}
    callpaths = {c["id"]: c for c in profile["callpaths"]}
    rank_of = {loc["id"]: loc["rank"] for loc in profile["locations"]}
    visits, rma, coll = Counter(), Counter(), {}
    for row in profile["rows"]:
        cp = callpaths[row["callpath"]]
        region = regions[cp["region"]]
        if not region["name"].startswith("shmem_"):
            continue
        assert region["paradigm"] == "shmem", region
        rank = rank_of[row["location"]]
        if cp.get("parameter"):
            assert cp["parameter"]["name"] == "pe", cp
            key = (rank, region["name"], int(cp["parameter"]["value"]))
            n, put, got = rma.get(key, (0, 0, 0))
            rma[key] = (n + row["visits"], put + row["bytes_put"], got + row["bytes_get"])
            continue
        visits[rank, region["name"]] += row["visits"]
        if row["collectives"] and region["role"] != "barrier":
            coll[rank, region["name"]] = (row["bytes_sent"], row["bytes_received"])
    return visits, dict(rma), coll


RMA = re.compile(r"^(RMA_PUT|RMA_GET)\s+(\d+)\s+\d+\s+Window: \"symmetric heap\" <\d+>, Remote: (\d+) .*?"
                 r"Bytes: (\d+), Matching: (\d+)")
ATOMIC = re.compile(r"^RMA_ATOMIC\s+(\d+)\s+\d+\s+Window: \"symmetric heap\" <\d+>, Remote: (\d+) .*?"
                    r"Type: (\w+), Sent: (\d+), Received: (\d+), Matching: (\d+)")
COMPLETE = re.compile(r"^RMA_OP_COMPLETE_(BLOCKING|NON_BLOCKING)\s+(\d+)\s+\d+\s+Window: .*?, Matching: (\d+)")
COLL_END = re.compile(r"^MPI_COLLECTIVE_END\s+(\d+)\s+\d+\s+Operation: (\w+), Communicator: .*? <(\d+)>, "
                      r"Root: (\w+)(?: \(.*?\))?, Sent: (\d+), Received: (\d+)")
ENTER = re.compile(r"^ENTER\s+(\d+)\s+\d+\s+Region: \"(\w+)\"")


def trace_reading(experiment):
    """From otf2-print: RMA put/get records per (rank, target): [count,
    bytes]; atomics per (rank, target, type): [count, sent, received];
    collective ends per (rank, operation); enters per (rank, region);
    issued and completed matching ids; the members of each communicator."""
    printed = subprocess.run(["otf2-print", str(experiment / "traces.otf2")], capture_output=True,
                             text=True, check=True)
    assert "warning" not in printed.stderr.lower(), printed.stderr
    puts, gets, atomics, colls, enters = Counter(), Counter(), Counter(), [], Counter()
    issued, completed = set(), {"blocking": set(), "nonblocking": set()}
    for line in printed.stdout.splitlines():
        m = RMA.match(line)
        if m:
            kind, location, remote, nbytes, matching = m.groups()
            rank = int(location) >> 32
            table = puts if kind == "RMA_PUT" else gets
            table[rank, int(remote), "records"] += 1
            table[rank, int(remote), "bytes"] += int(nbytes)
            issued.add((rank, int(matching)))
            continue
        m = ATOMIC.match(line)
        if m:
            location, remote, kind, sent, received, matching = m.groups()
            rank = int(location) >> 32
            atomics[rank, int(remote), kind] += 1
            atomics[rank, int(remote), kind, "sent"] += int(sent)
            atomics[rank, int(remote), kind, "received"] += int(received)
            issued.add((rank, int(matching)))
            continue
        m = COMPLETE.match(line)
        if m:
            kind, location, matching = m.groups()
            completed["blocking" if kind == "BLOCKING" else "nonblocking"].add((int(location) >> 32, int(matching)))
            continue
        m = COLL_END.match(line)
        if m:
            location, operation, comm, root, sent, received = m.groups()
            colls.append((int(location) >> 32, operation, int(comm), root, int(sent), int(received)))
            continue
        m = ENTER.match(line)
        if m:
            enters[int(m.group(1)) >> 32, m.group(2)] += 1
    definitions = subprocess.run(["otf2-print", "-G", str(experiment / "traces.otf2")], capture_output=True,
                                 text=True, check=True).stdout
    return puts, gets, atomics, colls, enters, issued, completed, definitions


def load_profile(experiment):
    return json.loads((experiment / "profile.json").read_text())
