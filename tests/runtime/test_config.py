"""Configuration by SCOREP_* environment variables."""
import pathlib
import re
import subprocess
import sys

import pytest

from runtime_programs import run

REPO = pathlib.Path(__file__).resolve().parents[2]


def effective(build_dir, env):
    proc = run(build_dir, "test_config", "show", env=env)
    values = dict(line.split("=", 1) for line in proc.stdout.splitlines())
    return values, proc.stderr


def test_defaults_enable_profiling_only(build_dir):
    values, stderr = effective(build_dir, {})
    assert stderr == ""
    assert values["SCOREP_ENABLE_PROFILING"] == "true"
    assert values["SCOREP_ENABLE_TRACING"] == "false"
    assert values["SCOREP_OVERWRITE_EXPERIMENT_DIRECTORY"] == "false"
    assert values["SCOREP_TIMER"] in ("tsc", "clock_gettime")


@pytest.mark.parametrize("variable, value, taken", [
    ("SCOREP_ENABLE_TRACING", "maybe", "false"),
    ("SCOREP_ENABLE_PROFILING", "2", "true"),
    ("SCOREP_TOTAL_MEMORY", "lots", "16384000"),
    ("SCOREP_TOTAL_MEMORY", "12Q", "16384000"),
    ("SCOREP_TRACING_MAX_SIZE", "huge", "auto"),
    ("SCOREP_TRACING_MAX_SIZE", "0", "auto"),
    ("SCOREP_TIMER", "sundial", None),
    ("SCOREP_VERBOSE", "loud", "false"),
])
def test_invalid_value_warns_naming_variable_value_and_replacement(build_dir, variable, value, taken):
    values, stderr = effective(build_dir, {variable: value})
    taken = taken or values[variable]
    assert variable in stderr and f"'{value}'" in stderr and f"using '{taken}'" in stderr, stderr
    assert values[variable] == taken


@pytest.mark.parametrize("text, bytes_", [("16000k", 16000 * 1024), ("64M", 64 << 20), ("1G", 1 << 30),
                                          ("2000000", 2000000), ("4mb", 4 << 20)])
def test_total_memory_accepts_score_p_size_suffixes(build_dir, text, bytes_):
    values, stderr = effective(build_dir, {"SCOREP_TOTAL_MEMORY": text})
    assert stderr == "" and values["SCOREP_TOTAL_MEMORY"] == str(bytes_)


@pytest.mark.parametrize("text, value", [("yes", "true"), ("OFF", "false"), (" 1 ", "true"), ("False", "false")])
def test_booleans_accept_the_usual_spellings(build_dir, text, value):
    values, stderr = effective(build_dir, {"SCOREP_ENABLE_TRACING": text})
    assert stderr == "" and values["SCOREP_ENABLE_TRACING"] == value


@pytest.mark.parametrize("text, value", [(None, "auto"), ("512M", str(512 << 20)), ("unlimited", "unlimited"),
                                         (" 3g ", str(3 << 30))])
def test_tracing_max_size_takes_sizes_and_unlimited(build_dir, text, value):
    values, stderr = effective(build_dir, {} if text is None else {"SCOREP_TRACING_MAX_SIZE": text})
    assert stderr == "" and values["SCOREP_TRACING_MAX_SIZE"] == value


def test_clock_gettime_timer_can_be_selected(build_dir):
    values, _ = effective(build_dir, {"SCOREP_TIMER": "clock_gettime"})
    assert values["SCOREP_TIMER"] == "clock_gettime"


def test_scorep_info_lists_every_variable_the_core_reads_as_the_core_describes_it(build_dir):
    core = [tuple(line.split("\t")) for line in run(build_dir, "test_config", "list").stdout.splitlines()]
    info = subprocess.run([sys.executable, str(REPO / "tools" / "scorep-info"), "config-vars", "--full"],
                          capture_output=True, text=True, check=True).stdout
    listed = []
    for block in info.strip().split("\n\n"):
        name, description, kind, default = block.splitlines()
        field = lambda line, label: line.split(label, 1)[1].strip()
        default = field(default, "Default:")
        listed.append((name, field(kind, "Type:"), "" if default == "(empty)" else default,
                       field(description, "Description:")))
    assert listed == core
    assert {"SCOREP_MPI_ENABLE_GROUPS", "SCOREP_FILTERING_FILE"} <= {row[0] for row in listed}


