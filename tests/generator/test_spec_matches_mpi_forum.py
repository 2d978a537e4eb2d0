"""The project's MPI 4.0 spec agrees with the MPI Forum's apis.json.

The Forum's file is not part of the project (conftest.REFERENCE says where it
is looked for); without it the cross-check skips, saying how to get it. Every disagreement must be listed, with a
reason, in specs/extract/differences-from-mpi-forum-4.0.txt: one line per
reason, its left side a glob over "<procedure> <parameter> <field>".
"""
import fnmatch
import json

import pytest

from conftest import REFERENCE, REPO

FORUM = REFERENCE / "mpi-forum" / "apis-4.0.json"
DIFFERENCES = REPO / "specs" / "extract" / "differences-from-mpi-forum-4.0.txt"
COMPARED = ("kind", "param_direction", "length")


def listed_differences():
    listed = {}
    for number, line in enumerate(DIFFERENCES.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        where, sep, reason = line.partition(":")
        assert sep and reason.strip(), f"{DIFFERENCES.name}:{number}: no reason given"
        listed[where.strip()] = reason.strip()
    return listed


def differences(forum, ours):
    found = set()
    for key, theirs in forum.items():
        if not theirs["attributes"]["c_expressible"]:
            continue
        mine = ours.get(key)
        if mine is None:
            found.add(f"{theirs['name']} missing")
            continue
        their_names = [p["name"] for p in theirs["parameters"]]
        my_names = [p["name"] for p in mine["parameters"]]
        if their_names != my_names:
            found.add(f"{theirs['name']} parameter names")
            continue
        for a, b in zip(theirs["parameters"], mine["parameters"]):
            for field in COMPARED:
                if a[field] != b[field]:
                    found.add(f"{theirs['name']} {a['name']} {field}")
    return found


@pytest.fixture(scope="module")
def forum():
    if not FORUM.exists():
        pytest.skip("a cross-check for the project's maintainers: the MPI Forum's machine-readable MPI 4.0 "
                    "bindings (apis.json, not part of the project) are not on this machine. To run it, set "
                    "SCOREP_WRAPGEN_REFERENCE to a directory holding that file as mpi-forum/apis-4.0.json "
                    "(the MPI Forum's pympistandard package on PyPI ships an apis.json: use the one of MPI 4.0)")
    return json.loads(FORUM.read_text())


@pytest.fixture(scope="module")
def ours():
    return json.loads((REPO / "specs" / "mpi-4.0.apis.json").read_text())


def test_every_c_expressible_forum_procedure_agrees_or_is_listed(forum, ours):
    found = differences(forum, ours)
    listed = listed_differences()
    compared = sum(1 for e in forum.values() if e["attributes"]["c_expressible"])
    agreeing = compared - len({d.split()[0] for d in found})
    print(f"\n{agreeing} of {compared} C-expressible MPI Forum procedures agree in parameter "
          f"names, kinds, directions and lengths; {len(found)} differences in "
          f"{len(listed)} listed reasons")
    unlisted = [d for d in found if not any(fnmatch.fnmatchcase(d, pat) for pat in listed)]
    assert sorted(unlisted) == [], "differences not listed with a reason"
    stale = [pat for pat in listed if not any(fnmatch.fnmatchcase(d, pat) for d in found)]
    assert stale == [], "listed differences that no longer exist"


def test_listed_differences_stay_few():
    assert len(listed_differences()) < 15


def test_binding_attributes_agree_with_forum(forum, ours):
    for key, theirs in forum.items():
        for attribute in ("c_expressible", "f90_expressible", "f08_expressible", "callback"):
            assert ours[key]["attributes"][attribute] == theirs["attributes"][attribute], \
                f"{theirs['name']}: {attribute}"
