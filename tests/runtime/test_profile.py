"""Profile substrate: exact numbers for a synthetic event stream (injected
clock, 1 tick = 1 ns), and the three profile files written from them. The
program region (named after the executable) is the root, main below it."""
import pytest

from runtime_programs import Profile, load_profile, run


@pytest.fixture(scope="module")
def exact_experiment(build_dir, tmp_path_factory):
    directory = tmp_path_factory.mktemp("exact") / "experiment"
    proc = run(build_dir, "test_profile_exact", env={"SCOREP_EXPERIMENT_DIRECTORY": str(directory)})
    assert "ok" in proc.stdout, proc.stdout
    return directory


@pytest.fixture(scope="module")
def profile(exact_experiment):
    return Profile(load_profile(exact_experiment / "profile.json"))


PROGRAM = "test_profile_exact"


def test_call_path_tree_numbers_are_exact_in_memory(build_dir, tmp_path):
    proc = run(build_dir, "test_profile_exact", env={"SCOREP_EXPERIMENT_DIRECTORY": str(tmp_path / "e")})
    assert "FAIL" not in proc.stdout
    assert proc.stdout.strip().endswith("ok")


@pytest.mark.parametrize("path, visits, incl, excl, tmin, tmax", [
    (PROGRAM, 1, 300, 100, 300, 300),   # from the start (0) to the end (300)
    (f"{PROGRAM}/main", 1, 200, 125, 200, 200),
    (f"{PROGRAM}/main/foo", 2, 50, 34, 20, 30),
    (f"{PROGRAM}/main/foo/bar", 1, 10, 10, 10, 10),
    (f"{PROGRAM}/main/foo/MPI_Send", 1, 6, 6, 6, 6),
    (f"{PROGRAM}/main/baz", 2, 25, 2, 5, 20),
    (f"{PROGRAM}/main/baz/n=3", 1, 19, 11, 19, 19),
    (f"{PROGRAM}/main/baz/n=3/qux", 1, 8, 8, 8, 8),
    (f"{PROGRAM}/main/baz/n=4", 1, 4, 4, 4, 4),
])
def test_profile_json_has_exact_visits_and_times(profile, path, visits, incl, excl, tmin, tmax):
    row = profile.row(path)
    assert (row["visits"], row["time_incl_ns"], row["time_excl_ns"]) == (visits, incl, excl)
    assert (row["time_min_ns"], row["time_max_ns"]) == (tmin, tmax)


def test_message_bytes_and_counts_go_to_the_enclosing_call_path(profile):
    send = profile.row(f"{PROGRAM}/main/foo/MPI_Send")
    assert (send["bytes_sent"], send["messages_sent"], send["bytes_received"]) == (100, 1, 0)
    assert profile.row(f"{PROGRAM}/main/foo")["bytes_sent"] == 0


def test_user_metric_is_summed_on_its_call_path(profile):
    metrics = {m["name"]: m["id"] for m in profile.data["metrics"]}
    row = profile.row(f"{PROGRAM}/main/foo")
    assert row["metrics"] == {str(metrics["flops"]): 7}


def test_parameter_nodes_are_children_of_the_parameterised_region(profile):
    nodes = [c for c in profile.data["callpaths"] if "parameter" in c]
    assert sorted(c["parameter"]["value"] for c in nodes) == [3, 4]
    for c in nodes:
        parent = profile.callpaths[c["parent"]]
        assert profile.regions[parent["region"]]["name"] == "baz"
        assert c["region"] == parent["region"]


def test_profile_json_follows_the_documented_schema(profile):
    d = profile.data
    assert d["format"] == "scorep-wrapgen-profile" and d["version"] == 1
    assert d["experiment"]["ranks"] == 1 and d["experiment"]["timer"] == "injected"
    assert d["locations"] == [{"id": 0, "rank": 0, "thread": 0, "events": d["locations"][0]["events"]}]
    send = next(r for r in d["regions"] if r["name"] == "MPI_Send")
    assert (send["paradigm"], send["group"], send["role"], send["file"]) == ("mpi", "P2P", "point2point", None)
    main = next(r for r in d["regions"] if r["name"] == "main")
    assert (main["paradigm"], main["file"], main["line"], main["end_line"]) == ("user", "main.c", None, None)
    assert main["canonical_name"] == "main"
    # the program region: Score-P's (measurement, artificial, no file), the only root
    program = next(r for r in d["regions"] if r["name"] == PROGRAM)
    assert (program["paradigm"], program["role"], program["file"], program["line"]) == \
        ("measurement", "artificial", None, None)
    assert program["canonical_name"].endswith("/" + PROGRAM)
    roots = [c for c in d["callpaths"] if c["parent"] is None]
    assert [d["regions"][c["region"]]["name"] for c in roots] == [PROGRAM]
    # scorep_region_define_at: the line is part of the identity, unknown (0) is null
    assert sorted((r["line"] or 0) for r in d["regions"] if r["name"] == "lined") == [0, 10, 11]
    for row in d["rows"]:
        for key in ("location", "callpath", "visits", "time_incl_ns", "time_excl_ns", "bytes_sent",
                    "bytes_received", "messages_sent", "messages_received"):
            assert isinstance(row[key], int), key


def test_folded_stacks_hold_exclusive_time_per_call_path(exact_experiment):
    lines = (exact_experiment / "profile.folded").read_text().splitlines()
    folded = dict(line.rsplit(" ", 1) for line in lines)
    # the program region: entered at 0, left at the end (300), main from 0 to 200
    assert folded == {PROGRAM: "100", **{f"{PROGRAM};{path}": excl for path, excl in {
        "main": "125", "main;foo": "34", "main;foo;bar": "10", "main;foo;MPI_Send": "6", "main;baz": "2",
        "main;baz;n=3": "11", "main;baz;n=3;qux": "8", "main;baz;n=4": "4"}.items()}}


def test_text_report_lists_call_paths_mpi_groups_and_imbalance(exact_experiment):
    text = (exact_experiment / "profile.txt").read_text()
    assert "Top call paths by inclusive time" in text
    assert f"{PROGRAM} > main > foo > MPI_Send" in text
    assert "MPI summary by function group" in text
    p2p = next(line for line in text.splitlines() if line.startswith("P2P"))
    assert p2p.split()[1] == "1" and p2p.split()[3] == "100"
    assert "Per-rank imbalance" in text
