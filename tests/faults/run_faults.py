#!/usr/bin/python3
"""Fault scenarios of a traced 4-rank MPI run, each repeated: what survives?

usage: tests/faults/run_faults.py [-n RUNS] [--build DIR] [--keep DIR] [SCENARIO ...]

Scenarios (all by default):
  kill9      kill -9 of rank 2 midway: ranks 0, 1, 3 must leave a readable
             profile and trace
  sigterm    SIGTERM to mpirun midway: all 4 ranks' profiles and traces
  sigint     SIGINT to mpirun midway: the same
  sigterm_handler  SIGTERM to mpirun midway, to ranks that installed their
             own handler after the measurement started (it cleans up,
             restores the default action and raises the signal again, as
             coreutils do): every rank's handler ran, and all 4 ranks'
             profiles and traces are readable
  sigterm_long  SIGTERM to mpirun after 5 s of tracing: more than a rank can
             encode before Open MPI's SIGKILL (about 1 s later); every rank's
             trace must be readable and hold events (a prefix at least)
  abort_all  every rank calls MPI_Abort at the same moment: all 4 ranks'
             data, and every rank has ended within 2 s of the last data
             written (the launcher's own end after that is reported apart)
  exit_all   every rank calls exit(3) at the same moment without MPI_Finalize
             (what a Fortran `error stop` does): all 4 ranks' data, and
             every rank has ended within 2 s of the last data written
  disk_full  the experiment directory on a 2 MiB tmpfs (needs root): the
             profile survives, the trace is readable and the warning says
             what is missing

A profile is readable when profile.json (or profile.rank<N>.json after an
abnormal end) loads as JSON and holds the rank; a trace when otf2-print reads
traces.otf2 (or traces.rank<N>.otf2) with exit status 0 and no error. The
messages are honest when no warning says a rank wrote a trace part that is
not readable; how often every readable part's warning reached the terminal is
counted apart (a launcher may drop the output of the ranks it ends).

Prints one line per scenario with the counts; exits 1 if any run lost data.
Takes about 5 to 10 s per run (build: --build, else $SCOREP_WRAPGEN_BUILD or
build/; its MPI library's launcher: Open MPI's mpirun or MPICH's mpiexec).
"""
import argparse
import concurrent.futures
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

REPO = pathlib.Path(__file__).resolve().parent.parent.parent
RANKS = 4
SCENARIOS = ("kill9", "sigterm", "sigint", "sigterm_handler", "sigterm_long", "abort_all", "exit_all", "disk_full")
LONG_TRACING = 5.0   # seconds of tracing before the signal in sigterm_long
MIN_ENTERS = 1000    # Enter records each rank's trace must keep in sigterm_long
LAUNCHERS = {"openmpi": ["mpirun", "--oversubscribe"], "mpich": ["mpiexec.mpich"]}
COMPILERS = {"openmpi": "mpicc", "mpich": "mpicc.mpich"}
ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


def build_mpi(build):
    """The MPI library a build was configured with (meson option mpi)."""
    try:
        options = json.loads((build / "meson-info" / "intro-buildoptions.json").read_text())
        return next((o["value"] for o in options if o["name"] == "mpi"), "openmpi")
    except (OSError, ValueError):
        return "openmpi"


def build_program(build, directory):
    """The fault program, built with the build tree's instrumenter (its MPI
    library's compiler); returns its path, whose .mpi names the MPI."""
    scorep = build / "runtime" / "mpi_adapter" / "scorep"
    if not scorep.exists():
        sys.exit(f"run_faults: {scorep} is missing: build first (ninja -C {build})")
    out = directory / "fault_program"
    subprocess.run([sys.executable, str(scorep), COMPILERS[build_mpi(build)], "-O1", str(REPO / "tests" / "faults" / "fault_program.c"),
                    "-o", str(out)], check=True, capture_output=True, text=True)
    return out


