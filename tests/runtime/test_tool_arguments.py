"""scorep-score and scorep-info take the command lines Score-P users type,
and say plainly what an experiment lacks, rather than fail on it later."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

from runtime_programs import Profile, load_profile, run

# the root of the call tree: the program region, named after the executable
PROGRAM = "test_experiment"

REPO = pathlib.Path(__file__).resolve().parents[2]


def score(build_dir, *args, cwd=None):
    return subprocess.run([sys.executable, str(build_dir / "runtime" / "scorep-score"), *map(str, args)],
                          capture_output=True, text=True, timeout=120, cwd=cwd)


@pytest.fixture
def experiment(build_dir, tmp_path):
    """A serial experiment: main (1 visit) > step (5 visits), both USR.
    step's visits take well under the default 1 us each (-g's defaults
    filter it); a run whose step lost the CPU meanwhile, as on a busy
    machine, is made again."""
    for attempt in range(10):
        directory = tmp_path / f"exp{attempt}"
        run(build_dir, "test_experiment", "normal", env={"SCOREP_EXPERIMENT_DIRECTORY": str(directory)})
        step = Profile(load_profile(directory / "profile.json")).row(f"{PROGRAM}/main/step")
        if step["time_excl_ns"] <= 500 * step["visits"]:
            return directory
    pytest.fail(f"step took over 500 ns per visit in 10 runs: {step}")


def excluded(path):
    return sorted(line.split(None, 1)[1] for line in path.read_text().splitlines()
                  if line.strip().startswith("EXCLUDE"))


@pytest.mark.parametrize("args, names", [
    # as Score-P users type it: -g without a list, the experiment after it
    (["-g", "{exp}"], ["step"]),
    (["-g", "{exp}/profile.json"], ["step"]),
    (["{exp}", "-g"], ["step"]),
    # Score-P's KEY=VALUE list, separate or attached
    (["-g", "timepervisit=1000000,bufferpercent=0", "{exp}"], ["main", "step"]),
    (["-gtimepervisit=1000000,bufferpercent=0,visits=2", "{exp}"], ["step"]),
    (["-g", "type=com", "{exp}"], []),
    # this tool's earlier bare time-per-visit threshold
    (["-g", "1000000", "{exp}"], ["main", "step"]),
])
def test_generate_filter_accepts_score_p_command_lines(build_dir, tmp_path, experiment, args, names):
    proc = score(build_dir, *[a.format(exp=experiment) for a in args], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "invalid float" not in proc.stderr
    assert excluded(tmp_path / "initial_scorep.filter") == names
    assert f"excluding {len(names)} region(s)" in proc.stdout


def test_generate_filter_rejects_an_unknown_key_naming_the_keys(build_dir, tmp_path, experiment):
    proc = score(build_dir, "-g", "timepervist=3", experiment, cwd=tmp_path)
    assert proc.returncode == 2
    assert "unknown key 'timepervist'" in proc.stderr and "timepervisit" in proc.stderr
    assert not (tmp_path / "initial_scorep.filter").exists()


def test_score_says_profiling_was_off_only_when_it_was(build_dir, tmp_path):
    off = tmp_path / "off"
    run(build_dir, "test_experiment", "normal",
        env={"SCOREP_EXPERIMENT_DIRECTORY": str(off), "SCOREP_ENABLE_PROFILING": "false"})
    proc = score(build_dir, off)
    assert proc.returncode == 2 and "profiling was off" in proc.stderr


def test_score_on_a_partial_experiment_names_what_is_missing(build_dir, tmp_path, experiment):
    # an experiment whose run ended before the profiles were put together:
    # scorep.cfg says profiling was on, ranks 0 and 2 of 4 left their parts
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "scorep.cfg").write_text((experiment / "scorep.cfg").read_text())
    proc = score(build_dir, broken)
    assert proc.returncode == 2
    assert "enable" not in proc.stderr.lower().replace("scorep_enable_profiling=true", "")
    assert "no profile.json" in proc.stderr and "profiling was on" in proc.stderr
    assert "no rank left a partial profile" in proc.stderr
    part = json.loads((experiment / "profile.json").read_text())
    part["experiment"].update(ranks=4, partial=True)
    for rank in (0, 2):
        (broken / f"profile.rank{rank}.json").write_text(json.dumps(part))
    proc = score(build_dir, broken)
    assert "partial profiles of rank(s) 0, 2 are there; rank(s) 1, 3 of 4 left nothing" in proc.stderr
    # and the part it points to is scored, marked partial
    proc = score(build_dir, broken / "profile.rank0.json")
    assert proc.returncode == 0 and "partial profile" in proc.stderr
    assert "Estimated aggregate size of event trace" in proc.stdout


def test_scorep_info_without_arguments_prints_its_help(tmp_path):
    proc = subprocess.run([sys.executable, str(REPO / "tools" / "scorep-info")], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0 and proc.stderr == ""
    for command in ("config-vars", "config-summary", "libwrap-summary", "--version"):
        assert f"scorep-info {command}" in proc.stdout


@pytest.mark.parametrize("tool", ["scorep-info", "scorep-score"])
def test_tool_read_by_a_reader_that_stops_early_ends_without_a_traceback(build_dir, experiment, tool):
    """`scorep-info config-vars --full | head -1`: the tool ends quietly as a C tool does."""
    argv = {"scorep-info": [str(REPO / "tools" / "scorep-info"), "config-vars", "--full"],
            "scorep-score": [str(build_dir / "runtime" / "scorep-score"), "-r", str(experiment)]}[tool]
    # a pipe whose reader has gone before the tool writes
    read_end, write_end = os.pipe()
    os.close(read_end)
    proc = subprocess.run([sys.executable, *argv], stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=120)
    os.close(write_end)
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr, proc.stderr
    assert proc.returncode == -13, (proc.returncode, proc.stderr)   # SIGPIPE, as `cat` ends
