"""Fatal signals under measurement: the data recorded so far is written, then
the action that was there before the measurement's handler gets the signal
with the same siginfo (docs/MAINTAINING.md, "The measurement's life cycle").
A termination request the program handles or ignores is the program's
business: it goes on and the measurement ends normally."""
import pytest

from runtime_programs import Profile, load_profile, run

# the root of the call tree: the program region, named after the executable
PROGRAM = "test_signals"


@pytest.mark.parametrize("mode, received", [
    ("fault", "handler: signal 11 code 1 addr 0x10 value 0\n"),   # SEGV_MAPERR at the address
    ("queued", "handler: signal 3 code -1 addr"),                  # SI_QUEUE, with its value
])
def test_a_handler_installed_before_gets_the_signal_after_the_data_is_written(build_dir, tmp_path, mode,
                                                                             received):
    for attempt in range(3):
        directory = tmp_path / f"e{attempt}"
        proc = run(build_dir, "test_signals", mode, env={"SCOREP_EXPERIMENT_DIRECTORY": str(directory)},
                   check=False)
        assert proc.returncode == 7, proc.stderr
        assert proc.stdout.startswith(received), proc.stdout
        if mode == "queued":
            assert proc.stdout.endswith(" value 1234\n"), proc.stdout
        data = load_profile(directory / "profile.json")
        assert data["experiment"]["partial"] is True
        assert Profile(data).row(f"{PROGRAM}/main/step")["visits"] == 5


@pytest.mark.parametrize("mode, output", [("term", "went on (terms 1)\n"), ("ignored", "went on (terms 0)\n")])
def test_a_termination_request_the_program_handles_or_ignores_does_not_end_the_measurement(
        build_dir, tmp_path, mode, output):
    directory = tmp_path / "e"
    proc = run(build_dir, "test_signals", mode, env={"SCOREP_EXPERIMENT_DIRECTORY": str(directory)})
    assert proc.stdout == output
    data = load_profile(directory / "profile.json")
    assert data["experiment"]["partial"] is False
    assert Profile(data).row(f"{PROGRAM}/main/step")["visits"] == 6


# A handler the program installs after the measurement started (sort, gfortran's
# run-time, MPI libraries do) runs as it would unmeasured, and when it ends the
# process with the default action the data recorded so far is written.
@pytest.mark.parametrize("mode, status, output", [
    ("late_reraise", -15, "cleaned up\n"),      # cleans up, SIG_DFL, raise (coreutils)
    ("late_resethand", -11, "handler once\n"),  # SA_RESETHAND, returns: the fault comes again
    ("late_exit", 3, "cleaned up\n"),           # cleans up, _exit(3): no exit handler runs
])
def test_a_handler_installed_after_the_start_runs_first_and_the_data_is_written_when_it_ends_the_process(
        build_dir, tmp_path, mode, status, output):
    for attempt in range(3):
        directory = tmp_path / f"e{attempt}"
        proc = run(build_dir, "test_signals", mode, env={"SCOREP_EXPERIMENT_DIRECTORY": str(directory)},
                   check=False)
        assert proc.returncode == status, proc.stderr
        assert proc.stdout == output
        data = load_profile(directory / "profile.json")
        assert data["experiment"]["partial"] is True
        assert Profile(data).row(f"{PROGRAM}/main/step")["visits"] == 5


@pytest.mark.parametrize("mode, status", [
    ("overflow", -11),   # the SIGSEGV of an overflowed stack: ours run on an alternate stack of their own
    ("pipe", -13),       # SIGPIPE: a program writing into `| head` that has ended
])
def test_a_signal_that_ends_the_program_by_its_default_action_leaves_the_data_recorded_so_far(
        build_dir, tmp_path, mode, status):
    for attempt in range(3):
        directory = tmp_path / f"e{attempt}"
        proc = run(build_dir, "test_signals", mode, env={"SCOREP_EXPERIMENT_DIRECTORY": str(directory)},
                   check=False)
        assert proc.returncode == status and proc.stdout == "", proc.stderr
        data = load_profile(directory / "profile.json")
        assert data["experiment"]["partial"] is True
        assert Profile(data).row(f"{PROGRAM}/main/step")["visits"] == 5


def test_the_program_sees_and_sets_its_own_signal_actions_while_the_measurement_runs(build_dir, tmp_path):
    """What sigaction() and signal() report is what the program set (glibc's
    semantics: signal() installs with SA_RESTART and the signal in the mask),
    never the measurement's handler; an ignored signal is ignored and a
    handler set with signal() runs."""
    proc = run(build_dir, "test_signals", "late_view", env={"SCOREP_EXPERIMENT_DIRECTORY": str(tmp_path / "e")})
    assert proc.stdout == ("view: default\n"
                           "old: default\n"
                           "view: count restart nodefer mask-usr1\n"
                           "signal returned: count\n"
                           "view: ignored restart\n"
                           "signal returned: ignored\n"
                           "view: default restart\n"
                           "terms 1\n"
                           "went on (terms 0)\n")
    assert load_profile(tmp_path / "e" / "profile.json")["experiment"]["partial"] is False


@pytest.mark.parametrize("mode, read", [("late_eintr", "read -1 EINTR (ints 1)\n"),
                                        ("late_restart", "read 1 (ints 1)\n")])
def test_a_late_handler_keeps_its_flags_so_a_blocked_read_is_interrupted_or_restarted_as_unmeasured(
        build_dir, tmp_path, mode, read):
    proc = run(build_dir, "test_signals", mode, env={"SCOREP_EXPERIMENT_DIRECTORY": str(tmp_path / "e")})
    assert proc.stdout == read + "went on (terms 1)\n"
    assert Profile(load_profile(tmp_path / "e" / "profile.json")).row(f"{PROGRAM}/main/step")["visits"] == 6
