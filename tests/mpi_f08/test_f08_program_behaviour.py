"""A mpi_f08 program behaves the same with the F08 adapter, and its profile
counts exactly what it calls (halo exchange, wildcard receive, callbacks,
info strings, Waitany/Testany/Waitsome, MPI_F_sync_reg, MPI_Sizeof)."""
import re

import otf2
import pytest

from f08_runs import runs  # noqa: F401  (the session fixture)

RANKS, N, STEPS = 3, 8, 3    # as in f08_behaviour.F90 and f08_runs.py


def test_output_is_identical_with_and_without_the_adapter(runs):
    plain, wrapped = runs
    assert wrapped.lines == plain
    assert len(plain) >= 8 * RANKS


def test_halo_exchange_received_its_neighbours_data(runs):
    _, wrapped = runs
    for rank in range(RANKS):
        line = next(l for l in wrapped.lines if l.startswith(f"{rank} halo"))
        assert line.split()[2:] == [str((rank - 1) % RANKS), str((rank + 1) % RANKS)]


def test_wildcard_receive_records_the_true_source(runs):
    _, wrapped = runs
    assert f"0 wildcard   {RANKS - 1}  42" in wrapped.lines
    recv = wrapped.totals("MPI_Recv", 0)
    assert (recv["visits"], recv["messages_received"], recv["bytes_received"]) == (1, 1, 4)


def test_user_reduction_op_and_attribute_callbacks_ran(runs):
    _, wrapped = runs
    expected_sum = sum(range(RANKS)) + 1000 * (RANKS - 1)
    for rank in range(RANKS):
        assert f"{rank} reduce {expected_sum:5d}" in wrapped.lines
        assert f"{rank} attributes  1  2 T  11" in wrapped.lines


def test_info_strings_reach_mpi_as_given(runs):
    """Key 'scorep_key   ' and value '  padded value   ': MPI strips the blanks
    (the standard's Fortran rule) and finds the key without them."""
    plain, wrapped = runs
    info = [l for l in wrapped.lines if " info " in l]
    assert info == [l for l in plain if " info " in l]
    assert info[0] == "0 info T [padded value" + " " * 20 + "]"


def test_nonblocking_bytes_and_visits_are_exact(runs):
    """Exact on both libraries, also for MPICH's MPI_Isendrecv, whose requests
    MPICH 4.0.2 completes with an unset status (the adapter records the posted
    envelope then: docs/MPI_ADAPTER.md)."""
    _, wrapped = runs
    bytes_per_step = 2 * N * 4
    mpich = wrapped.mpi == "mpich"
    # MPICH also runs one exchange of non-contiguous rows (4 integers) and
    # STEPS exchanges with MPI_Isendrecv
    rows = 1 if mpich else 0
    exchanges = STEPS * (2 if mpich else 1)
    for rank in range(RANKS):
        waitall = wrapped.totals("MPI_Waitall", rank)
        assert waitall["visits"] == exchanges + rows
        assert waitall["messages_received"] == 2 * exchanges + rows
        assert waitall["bytes_received"] == exchanges * bytes_per_step + rows * 16
        isend = wrapped.totals("MPI_Isend", rank)
        assert (isend["visits"], isend["bytes_sent"], isend["messages_sent"]) == (
            2 * STEPS + rows, STEPS * bytes_per_step + rows * 16, 2 * STEPS + rows)
        if mpich:
            both = wrapped.totals("MPI_Isendrecv", rank)
            assert (both["visits"], both["bytes_sent"], both["messages_sent"]) == (
                2 * STEPS, STEPS * bytes_per_step, 2 * STEPS)


def rank_of(location):
    return int(re.search(r"(\d+)\s*$", location.group.name).group(1))


def test_halo_receives_record_their_true_source_tag_and_bytes(runs):
    """Every receive of the halo exchanges (MPI_Irecv, and MPICH's MPI_Isendrecv)
    in the trace: tag 1 from the right neighbour, tag 2 (and the rows' tag 3)
    from the left one, N integers (rows: 4); an MPI_Isendrecv request also
    completes its send."""
    _, wrapped = runs
    mpich = wrapped.mpi == "mpich"
    receives, isendrecv_sends, completed, stacks = {}, {}, {}, {}
    with otf2.reader.open(str(wrapped.experiment / "traces.otf2")) as trace:
        for location, event in trace.events:
            rank = rank_of(location)
            stack = stacks.setdefault(rank, [])
            if isinstance(event, otf2.events.Enter):
                stack.append(event.region.name)
            elif isinstance(event, otf2.events.Leave):
                stack.pop()
            elif isinstance(event, otf2.events.MpiIrecv) and event.msg_tag in (1, 2, 3):
                sender = rank_of(event.communicator.group.members[event.sender])
                receives.setdefault(rank, []).append((event.msg_tag, sender, event.msg_length))
            elif isinstance(event, otf2.events.MpiIsend) and stack[-1:] == ["MPI_Isendrecv"]:
                isendrecv_sends.setdefault(rank, []).append(event.request_id)
            elif isinstance(event, otf2.events.MpiIsendComplete):
                completed.setdefault(rank, set()).add(event.request_id)
    exchanges = STEPS * (2 if mpich else 1)
    for rank in range(RANKS):
        left, right = (rank - 1) % RANKS, (rank + 1) % RANKS
        expected = [(1, right, N * 4)] * exchanges + [(2, left, N * 4)] * exchanges
        expected += [(3, left, 16)] if mpich else []
        assert sorted(receives[rank]) == sorted(expected)
        sends = isendrecv_sends.get(rank, [])
        assert len(sends) == (2 * STEPS if mpich else 0)
        assert set(sends) <= completed[rank]


