"""Score-P filter files: accepted syntax, rejected files with line numbers,
and filtered regions disappearing from a measurement."""
import subprocess
import textwrap

import pytest

from runtime_programs import Profile, load_profile, run

# the root of the call tree: the program region, named after the executable
PROGRAM = "test_experiment"


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
    assert [profile.path(r["callpath"]) for r in profile.data["rows"]] == [PROGRAM, f"{PROGRAM}/main"]
    step = next(r for r in profile.data["regions"] if r["name"] == "step")
    assert step["filtered"] is True
    # the message events of the filtered visits go to the enclosing region
    assert profile.row(f"{PROGRAM}/main")["bytes_sent"] == 5 * 64


def test_malformed_filter_file_in_a_measurement_warns_and_measures_everything(build_dir, tmp_path):
    filt = tmp_path / "filter.txt"
    filt.write_text("SCOREP_REGION_NAMES_BEGIN\n EXCLUDE step\n")
    directory = tmp_path / "experiment"
    proc = run(build_dir, "test_experiment", "normal",
               env={"SCOREP_EXPERIMENT_DIRECTORY": str(directory), "SCOREP_FILTERING_FILE": str(filt)})
    assert "SCOREP_FILTERING_FILE" in proc.stderr and "line 1" in proc.stderr
    profile = Profile(load_profile(directory / "profile.json"))
    assert profile.row(f"{PROGRAM}/main/step")["visits"] == 5


# ---- scorep-filter: the same filter at library-wrapping generation time ----

def scorep_filter(build_dir, *args, stdin=""):
    tool = build_dir / "runtime" / "scorep-filter"
    assert tool.exists(), f"{tool} missing: build with 'ninja -C {build_dir}'"
    return subprocess.run([str(tool), *map(str, args)], input=stdin, capture_output=True, text=True,
                          timeout=60)


LIBRARY_FILTER = """\
SCOREP_REGION_NAMES_BEGIN
  EXCLUDE lw_*
  INCLUDE lw_work
  EXCLUDE MANGLED _ZN2ns5named*
SCOREP_REGION_NAMES_END
SCOREP_FILE_NAMES_BEGIN
  EXCLUDE */internal/*
SCOREP_FILE_NAMES_END
"""


def test_scorep_filter_marks_each_function_by_name_file_and_mangled_symbol(build_dir, tmp_path):
    path = tmp_path / "filter.txt"
    path.write_text(LIBRARY_FILTER)
    lines = ["lw_work\t/opt/lwtest/include/lwtest.h\tlw_work",
             "lw_apply\t/opt/lwtest/include/lwtest.h\tlw_apply",
             "ns::named(int)\t/opt/lwtest/include/lwtest_named.h\t_ZN2ns5namedEi",
             "_ZN2ns5namedEi\t\t",                    # no file, no symbol: MANGLED rules see the name
             "deflate\t/usr/include/internal/zlib.h\tdeflate",
             "inflate\t/usr/include/zlib.h",         # no symbol: MANGLED rules see the name
             "lw_only_name"]
    proc = scorep_filter(build_dir, path, stdin="".join(line + "\n" for line in lines))
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert proc.stdout.splitlines() == [
        "+lw_work\t/opt/lwtest/include/lwtest.h\tlw_work",
        "-lw_apply\t/opt/lwtest/include/lwtest.h\tlw_apply",
        "-ns::named(int)\t/opt/lwtest/include/lwtest_named.h\t_ZN2ns5namedEi",
        "-_ZN2ns5namedEi\t\t",
        "-deflate\t/usr/include/internal/zlib.h\tdeflate",
        "+inflate\t/usr/include/zlib.h",
        "-lw_only_name"]