# the core's hooks for the project's own tests: a user has no use for them
TEST_HOOKS = ["SCOREP_TIMER_TEST_SKEW_NS", "SCOREP_TIMER_TEST_DRIFT_PPM", "SCOREP_TIMER_TEST_OFFSET_ERROR_NS",
              "SCOREP_EXPERIMENT_TEST_LOCK_HOLD_US", "SCOREP_EXPERIMENT_TEST_MARK_HOLD_US",
              "SCOREP_IO_TEST_AIO_LOCK_HOLD_US", "SCOREP_TRACING_TEST_POOL_HOLD_US"]


@pytest.mark.parametrize("full", [[], ["--full"]])
def test_scorep_info_lists_none_of_the_test_hooks(build_dir, full):
    info = subprocess.run([sys.executable, str(REPO / "tools" / "scorep-info"), "config-vars", *full],
                          capture_output=True, text=True, check=True).stdout
    core = run(build_dir, "test_config", "list").stdout
    for listing in (info, core):
        assert "SCOREP_TIMER" in listing
        assert [hook for hook in TEST_HOOKS if hook in listing] == []
        assert re.findall(r"SCOREP_[A-Z]+_TEST_[A-Z_]+", listing) == []


def test_a_set_test_hook_is_no_unknown_variable_and_shows_in_the_effective_configuration(build_dir):
    values, stderr = effective(build_dir, {"SCOREP_EXPERIMENT_TEST_MARK_HOLD_US": "1",
                                           "SCOREP_TIMER_TEST_OFFSET_ERROR_NS": "7"})
    assert stderr == ""
    assert values["SCOREP_EXPERIMENT_TEST_MARK_HOLD_US"] == "1"
    assert values["SCOREP_TIMER_TEST_OFFSET_ERROR_NS"] == "7"
    assert [hook for hook in TEST_HOOKS if hook in effective(build_dir, {})[0]] == []


@pytest.mark.parametrize("variable, meant", [
    ("SCOREP_ENABLE_TRACNG", "SCOREP_ENABLE_TRACING"),
    ("SCOREP_experiment_directory", "SCOREP_EXPERIMENT_DIRECTORY"),
    ("SCOREP_OVERWRITE_EXPERIMENT_DIR", "SCOREP_OVERWRITE_EXPERIMENT_DIRECTORY"),
    ("SCOREP_FILTERING_FILES", "SCOREP_FILTERING_FILE"),
])
def test_misspelled_variable_warns_once_naming_the_nearest_variable(build_dir, variable, meant):
    values, stderr = effective(build_dir, {variable: "true"})
    lines = [line for line in stderr.splitlines() if variable in line]
    assert len(lines) == 1, stderr
    assert f"did you mean {meant}?" in lines[0] and "no effect" in lines[0]
    # and the misspelled one really had no effect
    assert values["SCOREP_ENABLE_TRACING"] == "false"


def test_score_p_variable_of_a_feature_not_implemented_is_reported_as_not_used(build_dir):
    values, stderr = effective(build_dir, {"SCOREP_CUDA_ENABLE": "runtime,kernel"})
    assert stderr.count("SCOREP_CUDA_ENABLE") == 1
    assert "SCOREP_CUDA_ENABLE is not used by this measurement" in stderr and "did you mean" not in stderr


def test_variables_of_the_toolchains_own_tools_are_not_reported(build_dir):
    values, stderr = effective(build_dir, {"SCOREP_WRAPGEN_BUILD": "/x", "SCOREP_VIEW_SPEEDSCOPE": "/y",
                                           "SCOREP_ENABLE_TRACING": "true"})
    assert stderr == ""
