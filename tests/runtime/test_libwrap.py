"""The core's support for generated library wrappers (scorep_wrapgen/libwrap.h),
through wrappers written by hand in the generator's shape: test_libwrap
(link-time, --wrap), test_libwrap_runtime / test_libwrap_dlopen (run-time,
a wrapper library resolving the real functions), test_libwrap_cxx (C++)."""
import textwrap

import pytest

from runtime_programs import Profile, load_profile, run

N = 1000


def measure(build_dir, tmp_path, name, *args, env=None, filter_text=None):
    directory = tmp_path / "experiment"
    environment = {"SCOREP_EXPERIMENT_DIRECTORY": str(directory)}
    if filter_text is not None:
        path = tmp_path / "filter.txt"
        path.write_text(textwrap.dedent(filter_text))
        environment["SCOREP_FILTERING_FILE"] = str(path)
    environment.update(env or {})
    proc = run(build_dir, name, *args, env=environment)
    profile = Profile(load_profile(directory / "profile.json"))
    profile.program = name
    return proc, profile


def visits(profile):
    """{call path: visits} over all locations, the main thread's paths below
    the program region (named after the executable, its tree's one root,
    visited once), the other threads' below the program region's THREADS
    (neither visited on their locations)."""
    out = {}
    program = profile.program
    assert [program] == [profile.path(c["id"]) for c in profile.data["callpaths"] if c["parent"] is None]
    for row in profile.data["rows"]:
        path = profile.path(row["callpath"])
        if path in (program, program + "/THREADS"):
            assert row["visits"] == (path == program and row["location"] == 0)
            continue
        if path.startswith(program + "/THREADS/"):
            assert row["location"] != 0
            path = path[len(program + "/THREADS/"):]
        else:
            assert row["location"] == 0
            path = path[len(program) + 1:]
        out[path] = out.get(path, 0) + row["visits"]
    return out


def region(profile, name):
    matches = [r for r in profile.data["regions"] if r["name"] == name]
    assert len(matches) == 1, matches
    return matches[0]


def states(proc):
    """{region name: 'recorded' | 'filtered'} from the program's 'region' lines."""
    return dict(line[len("region "):].rsplit(": ", 1) for line in proc.stdout.splitlines()
                if line.startswith("region "))


def test_each_wrapped_call_is_one_visit_and_nested_calls_count_once(build_dir, tmp_path):
    proc, profile = measure(build_dir, tmp_path, "test_libwrap", "calls", N)
    assert "checksum ok" in proc.stdout and "depth 0" in proc.stdout, proc.stdout
    # lw_inner runs inside lw_apply only: not recorded; the calls made with
    # event generation off (as inside MPI) are not recorded either
    assert visits(profile) == {"lw_work": N, "lw_apply": N, "ns::named(int)": N}
    assert set(states(proc).values()) == {"recorded"}


def test_nested_library_calls_are_nested_regions_with_libwrap_nested(build_dir, tmp_path):
    proc, profile = measure(build_dir, tmp_path, "test_libwrap", "calls", N,
                            env={"SCOREP_LIBWRAP_NESTED": "true"})
    assert "checksum ok" in proc.stdout and "depth 0" in proc.stdout, proc.stdout
    assert visits(profile) == {"lw_work": N, "lw_apply": N, "lw_apply/lw_inner": N, "ns::named(int)": N}


def test_library_regions_have_paradigm_libwrap_and_the_wrapper_name_as_group(build_dir, tmp_path):
    _, profile = measure(build_dir, tmp_path, "test_libwrap", "calls", 3)
    work = region(profile, "lw_work")
    assert (work["paradigm"], work["group"], work["role"]) == ("libwrap", "lwtest", "function")
    assert work["file"] == "/opt/lwtest/include/lwtest.h"
    named = region(profile, "ns::named(int)")
    assert (named["paradigm"], named["group"], named["file"]) == (
        "libwrap", "lwtest", "/opt/lwtest/include/lwtest_named.h")


@pytest.mark.parametrize("filter_text, excluded", [
    ("SCOREP_REGION_NAMES_BEGIN EXCLUDE lw_work SCOREP_REGION_NAMES_END", "lw_work"),
    ("SCOREP_REGION_NAMES_BEGIN EXCLUDE ns::named* SCOREP_REGION_NAMES_END", "ns::named(int)"),
    ("SCOREP_FILE_NAMES_BEGIN EXCLUDE */lwtest_named.h SCOREP_FILE_NAMES_END", "ns::named(int)"),
    ("SCOREP_REGION_NAMES_BEGIN EXCLUDE MANGLED _ZN2ns5named* SCOREP_REGION_NAMES_END", "ns::named(int)"),
    # a C function's symbol is its name
    ("SCOREP_REGION_NAMES_BEGIN EXCLUDE MANGLED lw_work SCOREP_REGION_NAMES_END", "lw_work"),
], ids=["name", "demangled-name", "file", "mangled-symbol", "mangled-c-name"])
def test_excluded_function_records_nothing_and_still_returns_its_result(build_dir, tmp_path, filter_text,
                                                                         excluded):
    proc, profile = measure(build_dir, tmp_path, "test_libwrap", "calls", N, filter_text=filter_text)
    assert "checksum ok" in proc.stdout and "depth 0" in proc.stdout, proc.stdout
    expected = {"lw_work": N, "lw_apply": N, "ns::named(int)": N}
    del expected[excluded]
    assert visits(profile) == expected
    assert states(proc)[excluded] == "filtered"
    assert [r["name"] for r in profile.data["regions"] if r["filtered"]] == [excluded]