def test_scorep_filter_agrees_with_the_measurement(build_dir, tmp_path):
    """The verdicts at generation time are the ones the runtime applies to the same functions."""
    path = tmp_path / "filter.txt"
    path.write_text(LIBRARY_FILTER)
    directory = tmp_path / "experiment"
    run(build_dir, "test_libwrap", "calls", 10,
        env={"SCOREP_EXPERIMENT_DIRECTORY": str(directory), "SCOREP_FILTERING_FILE": str(path)})
    regions = [r for r in load_profile(directory / "profile.json")["regions"] if r["paradigm"] == "libwrap"]
    symbols = {"ns::named(int)": "_ZN2ns5namedEi"}
    stdin = "".join(f'{r["name"]}\t{r["file"]}\t{symbols.get(r["name"], r["name"])}\n' for r in regions)
    proc = scorep_filter(build_dir, path, stdin=stdin)
    assert proc.returncode == 0, proc.stderr
    tool = {line[1:].split("\t")[0]: line[0] == "-" for line in proc.stdout.splitlines()}
    runtime = {r["name"]: r["filtered"] for r in regions}
    assert tool == runtime
    assert sorted(name for name, excluded in runtime.items() if excluded) == [
        "lw_apply", "lw_inner", "ns::named(int)"]


def test_scorep_filter_check_accepts_a_good_file_silently(build_dir, tmp_path):
    path = tmp_path / "filter.txt"
    path.write_text(LIBRARY_FILTER)
    proc = scorep_filter(build_dir, "--check", path, stdin="not read\tat\tall\textra\n")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")


@pytest.mark.parametrize("text", [
    "SCOREP_REGION_NAMES_BEGIN\n  foo\nSCOREP_REGION_NAMES_END\n",
    "\n\nEXCLUDE foo\n",
    "SCOREP_REGION_NAMES_BEGIN\n EXCLUDE foo\n",
    "SCOREP_FILE_NAMES_BEGIN\n EXCLUDE MANGLED x\nSCOREP_FILE_NAMES_END\n",
])
@pytest.mark.parametrize("check_only", [True, False], ids=["check", "filter"])
def test_scorep_filter_rejects_a_bad_file_with_the_measurements_message(build_dir, tmp_path, text, check_only):
    path = tmp_path / "filter.txt"
    path.write_text(text)
    parser_error = run(build_dir, "test_filter_parse", path, check=False).stdout
    assert parser_error.startswith("error: line ")
    proc = scorep_filter(build_dir, *(["--check"] if check_only else []), path, stdin="foo\n")
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == f"scorep-filter: {path}: {parser_error[len('error: '):]}"


def test_scorep_filter_names_a_file_it_cannot_open(build_dir, tmp_path):
    proc = scorep_filter(build_dir, tmp_path / "missing.txt", stdin="foo\n")
    assert proc.returncode == 1
    assert proc.stderr == f"scorep-filter: {tmp_path / 'missing.txt'}: cannot open the file\n"


def test_scorep_filter_rejects_an_input_line_with_too_many_fields(build_dir, tmp_path):
    path = tmp_path / "filter.txt"
    path.write_text(LIBRARY_FILTER)
    proc = scorep_filter(build_dir, path, stdin="lw_work\t\t\nlw_work\ta.h\tlw_work\tfourth\n")
    assert proc.returncode == 1
    assert proc.stdout == "+lw_work\t\t\n"
    assert proc.stderr.startswith("scorep-filter: <stdin>: line 2: more than 3 fields"), proc.stderr


@pytest.mark.parametrize("args", [[], ["--check"], ["--bogus", "f"], ["a", "b"]])
def test_scorep_filter_usage_errors_exit_2(build_dir, args):
    proc = scorep_filter(build_dir, *args)
    assert proc.returncode == 2 and "usage: scorep-filter" in proc.stderr


# ---- misspelled keywords and binary garbage ----

KEYWORDS_EXPECTED = "expected INCLUDE, EXCLUDE, INCLUDE MANGLED, EXCLUDE MANGLED"


