"""profile.txt's call tree: the whole call-path tree, indented by depth, with
inclusive/exclusive time and visits, checked against test_profile_exact,
whose tree and times are known (injected clock, 1 tick = 1 ns)."""
import re

import pytest

from runtime_programs import run

HEADER = "Call tree (summed over all locations; children by inclusive time)"
LINE = re.compile(r"^\s*(\d+\.\d{3})\s+(\d+\.\d{3})\s+(\d+)  ( *)(\S.*)$")


def call_tree(text):
    """[(depth, frame, visits, incl_ns, excl_ns)] of the report's call tree
    (times given in us with three decimals: exact ns for this program)."""
    lines = text.splitlines()
    start = lines.index(HEADER)
    assert lines[start + 1].split() == ["incl", "[us]", "excl", "[us]", "visits", "call", "path"]
    tree = []
    for line in lines[start + 2:]:
        if not line.strip():
            break
        m = LINE.match(line)
        assert m, f"not a call-tree line: {line!r}"
        incl, excl, visits, indent, frame = m.groups()
        assert len(indent) % 2 == 0, line
        tree.append((len(indent) // 2, frame, int(visits),
                     round(float(incl) * 1000), round(float(excl) * 1000)))
    return tree


@pytest.fixture(scope="module")
def report(build_dir, tmp_path_factory):
    directory = tmp_path_factory.mktemp("tree") / "experiment"
    proc = run(build_dir, "test_profile_exact", env={"SCOREP_EXPERIMENT_DIRECTORY": str(directory)})
    assert proc.stdout.strip().endswith("ok"), proc.stdout
    return (directory / "profile.txt").read_text()


def test_call_tree_is_indented_in_depth_first_order_with_exact_numbers(report):
    # children of a node follow it, largest inclusive time first; the program
    # region (the executable's name, from the start at 0 to the end at 300) is the root
    assert call_tree(report) == [
        (0, "test_profile_exact", 1, 300, 100),
        (1, "main", 1, 200, 125),
        (2, "foo", 2, 50, 34),
        (3, "bar", 1, 10, 10),
        (3, "MPI_Send", 1, 6, 6),
        (2, "baz", 2, 25, 2),
        (3, "n=3", 1, 19, 11),
        (4, "qux", 1, 8, 8),
        (3, "n=4", 1, 4, 4),
    ]


def test_call_tree_stands_beside_the_flat_list(report):
    flat = report.index("Top call paths by inclusive time")
    tree = report.index(HEADER)
    mpi = report.index("MPI summary by function group")
    assert flat < tree < mpi
    # the flat list keeps its full paths
    assert "test_profile_exact > main > baz > n=3 > qux" in report[flat:tree]


def test_exclusive_time_is_inclusive_minus_children(report):
    tree = call_tree(report)
    for i, (depth, frame, _, incl, excl) in enumerate(tree):
        children = []
        for d, _, _, child_incl, _ in tree[i + 1:]:
            if d <= depth:
                break
            if d == depth + 1:
                children.append(child_incl)
        assert excl == incl - sum(children), frame
