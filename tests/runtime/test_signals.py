"""Fatal signals under measurement: the data recorded so far is written, then
the action that was there before the measurement's handler gets the signal
with the same siginfo (docs/MAINTAINING.md, "The measurement's life cycle").
A termination request the program handles or ignores is the program's
business: it goes on and the measurement ends normally."""
import pytest

from runtime_programs import Profile, load_profile, run


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
        assert Profile(data).row("main/step")["visits"] == 5


@pytest.mark.parametrize("mode, output", [("term", "went on (terms 1)\n"), ("ignored", "went on (terms 0)\n")])
def test_a_termination_request_the_program_handles_or_ignores_does_not_end_the_measurement(
        build_dir, tmp_path, mode, output):
    directory = tmp_path / "e"
    proc = run(build_dir, "test_signals", mode, env={"SCOREP_EXPERIMENT_DIRECTORY": str(directory)})
    assert proc.stdout == output
    data = load_profile(directory / "profile.json")
    assert data["experiment"]["partial"] is False
    assert Profile(data).row("main/step")["visits"] == 6