def test_plain_region_rules_do_not_match_the_mangled_symbol(build_dir, tmp_path):
    # without MANGLED the rule sees the region name "ns::named(int)", not _ZN2ns5namedEi
    proc, profile = measure(build_dir, tmp_path, "test_libwrap", "calls", N, filter_text="""
        SCOREP_REGION_NAMES_BEGIN
          EXCLUDE _ZN2ns5named*
        SCOREP_REGION_NAMES_END
        """)
    assert states(proc)["ns::named(int)"] == "recorded"
    assert visits(profile)["ns::named(int)"] == N


def test_calls_inside_an_excluded_library_call_are_recorded_at_top_level(build_dir, tmp_path):
    # an excluded function is as if it were not wrapped: the wrapped function it calls is not nested
    proc, profile = measure(build_dir, tmp_path, "test_libwrap", "calls", N,
                            filter_text="SCOREP_REGION_NAMES_BEGIN EXCLUDE lw_apply SCOREP_REGION_NAMES_END")
    assert "checksum ok" in proc.stdout
    assert visits(profile) == {"lw_work": N, "lw_inner": N, "ns::named(int)": N}


def test_eight_threads_with_100000_calls_each_give_exactly_800000_visits(build_dir, tmp_path):
    proc, profile = measure(build_dir, tmp_path, "test_libwrap", "threads", 8, 100000)
    assert "race ids equal" in proc.stdout and "checksum ok" in proc.stdout, proc.stdout
    # threads raced on the first call: still one region
    assert len([r for r in profile.data["regions"] if r["name"] == "lw_work"]) == 1
    # the thread whose first call started the measurement (location 0) has
    # it below the program region
    rows = profile.rows("test_libwrap/THREADS/lw_work") + profile.rows("test_libwrap/lw_work")
    assert [r["location"] for r in profile.rows("test_libwrap/lw_work")] == [0]
    assert sorted(r["location"] for r in rows) == list(range(8))
    assert [r["visits"] for r in rows] == [100000] * 8
    assert sum(r["visits"] for r in rows) == 800000


def test_run_time_wrapper_finds_the_next_definition_after_itself(build_dir, tmp_path):
    proc, profile = measure(build_dir, tmp_path, "test_libwrap_runtime", "calls", N)
    assert "target loaded before: yes" in proc.stdout and "checksum ok" in proc.stdout, proc.stdout
    # lwrt_mul's wrapper names no library: RTLD_NEXT alone found it
    assert visits(profile) == {"lwrt_add": N, "lwrt_sub": N, "lwrt_mul": N}
    add = region(profile, "lwrt_add")
    assert (add["paradigm"], add["group"]) == ("libwrap", "lwrt")


def test_run_time_wrapper_opens_the_target_library_by_its_soname(build_dir, tmp_path):
    # the program links only the wrapper; the wrapper loads the library itself
    proc, profile = measure(build_dir, tmp_path, "test_libwrap_dlopen", "calls", N,
                            env={"LD_LIBRARY_PATH": str(build_dir / "runtime" / "tests")})
    assert "target loaded before: no" in proc.stdout, proc.stdout
    assert "target loaded after: yes" in proc.stdout and "checksum ok" in proc.stdout, proc.stdout
    assert visits(profile) == {"lwrt_add": N, "lwrt_sub": N}


def test_threads_racing_on_the_first_run_time_call_all_get_the_library_function(build_dir, tmp_path):
    proc, profile = measure(build_dir, tmp_path, "test_libwrap_runtime", "threads", 8, 10000)
    assert "checksum ok" in proc.stdout
    assert visits(profile) == {"lwrt_add": 80000, "lwrt_sub": 80000}


def test_unresolvable_function_stops_the_program_with_an_error_naming_wrapper_symbol_and_libraries(
        build_dir, tmp_path):
    proc = run(build_dir, "test_libwrap_runtime", "missing", check=False,
               env={"SCOREP_EXPERIMENT_DIRECTORY": str(tmp_path / "experiment")})
    assert proc.returncode != 0
    assert "returned" not in proc.stdout
    errors = [line for line in proc.stderr.splitlines() if "Error" in line]
    assert len(errors) == 1, proc.stderr
    error = errors[0]
    assert error.startswith("[Score-P] Error: library wrapper 'run-time test library' (lwrt): "), error
    assert "cannot find the function 'lwrt_missing'" in error
    # the loaded target library was searched; the other could not be opened, and dlerror says why
    assert "not in libtest_libwrap_rt_lib.so (" in error and "undefined symbol: lwrt_missing" in error
    assert "cannot open libscorep_no_such_library.so.7 (" in error
    assert "No such file or directory" in error


def test_cxx_function_is_filtered_by_its_mangled_name(build_dir, tmp_path):
    if not (build_dir / "runtime" / "tests" / "test_libwrap_cxx").exists():
        pytest.skip("built without a C++ compiler")
    proc, profile = measure(build_dir, tmp_path, "test_libwrap_cxx", N)
    assert "checksum ok" in proc.stdout
    assert visits(profile) == {"ns::twice(int)": N}
    assert region(profile, "ns::twice(int)")["group"] == "lwcxx"
    (tmp_path / "experiment").rename(tmp_path / "unfiltered")
    proc, profile = measure(build_dir, tmp_path, "test_libwrap_cxx", N, filter_text="""
        SCOREP_REGION_NAMES_BEGIN
          EXCLUDE MANGLED _ZN2ns5twice*
        SCOREP_REGION_NAMES_END
        """)
    assert "checksum ok" in proc.stdout
    assert visits(profile) == {}
    assert region(profile, "ns::twice(int)")["filtered"] is True

