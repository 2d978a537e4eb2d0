"""Coarray accesses to the calling image are no remote communication.

tests/caf/programs/caf_self.f90 on 3 images (traced) makes gfortran call the
library on the image itself: a remote load into an allocatable coarray (a
sendget whose destination is this image), a sendget into `a(..)[this_image()]`,
a get and a send on the own image, a sendget from the own image to the right
neighbour, an atomic on the own image. Only the parts that reach another image
are recorded: the profile's bytes per target image (image=N nodes), the OTF2
RMA records (otf2-print) and profile.txt's per-target table have no access of
an image to itself, and the bytes put and got are exactly the remote ones. The
program's output is the same plain and measured."""
import json
import re
import shutil
import subprocess
import sys
from collections import Counter

import pytest

from conftest import REPO
from test_caf_end_to_end import cafrun, scorep, trace_counts

PROGRAM = REPO / "tests" / "caf" / "programs" / "caf_self.f90"
NA, INT = 7, 4                        # the program's constants
IMAGES = 3

pytestmark = pytest.mark.skipif(not (shutil.which("caf") and shutil.which("cafrun")),
                                reason="OpenCoarrays (caf, cafrun) not installed")


def image_nodes(profile):
    """{(rank, region, target image): counters} of the image=N parameter nodes,
    and visits per (rank, region) of the regions themselves."""
    regions = {r["id"]: r["name"] for r in profile["regions"]}
    callpaths = {c["id"]: c for c in profile["callpaths"]}
    rank_of = {loc["id"]: loc["rank"] for loc in profile["locations"]}
    nodes, visits = {}, Counter()
    for row in profile["rows"]:
        cp = callpaths[row["callpath"]]
        rank, region = rank_of[row["location"]], regions[cp["region"]]
        if cp.get("parameter"):
            assert cp["parameter"]["name"] == "image"
            key = (rank, region, int(cp["parameter"]["value"]))
            counters = nodes.setdefault(key, Counter())
            for name in ("visits", "bytes_put", "bytes_get", "bytes_sent", "bytes_received"):
                counters[name] += row[name]
        else:
            visits[rank, region] += row["visits"]
    return nodes, visits


def right_of(me):
    return 1 if me == IMAGES else me + 1


@pytest.fixture(scope="module")
def experiment(build_dir, tmp_path_factory):
    """The program run plain and measured (profile and trace) on IMAGES images;
    the outputs must agree."""
    tmp_path = tmp_path_factory.mktemp("caf_self")
    built = {}
    for kind, prefix in (("plain", []), ("measured", scorep(build_dir))):
        d = tmp_path / kind
        d.mkdir()
        subprocess.run(prefix + ["caf", str(PROGRAM), "-o", str(d / "caf_self")],
                       check=True, capture_output=True, text=True, cwd=d)
        built[kind] = d / "caf_self"
    plain = cafrun(IMAGES, built["plain"], tmp_path)
    assert plain.returncode == 0, plain.stderr
    experiment = tmp_path / "experiment"
    measured = cafrun(IMAGES, built["measured"], tmp_path,
                      {"SCOREP_EXPERIMENT_DIRECTORY": str(experiment), "SCOREP_ENABLE_TRACING": "true"})
    assert measured.returncode == 0, measured.stderr
    assert sorted(measured.stdout.splitlines()) == sorted(plain.stdout.splitlines())
    assert len(plain.stdout.splitlines()) == IMAGES
    return experiment


def test_accesses_to_the_own_image_are_not_recorded_as_remote(experiment):

    profile = json.loads((experiment / "profile.json").read_text())
    nodes, visits = image_nodes(profile)
    want = {}
    for me in range(1, IMAGES + 1):
        rank, k = me - 1, right_of(me)
        # every statement is a call, remote or not
        assert visits[rank, "_gfortran_caf_sendget"] == 3
        assert visits[rank, "_gfortran_caf_get"] == 1
        assert visits[rank, "_gfortran_caf_send"] == 2
        assert visits[rank, "_gfortran_caf_atomic_define"] == 2
        # two sendgets get from k (NA and 5 integers), the third puts 2 to k
        # one-sided bytes are bytes_put / bytes_get; bytes_sent/received stay 0
        want[rank, "_gfortran_caf_sendget", k] = Counter(visits=3, bytes_get=(NA + 5) * INT, bytes_put=2 * INT)
        want[rank, "_gfortran_caf_send", k] = Counter(visits=1, bytes_put=INT)
        want[rank, "_gfortran_caf_atomic_define", k] = Counter(visits=1, bytes_put=INT)
    got = {key: +counters for key, counters in nodes.items()}
    assert got == {key: +counters for key, counters in want.items()}

    tput, tget, records, issued, completed = trace_counts(experiment)
    assert [key for key in records if key[1] == key[2]] == [], "an access to the own image in the trace"
    for me in range(1, IMAGES + 1):
        rank, target = me - 1, right_of(me) - 1
        assert records["RMA_GET", rank, target] == 2 and tget[rank, target] == (NA + 5) * INT
        assert records["RMA_PUT", rank, target] == 2 and tput[rank, target] == 3 * INT
        assert records["RMA_ATOMIC", rank, target] == 1
    assert sum(records.values()) == 5 * IMAGES
    assert issued and issued == completed

    text = (experiment / "profile.txt").read_text()
    table = text.split("Coarray Fortran remote accesses per target image", 1)[1].split("\n\n", 1)[0]
    pairs = [tuple(map(int, line.split()[:2])) for line in table.splitlines()[2:]]
    assert sorted(pairs) == sorted((me, right_of(me)) for me in range(1, IMAGES + 1))


REGION = re.compile(r'^REGION\s+\d+\s+Name: "([^"]*)".*?, Paradigm: (\S+)', re.M)


def test_caf_regions_carry_the_caf_paradigm_in_the_trace(experiment):
    """The profile says paradigm "caf"; the OTF2 trace (otf2-print -G, an
    independent reader) names the CAF regions' paradigm "CAF" through a
    Paradigm definition (OTF2 3.0 has no value of its own for CAF), and only
    those: MPI regions stay MPI."""
    profile = json.loads((experiment / "profile.json").read_text())
    caf_in_profile = {r["name"] for r in profile["regions"] if r["paradigm"] == "caf"}
    assert "_gfortran_caf_sendget" in caf_in_profile
    printed = subprocess.run(["otf2-print", "-G", str(experiment / "traces.otf2")], capture_output=True,
                             text=True, check=True).stdout
    paradigm_of = dict(REGION.findall(printed))
    caf_in_trace = {name for name, paradigm in paradigm_of.items() if paradigm == '"CAF"'}
    assert caf_in_trace == {name for name in paradigm_of if name.startswith("_gfortran_caf_")}
    assert caf_in_profile <= caf_in_trace
    assert all(paradigm in ("MPI", '"MPI"') for name, paradigm in paradigm_of.items() if name.startswith("MPI_"))
    assert len(re.findall(r'^PARADIGM\s+\d+\s+.*Name: "CAF".*Class: PROCESS', printed, re.M)) == 1
    # scorep-trace-export files the regions under the paradigm's name
    out = experiment.parent / "trace.json"
    subprocess.run([sys.executable, str(REPO / "tools" / "scorep-trace-export"), str(experiment), "-o", str(out)],
                   check=True, capture_output=True, text=True)
    categories = {(e["name"], e["cat"]) for e in json.loads(out.read_text())["traceEvents"] if e["ph"] == "B"}
    assert {cat for name, cat in categories if name.startswith("_gfortran_caf_")} == {"CAF"}
    assert all(isinstance(cat, str) for _, cat in categories)