def otf2_readable(anchor):
    """otf2-print reads the whole archive: exit status 0 and no error."""
    if not anchor.exists():
        return False
    try:
        proc = subprocess.run(["otf2-print", str(anchor)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True, timeout=120)
    except subprocess.TimeoutExpired:   # a truncated event file can make OTF2 loop
        return False
    return proc.returncode == 0 and "error" not in proc.stderr.lower()


def profile_ranks(path):
    try:
        with open(path) as f:
            data = json.load(f)
        return {loc["rank"] for loc in data["locations"]}
    except (OSError, ValueError, KeyError, TypeError):
        return set()


def survivors(experiment):
    """(ranks with a readable profile, ranks with a readable trace)"""
    profiles, traces = set(), set()
    if (experiment / "profile.json").exists():
        profiles |= profile_ranks(experiment / "profile.json")
    for part in experiment.glob("profile.rank*.json"):
        rank = part.name[len("profile.rank"):-len(".json")]
        if not rank.isdigit():
            continue
        rank = int(rank)
        if rank in profile_ranks(part):
            profiles.add(rank)
    anchors = {}   # anchor -> the ranks its trace holds
    if (experiment / "traces.otf2").exists():
        anchors[experiment / "traces.otf2"] = set(range(RANKS))
    for anchor in experiment.glob("traces.rank*.otf2"):
        rank = anchor.name[len("traces.rank"):-len(".otf2")]
        if rank.isdigit():   # not traces.rank<N>.part.otf2: not renamed into place
            anchors[anchor] = {int(rank)}
    for anchor, readable in zip(anchors, each_at_once(otf2_readable, anchors)):
        if readable:
            traces |= anchors[anchor]
    return profiles, traces


def each_at_once(function, arguments):
    """[function(a) for a in arguments], the calls (otf2-print of each rank's
    archive, after the run has ended) on all cores at once."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        return list(pool.map(function, arguments))


def enter_records(anchor):
    """The Enter records otf2-print reads from the archive (counted as they
    stream by); None if it is not readable."""
    if not anchor.exists():
        return None
    proc = subprocess.Popen(["otf2-print", str(anchor)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True)
    enters = 0
    try:
        deadline = time.monotonic() + 120
        for line in proc.stdout:
            enters += line.startswith("ENTER ")
            if time.monotonic() > deadline:   # a truncated event file can make OTF2 loop
                proc.kill()
                break
    finally:
        proc.stdout.close()
        returncode = proc.wait()
    return enters if returncode == 0 else None


def trace_stops(experiment):
    """Whether a location's trace ends with a MeasurementOnOff record."""
    anchor = experiment / "traces.otf2"
    if not anchor.exists():
        return False
    proc = subprocess.run(["otf2-print", str(anchor)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          text=True, timeout=120)
    return "MEASUREMENT_ON_OFF" in proc.stdout


def claimed_trace_ranks(stderr):
    """Ranks whose warnings say their part of the trace was written."""
    return {int(m) for m in re.findall(r"rank (\d+) wrote its part of the trace", stderr)}


def wait_for(paths, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if all(p.exists() and p.stat().st_size > 0 for p in paths):
            return True
        time.sleep(0.05)
    return False


def process_ended(pid):
    """The process is gone or a zombie its parent has not reaped yet."""
    try:
        stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return True
    return stat[stat.rindex(")") + 2] in "ZX"


def watch_rank_ends(pid_files, ends):
    """Sets ends["ranks"] to the time the last rank process ended (polling
    every 2 ms): the launcher may reap its ranks seconds later."""
    if not wait_for(pid_files, 120):
        return
    pids = [int(p.read_text()) for p in pid_files]
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if all(process_ended(pid) for pid in pids):
            ends["ranks"] = time.time()
            return
        time.sleep(0.002)


def run_once(scenario, program, workdir, calls=10, midway=1.5, mpi="openmpi"):
    """Runs the scenario once in workdir; returns a dict of findings. calls:
    MPI_Comm_rank calls per iteration of the program (the trace's volume);
    midway: seconds the ranks run before the signal."""
    out = workdir / "out"
    out.mkdir()
    experiment = workdir / "experiment"
    env = dict(os.environ, **ENV, SCOREP_EXPERIMENT_DIRECTORY=str(experiment), SCOREP_ENABLE_TRACING="true")
    env = {k: v for k, v in env.items() if not (k.startswith("SCOREP_") and k not in
                                                 ("SCOREP_EXPERIMENT_DIRECTORY", "SCOREP_ENABLE_TRACING"))}
    # Open MPI forwards only what -x names; MPICH's launcher forwards everything
    forwarded = ["-x", "SCOREP_EXPERIMENT_DIRECTORY", "-x", "SCOREP_ENABLE_TRACING"] if mpi == "openmpi" else []
    mounted = None
    expected = set(range(RANKS))
    mode, seconds, calls = "run", "60", str(calls)
    if scenario == "abort_all":
        mode, seconds = "abort", "1"
    elif scenario == "exit_all":
        mode, seconds = "exit", "1"
    elif scenario == "sigterm_handler":
        mode = "handler"
    elif scenario == "disk_full":
        mounted = workdir / "disk"
        mounted.mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mounted)], check=True)
        experiment = mounted / "experiment"
        env["SCOREP_EXPERIMENT_DIRECTORY"] = str(experiment)
        # the default limit (half the free space, for the node) keeps the trace
        # off a full disk (tests/mpi/test_trace_max_size.py); a limit of 4 times
        # the disk lets the trace fill it (the events stay in SCOREP_TOTAL_MEMORY
        # until the end), which is what this scenario is about
        env["SCOREP_TRACING_MAX_SIZE"] = "8M"
        forwarded += ["-x", "SCOREP_TRACING_MAX_SIZE"] if mpi == "openmpi" else []
        seconds = "1"
    argv = LAUNCHERS[mpi] + forwarded + ["-n", str(RANKS), str(program), str(out), seconds, mode, calls]
    proc = subprocess.Popen(argv, env=env, cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    finding = {"scenario": scenario, "experiment": experiment}
    pids = [out / f"rank{r}.pid" for r in range(RANKS)]
    ends = {}
    watcher = threading.Thread(target=watch_rank_ends, args=(pids, ends), daemon=True)
    watcher.start()
    try:
        if scenario == "sigterm_long":
            midway = max(midway, LONG_TRACING)
        if scenario in ("kill9", "sigterm", "sigint", "sigterm_handler", "sigterm_long"):
            if not wait_for(pids, 60):
                raise RuntimeError("the ranks did not start within 60 s")
            time.sleep(midway)   # every rank has recorded for a while
            if scenario == "kill9":
                os.kill(int((out / "rank2.pid").read_text()), signal.SIGKILL)
                expected = {0, 1, 3}
            else:
                proc.send_signal(signal.SIGTERM if scenario == "sigterm" else signal.SIGINT)
        try:
            stdout, stderr = proc.communicate(timeout=180)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            stdout, stderr = proc.communicate()
            finding["hung"] = True
        ended = time.time()
        watcher.join(timeout=5)
        loop_ends = [p.stat().st_mtime for p in out.glob("rank*.iterations")]
        if scenario in ("abort_all", "exit_all") and loop_ends:
            # Writing the data takes as long as its size needs; the wait that
            # counts is what comes after it: from the last file written to the
            # end of the last rank (the ranks' waits for each other). What the
            # launcher does then is its own: Open MPI, measured or not, may
            # spend 2 s on its kill sequence for ranks it has not reaped yet.
            written = max((p.stat().st_mtime for p in experiment.rglob("*") if p.is_file()), default=min(loop_ends))
            written = max(written, min(loop_ends))
            finding["writing"] = written - min(loop_ends)
            finding["wait"] = ends.get("ranks", ended) - written
            finding["launcher"] = ended - ends.get("ranks", ended)
        if scenario == "sigterm_handler":
            finding["cleaned"] = {r for r in range(RANKS) if (out / f"rank{r}.cleaned").exists()}
        profiles, traces = survivors(experiment)
        finding.update(expected=expected, profiles=profiles & expected, traces=traces & expected,
                       stderr=stderr, returncode=proc.returncode)
        if scenario == "sigterm_long":
            ranks = sorted(expected)
            finding["enters"] = dict(zip(ranks, each_at_once(
                enter_records, [experiment / f"traces.rank{r}.otf2" for r in ranks])))
        if scenario == "disk_full":
            # a trace that stops early (a MeasurementOnOff record) has a warning
            # of the measurement saying why and what is missing; one that holds
            # everything has none claiming so
            said = bool(re.search(r"^\[Score-P\].*((no space|full).*(missing|lost)|SCOREP_TRACING_MAX_SIZE)",
                                  stderr, re.I | re.M))
            finding["stops"] = trace_stops(experiment)
            finding["message"] = said == finding["stops"]
        else:
            # No warning claims a part that is not readable. The launcher may
            # drop the output of ranks it ends (Open MPI at MPI_Abort or on
            # SIGINT), so a readable part without its warning is counted apart.
            claimed = claimed_trace_ranks(stderr)
            partial = not (experiment / "traces.otf2").exists()
            finding["message"] = claimed <= traces if partial else True
            finding["all_said"] = claimed == traces if partial else True
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        if mounted is not None:
            finding["disk_files"] = sorted(f"{p.relative_to(mounted)}:{p.stat().st_size}"
                                           for p in mounted.rglob("*") if p.is_file())[:50]
            subprocess.run(["umount", "-l", str(mounted)], check=False)
    return finding


def summarise(scenario, findings):
    n = len(findings)
    expected = len(findings[0]["expected"]) if findings else 0
    full_profiles = sum(f["profiles"] == f["expected"] for f in findings)
    full_traces = sum(f["traces"] == f["expected"] for f in findings)
    honest = sum(bool(f["message"]) for f in findings)
    said = sum(bool(f.get("all_said", f["message"])) for f in findings)
    traces = " ".join(str(len(f["traces"])) for f in findings)
    profiles = " ".join(str(len(f["profiles"])) for f in findings)
    line = (f"{scenario:10} runs {n:3}  all {expected} profiles readable: {full_profiles:3}/{n}  "
            f"all {expected} traces readable: {full_traces:3}/{n}  honest message: {honest:3}/{n}  "
            f"(every part's warning seen: {said}/{n})")
    if any("wait" in f for f in findings):
        line += (f"  longest writing: {max(f.get('writing', 0) for f in findings):.1f} s, "
                 f"longest wait of the ranks after it: {max(f.get('wait', 0) for f in findings):.2f} s, "
                 f"longest launcher's end after the ranks': {max(f.get('launcher', 0) for f in findings):.1f} s")
    if any("cleaned" in f for f in findings):
        line += f"  the program's own handler ran on every rank: {sum(f['cleaned'] == f['expected'] for f in findings)}/{n}"
    line += f"\n{'':10} traces per run: {traces}\n{'':10} profiles per run: {profiles}"
    if any("enters" in f for f in findings):
        line += f"\n{'':10} Enter records per rank: " + "  ".join(
            "/".join(str(n) for n in f.get("enters", {}).values()) for f in findings)
    return line


def scenario_ok(f):
    ok = f["profiles"] == f["expected"] and f["traces"] == f["expected"] and f["message"] and not f.get("hung")
    if f["scenario"] == "sigterm_long":
        ok = ok and all(n is not None and n >= MIN_ENTERS for n in f["enters"].values())
    if f["scenario"] in ("abort_all", "exit_all"):
        ok = ok and f.get("wait", 99) <= 2.0
    if f["scenario"] == "sigterm_handler":
        ok = ok and f["cleaned"] == f["expected"]
    return ok


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("-n", "--runs", type=int, default=20, help="runs per scenario (default 20)")
    parser.add_argument("--build", type=pathlib.Path,
                        default=pathlib.Path(os.environ.get("SCOREP_WRAPGEN_BUILD", REPO / "build")))
    parser.add_argument("--keep", type=pathlib.Path, help="keep every run's directory under this one")
    parser.add_argument("--calls", type=int, default=10,
                        help="MPI_Comm_rank calls per iteration: the trace's volume (default 10)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each run's findings")
    parser.add_argument("scenarios", nargs="*", metavar="SCENARIO", help=", ".join(SCENARIOS) + " (default: all)")
    args = parser.parse_args(argv)
    unknown = [s for s in args.scenarios if s not in SCENARIOS]
    if unknown:
        parser.error(f"unknown scenario {', '.join(unknown)}: choose from {', '.join(SCENARIOS)}")
    args.scenarios = args.scenarios or list(SCENARIOS)
    if "disk_full" in args.scenarios and os.geteuid() != 0:
        print("run_faults: disk_full needs root (it mounts a tmpfs); skipped", file=sys.stderr)
        args.scenarios = [s for s in args.scenarios if s != "disk_full"]
    root = pathlib.Path(tempfile.mkdtemp(prefix="scorep-faults-"))
    failed = False
    try:
        program = build_program(args.build.resolve(), root)
        mpi = build_mpi(args.build.resolve())
        print(f"run_faults: {mpi} build {args.build}, {args.runs} run(s) per scenario", flush=True)
        for scenario in args.scenarios:
            findings = []
            for i in range(args.runs):
                workdir = root / f"{scenario}-{i}"
                workdir.mkdir()
                print(f"  {scenario} run {i + 1}/{args.runs}", end="\r", file=sys.stderr, flush=True)
                f = run_once(scenario, program, workdir, args.calls, mpi=mpi)
                findings.append(f)
                if args.verbose or not scenario_ok(f):
                    stderr = f.pop("stderr")
                    print(f"{scenario} run {i + 1}: profiles {sorted(f['profiles'])} traces {sorted(f['traces'])} "
                          f"message ok {f['message']} {f.get('disk_files', '')} wait {f.get('wait', '')}\n"
                          + "".join(f"    | {line}\n" for line in stderr.splitlines()[-12:]), end="")
                if args.keep:
                    shutil.copytree(workdir, args.keep / workdir.name, symlinks=True,
                                    ignore=shutil.ignore_patterns("disk"))
                shutil.rmtree(workdir, ignore_errors=True)
            failed |= not all(scenario_ok(f) for f in findings)
            print(summarise(scenario, findings), flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