def test_noncontiguous_rows_arrive_through_the_descriptor(runs):
    """MPICH (MPI_SUBARRAYS_SUPPORTED) takes non-contiguous sections in
    non-blocking calls: the wrapper passes the array descriptor on as it is."""
    plain, wrapped = runs
    if wrapped.mpi != "mpich":
        pytest.skip("Open MPI 4.1: MPI_SUBARRAYS_SUPPORTED is false")
    rows = [l for l in wrapped.lines if " rows " in l]
    assert len(rows) == RANKS and rows == [l for l in plain if " rows " in l]
    for rank in range(RANKS):
        left = (rank - 1) % RANKS
        # row N of the left neighbour: its own value in columns 1:2
        assert rows[rank].split()[3:5] == [str(left), str(left)]


def test_waitany_testany_waitsome_return_what_mpi_returns_and_count_exactly(runs):
    plain, wrapped = runs
    for what in ("testany-before", "waitany", "waitany-none", "waitsome"):
        mine = [l for l in wrapped.lines if l.split()[1] == what]
        assert mine == [l for l in plain if l.split()[1] == what] and len(mine) == RANKS
    for rank in range(RANKS):
        waitany = wrapped.totals("MPI_Waitany", rank)
        assert (waitany["visits"], waitany["messages_received"], waitany["bytes_received"]) == (2, 1, 4)
        assert wrapped.totals("MPI_Testany", rank)["messages_received"] == 0
        assert wrapped.totals("MPI_Waitsome", rank)["messages_received"] == 1
        assert wrapped.totals("MPI_Wait", rank)["messages_received"] == 1


def test_a_fortran_send_is_counted_once(runs):
    """MPICH's F08 layer calls the C MPI_Send (and MPI_Init, ...): the C
    wrappers must not count those calls again."""
    _, wrapped = runs
    send = wrapped.totals("MPI_Send", RANKS - 1)
    for rank in range(RANKS):
        # MPICH's F08 MPI_Init/MPI_Finalize call the C ones, which have wrappers too
        assert wrapped.totals("MPI_Init", rank)["visits"] == 1
        assert wrapped.totals("MPI_Finalize", rank)["visits"] == 1
        assert wrapped.totals("MPI_Comm_rank", rank)["visits"] == 1
    # to rank 0 (wildcard), three self-sends (Waitany, Waitsome, Wait), one for Mprobe
    assert send["visits"] == 5
    assert send["messages_sent"] == 5
    assert send["bytes_sent"] == 20


def test_matched_receive_records_the_probed_envelope(runs):
    _, wrapped = runs
    for rank in range(RANKS):
        left = (rank - 1) % RANKS
        assert f"{rank} mrecv {left:4d} {left + 100:4d}" in wrapped.lines
        mrecv = wrapped.totals("MPI_Mrecv", rank)
        assert (mrecv["visits"], mrecv["messages_received"], mrecv["bytes_received"]) == (1, 1, 4)


def test_fortran_only_procedures(runs):
    _, wrapped = runs
    for rank in range(RANKS):
        assert wrapped.totals("MPI_F_sync_reg", rank)["visits"] == 1
        # variadic in C (not wrapped there), a plain subroutine in mpi_f08
        assert wrapped.totals("MPI_Pcontrol", rank)["visits"] == 1
        assert f"{rank} sizeof  8" in wrapped.lines


def test_one_sided_put_between_fences(runs):
    _, wrapped = runs
    for rank in range(RANKS):
        left = (rank - 1) % RANKS
        assert f"{rank} put {left:3d} {left:3d}" in wrapped.lines
        put = wrapped.totals("MPI_Put", rank)
        # one-sided bytes are bytes_put, apart from the messages' bytes_sent (as in Score-P)
        assert (put["visits"], put["bytes_put"], put["bytes_sent"]) == (1, 8, 0)
        assert wrapped.totals("MPI_Win_fence", rank)["visits"] == 2
        assert wrapped.totals("MPI_Win_create", rank)["visits"] == 1


def test_large_count_specific_is_its_own_region(runs):
    """MPICH exports mpi_sendrecv_f08ts_large_ for INTEGER(MPI_COUNT_KIND) counts."""
    _, wrapped = runs
    if wrapped.mpi != "mpich":
        pytest.skip("Open MPI 4.1 (MPI 3.1) has no large-count specifics")
    for rank in range(RANKS):
        assert f"{rank} large-count {rank:3d}" in wrapped.lines
        big = wrapped.totals("MPI_Sendrecv_c", rank)
        assert (big["visits"], big["bytes_sent"], big["bytes_received"]) == (1, 4, 4)
        assert wrapped.totals("MPI_Sendrecv", rank)["visits"] == 0
