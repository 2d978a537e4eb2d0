"""Coarray Fortran teams: inside `change team` image indices are the team's
and map to the ranks of the team's members (OpenCoarrays' current team
communicator, read at change team / end team). tests/caf/programs/caf_teams.f90
on 4 images (teams {1, 3} and {2, 4}): the puts inside the team go to the
other member of the team, after `end team` to the initial team's next image,
in the profile (image=N: the initial team's index) and in the trace (RMA put
target rank); sync all and co_sum inside the team are collectives over the
team's two ranks."""
import json
import re
import subprocess
from collections import Counter


from conftest import REPO
from test_caf_end_to_end import cafrun, profile_counts, scorep, pytestmark  # noqa: F401

PROGRAM = REPO / "tests" / "caf" / "programs" / "caf_teams.f90"
NPUTS, INT, IMAGES = 2, 4, 4


def test_team_images_map_to_team_members(build_dir, tmp_path):
    plain, measured = tmp_path / "plain", tmp_path / "measured"
    subprocess.run(["caf", str(PROGRAM), "-o", str(plain)], check=True, capture_output=True, text=True)
    subprocess.run(scorep(build_dir) + ["caf", str(PROGRAM), "-o", str(measured)], check=True,
                   capture_output=True, text=True, cwd=tmp_path)
    plain_run = cafrun(IMAGES, plain, tmp_path)
    assert plain_run.returncode == 0, plain_run.stderr
    experiment = tmp_path / "experiment"
    run = cafrun(IMAGES, measured, tmp_path,
                 {"SCOREP_EXPERIMENT_DIRECTORY": str(experiment), "SCOREP_ENABLE_TRACING": "true"})
    assert run.returncode == 0, run.stderr
    assert sorted(run.stdout.splitlines()) == sorted(plain_run.stdout.splitlines())

    members = {1: [1, 3], 2: [2, 4]}                   # team number -> images of the initial team
    want_put = {}
    for me in range(1, IMAGES + 1):
        team = members[(me - 1) % 2 + 1]
        partner = team[(team.index(me) + 1) % len(team)]
        after = me % IMAGES + 1
        want_put[me] = Counter({partner: NPUTS * INT})
        want_put[me][after] += INT
    profile = json.loads((experiment / "profile.json").read_text())
    visits, put, _ = profile_counts(profile)
    for me in range(1, IMAGES + 1):
        assert visits[me - 1, "_gfortran_caf_send"] == NPUTS + 1
        assert visits[me - 1, "_gfortran_caf_change_team"] == visits[me - 1, "_gfortran_caf_end_team"] == 1
        for target in range(1, IMAGES + 1):
            assert put[me - 1, target] == want_put[me][target], (me, target)

    printed = subprocess.run(["otf2-print", str(experiment / "traces.otf2")], capture_output=True, text=True,
                             check=True).stdout
    traced = Counter()
    for m in re.finditer(r"^RMA_PUT\s+(\d+)\s+\d+\s+Window: .*?, Remote: (\d+) .*?Bytes: (\d+)", printed, re.M):
        traced[int(m.group(1)) >> 32, int(m.group(2))] += int(m.group(3))
    assert traced == Counter({(me - 1, t - 1): n for me in want_put for t, n in want_put[me].items()})
    # the collectives inside the team (sync all, co_sum, co_broadcast): on a
    # communicator "team" shared by the team's members only
    team_comm = {}
    operations = Counter()
    for m in re.finditer(r'^MPI_COLLECTIVE_END\s+(\d+)\s+\d+\s+Operation: (\w+), Communicator: "team" <(\d+)>',
                         printed, re.M):
        rank = int(m.group(1)) >> 32
        assert team_comm.setdefault(rank, m.group(3)) == m.group(3)
        operations[rank, m.group(2)] += 1
    assert team_comm[0] == team_comm[2] != team_comm[1] == team_comm[3]
    assert operations == Counter({(r, op): 1 for r in range(IMAGES) for op in ("BARRIER", "ALLREDUCE", "BCAST")})
