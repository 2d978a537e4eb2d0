"""shmem_global_exit ends the job from one PE: every PE writes what it
recorded so far (profile.rank<R>.json marked partial, traces.rank<R>.otf2),
with the puts the program made before it."""
import json
import re
import subprocess

import pytest

from conftest import REPO, scorep
from shmem_oracle import HAVE_OSHMEM, oshrun

PROGRAM = REPO / "tests" / "shmem" / "programs" / "shmem_global_exit.c"
PUTS = 3                                        # the program's constant
LONG = 8

pytestmark = pytest.mark.skipif(not HAVE_OSHMEM, reason="Open MPI's oshmem (oshcc, oshrun) not installed")


def test_global_exit_leaves_every_pe_readable(build_dir, tmp_path):
    program = tmp_path / "global_exit"
    subprocess.run(scorep(build_dir) + ["--nocompiler", "oshcc", str(PROGRAM), "-o", str(program)],
                   check=True, capture_output=True, text=True)
    pes = 2
    experiment = tmp_path / "experiment"
    proc = oshrun(pes, [program], tmp_path,
                  {"SCOREP_EXPERIMENT_DIRECTORY": str(experiment), "SCOREP_ENABLE_TRACING": "true"})
    assert proc.returncode == 3 and "not reached" not in proc.stdout, proc.stderr
    for rank in range(pes):
        profile = json.loads((experiment / f"profile.rank{rank}.json").read_text())
        assert profile["experiment"]["partial"] is True
        regions = {r["id"]: r["name"] for r in profile["regions"]}
        callpaths = {c["id"]: c for c in profile["callpaths"]}
        put = {}
        for row in profile["rows"]:
            cp = callpaths[row["callpath"]]
            if regions[cp["region"]] == "shmem_long_put" and cp.get("parameter"):
                put[cp["parameter"]["value"]] = (row["visits"], row["bytes_put"])
        assert put == {0: (PUTS, PUTS * LONG)}
        exits = sum(row["visits"] for row in profile["rows"]
                    if regions[callpaths[row["callpath"]]["region"]] == "shmem_global_exit")
        assert exits == (rank == pes - 1)
        trace = subprocess.run(["otf2-print", str(experiment / f"traces.rank{rank}.otf2")],
                               capture_output=True, text=True, check=True).stdout
        assert len(re.findall(r"^RMA_PUT .*Remote: 0 .*Bytes: 8,", trace, re.M)) == PUTS
