"""Request tracking, RMA and I/O events reach the profile (one process, no MPI);
the request table's queues of requests that share a handle (checked inside
runtime/tests/test_requests.c)."""
import pytest

from runtime_programs import Profile, load_profile, run

# the root of the call tree: the program region, named after the executable
PROGRAM = "test_requests"


@pytest.fixture(scope="module")
def program_run(build_dir, tmp_path_factory):
    directory = tmp_path_factory.mktemp("requests") / "e"
    proc = run(build_dir, "test_requests", env={"SCOREP_EXPERIMENT_DIRECTORY": str(directory),
                                                "SCOREP_VERBOSE": "true"})
    assert "world rank of rank 2 in 'three': 0" in proc.stdout
    return proc, directory


@pytest.fixture(scope="module")
def profile(program_run):
    _, directory = program_run
    return Profile(load_profile(directory / "profile.json"))


def test_requests_sharing_a_handle_complete_oldest_first_each_once(program_run):
    """MPI gives requests that are complete at creation one shared handle;
    the program checks FIFO completion, test/free/cancel of the oldest,
    persistent requests, MPI_Isendrecv halves, bucket collisions, threads and
    the bound per handle (it exits 1 with FAIL lines otherwise)."""
    proc, _ = program_run
    assert "FAIL" not in proc.stdout
    assert "queues: ok" in proc.stdout


def test_a_handle_over_its_bound_drops_the_oldest_with_one_note(program_run):
    proc, _ = program_run
    notes = [line for line in proc.stderr.splitlines() if "requests outstanding at once" in line]
    assert len(notes) == 1, proc.stderr
    assert "more than 65536" in notes[0] and "oldest is dropped" in notes[0]


def numbers(row, *keys):
    return tuple(row[k] for k in keys)


def test_isend_and_persistent_starts_count_as_sends_where_they_start(profile):
    row = profile.row(f"{PROGRAM}/nonblocking")
    # isend 10 B + persistent send started once here (20 B)
    assert numbers(row, "messages_sent", "bytes_sent", "messages_received") == (2, 30, 0)


def test_receives_count_at_completion_and_cancelled_or_unknown_requests_do_not(profile):
    row = profile.row(f"{PROGRAM}/wait")
    # irecv h2 completes with 30 B; the second start of h3 sends 20 B more;
    # cancelled h4, unknown handle 999 and the completed h1 add nothing
    assert numbers(row, "messages_received", "bytes_received") == (1, 30)
    assert numbers(row, "messages_sent", "bytes_sent") == (1, 20)


def test_rma_bytes_count_as_put_and_get_apart_from_messages(profile):
    row = profile.row(f"{PROGRAM}/rma")
    assert numbers(row, "bytes_put", "bytes_get", "collectives") == (100 + 8 + 16, 50 + 8 + 32, 1)
    assert numbers(row, "bytes_sent", "bytes_received") == (0, 0)


def test_io_bytes_are_recorded_per_call_path(profile):
    assert numbers(profile.row(f"{PROGRAM}/io"), "bytes_read", "bytes_written") == (1000, 24)
