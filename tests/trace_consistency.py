"""Every traced MPI run of the test suite is checked by scorep-check
(tools/scorep-check.in, the independent trace oracle): conftest.mpirun and
the coarray tests' cafrun call check_run after the program ends. A run that
enables tracing and leaves a trace gets its trace checked, whatever the test
asserts itself; a violation fails the test with the checker's report.

Partial mode (what a cut leaves is tolerated: open regions at the end,
missing ranks, messages without their other side; everything else must hold)
is chosen for runs that ended abnormally (non-zero exit status, per-rank
archives of an abnormal end, a profile marked "partial" by the measurement)
and for runs that cap the trace (SCOREP_TRACING_MAX_SIZE).

KNOWN lists the tests whose traces are known to be inconsistent, each with
the reason; their findings are reported as a pytest warning instead of
failing the test, so they stay visible until the cause is fixed (then the
entry goes)."""
import importlib.machinery
import importlib.util
import os
import pathlib
import re
import time
import warnings

REPO = pathlib.Path(__file__).resolve().parent.parent
CHECKER = REPO / "tools" / "scorep-check.in"

# (pattern on the pytest node id, reason): keep each entry explained and short-lived
KNOWN = [
    # an intercommunicator to another job (MPI_Comm_spawn's
    # parent and children) is defined as its local group only, so a send to
    # the remote group names a rank of the caller's own side
    (r"test_spawn_experiment\.py::", "an intercommunicator to spawned processes is recorded as its "
     "local group only"),
    # MPICH 4.0.2 completes MPI_Isendrecv(_replace) requests with an unset
    # status: a receive then records the posted capacity (24 bytes for the
    # 8 that came) and, for wildcards, no source or tag (docs/MPI_ADAPTER.md)
    (r"test_c_isendrecv\.py::.*\[mpich\]", "MPICH leaves MPI_Isendrecv's status unset: posted capacity "
     "and unknown wildcard envelopes are recorded"),
    # the fault these tests inject is an MPI call to a rank beyond the
    # communicator; the wrapper records its send or put before MPI rejects it
    # (Score-P does the same), so the trace names a rank that does not exist
    (r"test_fatal_error_handler\.py::", "the deliberately erroneous MPI_Send/MPI_Put to rank size+5 "
     "is recorded before MPI's fatal error handler ends the rank"),
]


CHECKED = {"full": 0, "partial": 0, "known": 0, "failed": 0, "seconds": 0.0}


def pytest_terminal_summary(terminalreporter):
    """(a pytest hook, imported by conftest.py) How many traces were checked."""
    if CHECKED["full"] or CHECKED["partial"]:
        terminalreporter.write_line(
            f"scorep-check: {CHECKED['full']} traced runs checked in full, {CHECKED['partial']} partial "
            f"(abnormal end or size limit) in {CHECKED['seconds']:.1f} s; {CHECKED['failed']} inconsistent, "
            f"{CHECKED['known']} known inconsistencies (warnings above)")


def _checker():
    """The checker module, loaded once from the source tree (its file has no
    .py suffix: it is a command)."""
    global _module
    try:
        return _module
    except NameError:
        loader = importlib.machinery.SourceFileLoader("scorep_check", str(CHECKER))
        spec = importlib.util.spec_from_loader("scorep_check", loader)
        _module = importlib.util.module_from_spec(spec)
        loader.exec_module(_module)
        return _module


def _truthy(value):
    return str(value).strip().lower() in ("true", "yes", "1", "on")


def run_started():
    """A mark taken before the run: experiments made after it are this run's."""
    return time.time()


def _experiments(env, cwd, started):
    """The experiment directories a run wrote: SCOREP_EXPERIMENT_DIRECTORY if
    set, otherwise the default scorep-* directories made in cwd since started."""
    cwd = pathlib.Path(cwd or os.getcwd())
    name = env.get("SCOREP_EXPERIMENT_DIRECTORY")
    if name:
        path = pathlib.Path(name)
        return [path if path.is_absolute() else cwd / path]
    return [p for p in cwd.glob("scorep-*") if p.is_dir() and p.stat().st_mtime >= started - 0.05]


def _new_trace(experiment, started):
    """Whether the experiment holds a trace this run wrote (a run that does not
    trace may reuse an older run's directory)."""
    anchors = [experiment / "traces.otf2", *experiment.glob("traces.rank*.otf2")]
    return any(a.is_file() and a.stat().st_mtime >= started - 0.05 for a in anchors)


def _says_partial(experiment):
    """Whether the measurement itself marked the experiment as the data of an
    abnormal end (profile.json's experiment.partial, written first)."""
    for profile in experiment.glob("profile*.json"):
        with open(profile, encoding="utf-8", errors="replace") as f:
            if re.search(r'"partial"\s*:\s*true', f.read(4096)):
                return True
    return False


def _known_reason():
    current = os.environ.get("PYTEST_CURRENT_TEST", "")
    for pattern, reason in KNOWN:
        if re.search(pattern, current):
            return reason
    return None


def check_experiment(experiment, partial=False):
    """(violations, tolerated, counts) of scorep-check on one experiment."""
    return _checker().check(str(experiment), partial=partial)


def format_findings(experiment, violations, limit=30):
    lines = [f"scorep-check: {experiment}: {len(violations)} violations"]
    lines += [f"  {finding}" for finding in violations[:limit]]
    if len(violations) > limit:
        lines.append(f"  ... and {len(violations) - limit} more")
    return "\n".join(lines)


def check_run(env, cwd, started, returncode):
    """Called by the launchers after a run: checks the trace of each
    experiment the run wrote, if tracing was on and a trace is there.
    env: the variables the run got on top of os.environ."""
    merged = dict(os.environ)
    merged.update({k: str(v) for k, v in (env or {}).items()})
    if not _truthy(merged.get("SCOREP_ENABLE_TRACING", "false")):
        return
    for experiment in _experiments(merged, cwd, started):
        if not experiment.is_dir() or not _new_trace(experiment, started):
            continue
        partial = (returncode != 0 or "SCOREP_TRACING_MAX_SIZE" in merged
                   or not (experiment / "traces.otf2").is_file() or _says_partial(experiment))
        began = time.perf_counter()
        violations, _, _ = check_experiment(experiment, partial=partial)
        CHECKED["seconds"] += time.perf_counter() - began
        CHECKED["partial" if partial else "full"] += 1
        if not violations:
            continue
        report = format_findings(experiment, violations)
        reason = _known_reason()
        if reason:
            CHECKED["known"] += 1
            warnings.warn(f"known trace inconsistency ({reason}):\n{report}", stacklevel=3)
        else:
            CHECKED["failed"] += 1
            raise AssertionError(f"the trace of this run is not self-consistent "
                                 f"({'partial' if partial else 'full'} check):\n{report}")