@pytest.mark.parametrize("text, line, word, meant", [
    ("SCOREP_REGION_NAMES_BEGIN\n EXCLUDE *\n INCLUDEE reduce\nSCOREP_REGION_NAMES_END\n", 3, "INCLUDEE", "INCLUDE"),
    # after the first rule, on the same line as patterns
    ("SCOREP_REGION_NAMES_BEGIN\n EXCLUDE * INLCUDE deflate*\nSCOREP_REGION_NAMES_END\n", 2, "INLCUDE", "INCLUDE"),
    ("SCOREP_REGION_NAMES_BEGIN\n EXCLUDE MANGLD _Z3foov\nSCOREP_REGION_NAMES_END\n", 2, "MANGLD", "MANGLED"),
    ("SCOREP_REGION_NAMES_BEGIN\n EXCLUDE *\n include main\nSCOREP_REGION_NAMES_END\n", 3, "include", "INCLUDE"),
    ("SCOREP_FILE_NAMES_BEGIN\n EXCLUDE *.c\nSCOREP_FILE_NAME_END\n", 3, "SCOREP_FILE_NAME_END",
     "SCOREP_FILE_NAMES_END"),
])
def test_misspelled_keyword_is_an_error_naming_line_and_keywords(build_dir, tmp_path, text, line, word, meant):
    proc = check(build_dir, tmp_path, text, check=False)
    assert proc.returncode == 1
    assert proc.stdout.startswith(f"error: line {line}: '{word}' is not a keyword: did you mean {meant}?"), proc.stdout
    assert KEYWORDS_EXPECTED in proc.stdout
    # the same words in a measurement: a warning naming the file, nothing filtered
    path = tmp_path / "filter.txt"
    measured = run(build_dir, "test_experiment", "normal",
                   env={"SCOREP_EXPERIMENT_DIRECTORY": str(tmp_path / "e"), "SCOREP_FILTERING_FILE": str(path)})
    assert f"'{path}': line {line}: '{word}' is not a keyword" in measured.stderr


def test_misspelled_begin_keyword_outside_a_block_suggests_the_keyword(build_dir, tmp_path):
    proc = check(build_dir, tmp_path, "SCOREP_REGION_NAME_BEGIN\n EXCLUDE foo\nSCOREP_REGION_NAMES_END\n",
                 check=False)
    assert proc.stdout.startswith("error: line 1: unexpected 'SCOREP_REGION_NAME_BEGIN' outside a block")
    assert "did you mean SCOREP_REGION_NAMES_BEGIN?" in proc.stdout


def test_names_that_only_resemble_keywords_stay_patterns(build_dir, tmp_path):
    # lower-case words other than a keyword, names with digits or wildcards, escaped keywords
    proc = check(build_dir, tmp_path, r"""
        SCOREP_REGION_NAMES_BEGIN
          EXCLUDE includes exclude_all MPI_SEND INCLUDE2 INCLUD* \INCLUDEE
        SCOREP_REGION_NAMES_END
        """, "includes", "exclude_all", "MPI_SEND", "INCLUDE2", "INCLUDX", "INCLUDEE", "main")
    assert verdicts(proc) == {"includes": "excluded", "exclude_all": "excluded", "MPI_SEND": "excluded",
                              "INCLUDE2": "excluded", "INCLUDX": "excluded", "INCLUDEE": "excluded",
                              "main": "included"}


@pytest.mark.parametrize("garbage, line", [
    (b"SCOREP_REGION_NAMES_BEGIN\n\xff\xfe\x1b[2J\x07junk\nSCOREP_REGION_NAMES_END\n", 2),
    (b"\x1b]0;title\x07\x9b31m\n", 1),
    (b"SCOREP_REGION_NAMES_BEGIN\n EXCLUDE a\n\x00\x1b[2J\n", 3),
])
def test_binary_garbage_in_a_filter_is_not_echoed_raw(build_dir, tmp_path, garbage, line):
    path = tmp_path / "filter.txt"
    path.write_bytes(garbage)
    for proc in (run(build_dir, "test_filter_parse", path, check=False),
                 scorep_filter(build_dir, "--check", path),
                 run(build_dir, "test_experiment", "normal",
                     env={"SCOREP_EXPERIMENT_DIRECTORY": str(tmp_path / "e"), "SCOREP_FILTERING_FILE": str(path)})):
        message = proc.stdout if proc.stdout.startswith("error:") else proc.stderr
        assert f"line {line}: " in message, message
        printable = message.replace("\n", "")
        assert printable.isprintable() and printable.isascii(), repr(message)
        assert "\\x1b" in message or "NUL byte" in message, message
