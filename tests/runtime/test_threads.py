"""Locations: one per live thread, lock-free event path, late and early threads,
locations of ended threads handed on to new ones. The main thread, which starts
the measurement, is location 0 with the program region (named after the
executable) as its tree; the threads' trees stand under the program
region's artificial THREADS on their own locations, Score-P's place for
them."""
import json

from runtime_programs import Profile, load_profile, run

PROGRAM = "test_threads"
THREAD = f"{PROGRAM}/THREADS/thread"   # a thread's tree (its root region "thread")


def main_thread_holds_only_the_program_region(profile):
    main = profile.data["locations"][0]
    assert (main["rank"], main["thread"]) == (0, 0)
    assert [profile.path(r["callpath"]) for r in profile.rows(location=main["id"])] == [PROGRAM]
    assert profile.row(PROGRAM, main["id"])["visits"] == 1
    return [loc for loc in profile.data["locations"] if loc["id"] != main["id"]]


def test_eight_threads_with_a_million_pairs_each_give_exactly_eight_million_visits(build_dir, tmp_path):
    directory = tmp_path / "experiment"
    proc = run(build_dir, "test_threads", 8, 1000000, "overlap",
               env={"SCOREP_EXPERIMENT_DIRECTORY": str(directory)})
    assert "total visits: 8000000" in proc.stdout, proc.stdout
    profile = Profile(load_profile(directory / "profile.json"))
    assert len(profile.data["locations"]) == 9
    workers = main_thread_holds_only_the_program_region(profile)
    work_rows = profile.rows(f"{THREAD}/work")
    assert sorted(r["location"] for r in work_rows) == list(range(1, 9))
    assert all(r["visits"] == 1000000 for r in work_rows)
    assert sum(r["visits"] for r in work_rows) == 8000000
    # enter+exit of work, of thread and of the thread's private region
    assert all(loc["events"] == 2 * 1000000 + 4 for loc in workers)


def test_regions_defined_concurrently_by_threads_stay_distinct(build_dir, tmp_path):
    directory = tmp_path / "experiment"
    run(build_dir, "test_threads", 8, 100, "overlap", env={"SCOREP_EXPERIMENT_DIRECTORY": str(directory)})
    profile = Profile(load_profile(directory / "profile.json"))
    names = [r["name"] for r in profile.data["regions"]]
    assert sorted(n for n in names if n.startswith("private-")) == [f"private-{i}" for i in range(8)]
    seen = set()
    for loc in main_thread_holds_only_the_program_region(profile):
        own = [profile.path(r["callpath"]) for r in profile.rows(location=loc["id"])
               if "private-" in profile.path(r["callpath"])]
        assert len(own) == 1 and own[0].startswith(f"{THREAD}/private-")
        seen.add(own[0])
    assert len(seen) == 8


def test_threads_that_end_before_others_start_keep_their_data(build_dir, tmp_path):
    # 2 ms stagger, few pairs: the first threads are usually gone before the
    # last start, and a new thread takes the location of one that ended (how
    # many depends on the scheduler; tests/trace/test_short_lived_threads.py
    # checks the reuse exactly)
    directory = tmp_path / "experiment"
    proc = run(build_dir, "test_threads", 6, 10, env={"SCOREP_EXPERIMENT_DIRECTORY": str(directory)})
    assert "total visits: 60" in proc.stdout, proc.stdout
    data = json.loads((directory / "profile.json").read_text())
    profile = Profile(data)
    assert 2 <= len(data["locations"]) <= 7
    workers = main_thread_holds_only_the_program_region(profile)
    rows = profile.rows(f"{THREAD}/work")
    assert len(rows) == len(workers)
    assert all(r["visits"] % 10 == 0 for r in rows)
    assert sum(r["visits"] for r in rows) == 60
    assert sum(r["visits"] for r in profile.rows(THREAD)) == 6
