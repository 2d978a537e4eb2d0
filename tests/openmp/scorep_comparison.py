"""Comparing a measurement of ours with Score-P's of the same OpenMP program
(tests/openmp/test_same_constructs_as_scorep.py, test_hybrid_mpi_openmp.py):
Cube's cube_calltree and otf2-print read both, as the independent oracles."""
import collections
import pathlib
import re
import shutil
import subprocess

import pytest

import cube_tools

PREFIX = cube_tools.reference("scorep") or pathlib.Path("/opt/scorep")


def reference_tool(name):
    path = PREFIX / "bin" / name
    if not path.exists():
        pytest.skip(f"no Score-P installation in {PREFIX} ({path} missing; set SCOREP_REFERENCE_PREFIX to one): "
                    f"the comparison with Score-P's OpenMP measurement is skipped")
    return path


def construct_paths(cube, cwd, lines=False):
    """{call path, with each construct's "@file:line" left out unless lines: visits}, by cube_calltree."""
    proc = subprocess.run([str(reference_tool("cube_calltree")), "-m", "visits", "-c", str(cube)],
                          capture_output=True, text=True, cwd=cwd, timeout=120)
    assert proc.returncode == 0, proc.stderr
    paths = collections.Counter()
    for line in proc.stdout.splitlines():
        m = re.match(r"^\s*(\d+)\s+.*?\s(/\S.*)$", line)
        if not m:
            continue
        parts = m.group(2).split("/")[1:]
        if not lines:
            parts = [re.sub(r" @\S+$", "", part) for part in parts]
        else:
            parts[0] = "<program>"   # the binaries' names
        paths["/".join(parts)] += int(m.group(1))
    return paths


def construct(part):
    """"!$omp task @omp_constructs.c:41" -> "!$omp task" """
    return part.split(" @")[0]


def comparable(paths, variant):
    """without TASKS and where tasks ran (their total runs are kept), and
    unmodified, what a binary cannot show: atomic"""
    kept, tasks = {}, 0
    for path, visits in paths.items():
        parts = path.split("/")
        names = [construct(part) for part in parts]
        if "TASKS" in names or (variant == "unmodified" and "!$omp atomic" in names):
            continue
        if names[-1] == "!$omp task":
            tasks += visits
            continue
        if "!$omp task" in names:
            continue
        kept[path] = visits
    return kept, tasks


def thread_records(trace, cwd):
    """otf2-print's count of each fork/join, team, lock and task creation
    record per location of a trace (the critical sections' locks, and the
    tasks each thread completes: how many depends on the schedule, so
    their sum over the threads; the switches back to a thread's implicit
    task are left out: Score-P writes one more after a parallel region's
    implicit barrier, docs/OPENMP_ADAPTER.md)."""
    otf2_print = shutil.which("otf2-print") or str(PREFIX / "bin" / "otf2-print")
    events = subprocess.run([otf2_print, str(trace)], capture_output=True, text=True, cwd=cwd, timeout=300,
                            check=True).stdout
    definitions = subprocess.run([otf2_print, "-G", str(trace)], capture_output=True, text=True, cwd=cwd,
                                 timeout=300, check=True).stdout
    names = {}
    groups = dict(re.findall(r'^LOCATION_GROUP\s+(\d+)\s+Name: "([^"]+)"', definitions, re.M))
    for location, name, group in re.findall(r'^LOCATION\s+(\d+)\s+Name: "([^"]+)".*Group: "[^"]*" <(\d+)>',
                                            definitions, re.M):
        names[location] = (groups.get(group, group), name)
    per = collections.Counter()
    for line in events.splitlines():
        fields = line.split()
        if fields and fields[0] in ("THREAD_FORK", "THREAD_JOIN", "THREAD_TEAM_BEGIN", "THREAD_TEAM_END",
                                    "THREAD_TASK_CREATE"):
            per[(names[fields[1]], fields[0])] += 1
        elif fields and fields[0] in ("THREAD_ACQUIRE_LOCK", "THREAD_RELEASE_LOCK", "THREAD_TASK_COMPLETE"):
            per[("all threads", fields[0], "Model: \"OpenMP\"" in line)] += 1
    return per
