"""The core's rule for the envelope of a completed receive request
(scorep_mpi_irecv_request_posted, docs/MPI_ADAPTER.md): the status wins unless
it cannot be right, then the posted envelope is recorded. Driven through the
adapter API with fake handles and a fake status self-check (no MPI), traced;
tests/mpi/programs/recv_envelope_rule.c lists the cases."""
import os
import subprocess

import otf2
import pytest

from conftest import REPO

UNKNOWN = 0xFFFFFFFF   # -1 as the trace's unsigned rank and tag


@pytest.fixture(scope="module")
def traced(build_dir, tmp_path_factory):
    work = tmp_path_factory.mktemp("recv-rule")
    exe = work / "recv_envelope_rule"
    runtime = build_dir / "runtime"
    subprocess.run(["cc", "-O1", "-I", str(REPO / "runtime" / "include"),
                    str(REPO / "tests" / "mpi" / "programs" / "recv_envelope_rule.c"), "-o", str(exe),
                    "-L", str(runtime), "-lscorep_measurement", f"-Wl,-rpath,{runtime}"],
                   check=True, capture_output=True, text=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCOREP_")}
    env.update(SCOREP_ENABLE_TRACING="true", SCOREP_EXPERIMENT_DIRECTORY=str(work / "experiment"))
    proc = subprocess.run([str(exe)], env=env, capture_output=True, text=True, timeout=60, check=True)
    receives, isends, completed = [], [], []
    with otf2.reader.open(str(work / "experiment" / "traces.otf2")) as trace:
        for _, event in trace.events:
            if isinstance(event, otf2.events.MpiIrecv):
                receives.append((event.sender, event.msg_tag, event.msg_length))
            elif isinstance(event, otf2.events.MpiIsend):
                isends.append(event.request_id)
            elif isinstance(event, otf2.events.MpiIsendComplete):
                completed.append(event.request_id)
    return {"stdout": proc.stdout, "receives": receives, "isends": isends, "completed": completed}


def test_the_status_wins_unless_it_cannot_be_right(traced):
    assert traced["receives"] == [
        (1, 5, 24),               # status right
        (2, 9, 40),               # wildcards from the status
        (1, 5, 40),               # status contradicts the source: posted envelope
        (UNKNOWN, 5, 40),         # contradicts the tag; the wildcard source stays unknown
        (1, 5, 40),               # more bytes than the capacity
        (1, 5, 40),               # the self-check found the origin's statuses wrong
        (UNKNOWN, UNKNOWN, 40),   # ... with wildcards (MPICH's MPI_ANY_SOURCE is -2)
        (2, 3, 4),                # an origin without a self-check: trusted
        (2, 9, 12),               # no posted envelope (persistent receive): the status
    ]


def test_the_self_check_runs_once_at_the_first_request_of_its_origin(traced):
    assert "checks before Isendrecv 0" in traced["stdout"]
    assert "checks 1" in traced["stdout"]


def test_a_send_and_receive_request_completes_its_send(traced):
    assert len(traced["isends"]) == 2
    assert traced["completed"] == traced["isends"]
