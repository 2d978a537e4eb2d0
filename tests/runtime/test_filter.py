"""Score-P filter files: accepted syntax, rejected files with line numbers,
and filtered regions disappearing from a measurement."""
import textwrap

import pytest

from runtime_programs import Profile, load_profile, run


def check(build_dir, tmp_path, text, *names, check=True):
    path = tmp_path / "filter.txt"
    path.write_text(textwrap.dedent(text))
    return run(build_dir, "test_filter_parse", path, *names, check=check)


def verdicts(proc):
    return dict(line.rsplit(" ", 1) for line in proc.stdout.splitlines())


def test_exclude_all_then_include_some_uses_the_last_matching_rule(build_dir, tmp_path):
    proc = check(build_dir, tmp_path, """
        SCOREP_REGION_NAMES_BEGIN
          EXCLUDE *
          INCLUDE main foo*
                  MPI_?end   # continuation lines belong to the last rule
        SCOREP_REGION_NAMES_END
        """, "main", "foobar", "bar", "MPI_Send", "MPI_Recv")
    assert verdicts(proc) == {"main": "included", "foobar": "included", "bar": "excluded",
                              "MPI_Send": "included", "MPI_Recv": "excluded"}


def test_mangled_keyword_and_bracket_wildcards_are_accepted(build_dir, tmp_path):
    proc = check(build_dir, tmp_path, """
        # comment line
        SCOREP_REGION_NAMES_BEGIN EXCLUDE MANGLED _Z3ba[rz]v SCOREP_REGION_NAMES_END
        """, "_Z3barv", "_Z3bazv", "_Z3foov")
    assert verdicts(proc) == {"_Z3barv": "excluded", "_Z3bazv": "excluded", "_Z3foov": "included"}


def test_file_names_block_excludes_regions_by_source_file(build_dir, tmp_path):
    proc = check(build_dir, tmp_path, """
        SCOREP_FILE_NAMES_BEGIN
          EXCLUDE */include/*
          INCLUDE */include/keep.h
        SCOREP_FILE_NAMES_END
        """, "f@/usr/include/stdio.h", "g@/usr/include/keep.h", "h@/src/main.c", "nofile")
    assert verdicts(proc) == {"f@/usr/include/stdio.h": "excluded", "g@/usr/include/keep.h": "included",
                              "h@/src/main.c": "included", "nofile": "included"}


def test_escaped_characters_match_literally(build_dir, tmp_path):
    proc = check(build_dir, tmp_path, r"""
        SCOREP_REGION_NAMES_BEGIN
          EXCLUDE operator\* a\#b
        SCOREP_REGION_NAMES_END
        """, "operator*", "operator+", "a#b")
    assert verdicts(proc) == {"operator*": "excluded", "operator+": "included", "a#b": "excluded"}


@pytest.mark.parametrize("text, line, message", [
    ("SCOREP_REGION_NAMES_BEGIN\n  foo\nSCOREP_REGION_NAMES_END\n", 2, "before INCLUDE or EXCLUDE"),
    ("\n\nEXCLUDE foo\n", 3, "outside a block"),
    ("SCOREP_REGION_NAMES_BEGIN\n EXCLUDE foo\n", 1, "not closed"),
    ("SCOREP_REGION_NAMES_BEGIN\n EXCLUDE foo\nSCOREP_FILE_NAMES_END\n", 3, "inside the block opened on line 1"),
    ("SCOREP_FILE_NAMES_BEGIN\n EXCLUDE MANGLED x\nSCOREP_FILE_NAMES_END\n", 2, "MANGLED is only allowed"),
    ("SCOREP_REGION_NAMES_BEGIN\n INCLUDE a\n MANGLED b\nSCOREP_REGION_NAMES_END\n", 3, "MANGLED must follow"),
    ("SCOREP_REGION_NAMES_END\n", 1, "outside a block"),
])
def test_malformed_filter_file_is_rejected_with_its_line_number(build_dir, tmp_path, text, line, message):
    proc = check(build_dir, tmp_path, text, check=False)
    assert proc.returncode == 1
    assert proc.stdout.startswith(f"error: line {line}: "), proc.stdout
    assert message in proc.stdout


def test_filtered_region_records_nothing_in_a_measurement(build_dir, tmp_path):
    filt = tmp_path / "filter.txt"
    filt.write_text("SCOREP_REGION_NAMES_BEGIN\n EXCLUDE step\nSCOREP_REGION_NAMES_END\n")
    directory = tmp_path / "experiment"
    run(build_dir, "test_experiment", "normal",
        env={"SCOREP_EXPERIMENT_DIRECTORY": str(directory), "SCOREP_FILTERING_FILE": str(filt)})
    profile = Profile(load_profile(directory / "profile.json"))
    assert [profile.path(r["callpath"]) for r in profile.data["rows"]] == ["main"]
    step = next(r for r in profile.data["regions"] if r["name"] == "step")
    assert step["filtered"] is True
    # the message events of the filtered visits go to the enclosing region
    assert profile.row("main")["bytes_sent"] == 5 * 64


def test_malformed_filter_file_in_a_measurement_warns_and_measures_everything(build_dir, tmp_path):
    filt = tmp_path / "filter.txt"
    filt.write_text("SCOREP_REGION_NAMES_BEGIN\n EXCLUDE step\n")
    directory = tmp_path / "experiment"
    proc = run(build_dir, "test_experiment", "normal",
               env={"SCOREP_EXPERIMENT_DIRECTORY": str(directory), "SCOREP_FILTERING_FILE": str(filt)})
    assert "SCOREP_FILTERING_FILE" in proc.stderr and "line 1" in proc.stderr
    profile = Profile(load_profile(directory / "profile.json"))
    assert profile.row("main/step")["visits"] == 5
