"""End-to-end, Fortran: a send's bytes are its count times the size of the
datatype its handle names at the time of the call, through the mpi_f08 and
the mpif.h / use mpi wrappers, which cache predefined types' sizes by Fortran
handle (tests/mpi/programs/send_bytes_f.F90, 2 ranks, traced, both MPI
libraries). Derived types are created and freed between the sends, so a
handle can come back naming a type of another size."""
import otf2
import pytest

from measure import compile_fortran_pair, run_measured
from test_c_comm_reuse import program_lines, rank_of


def traced_send_lengths(experiment):
    """{tag: message length} of rank 0's MpiSend and MpiIsend records."""
    lengths = {}
    with otf2.reader.open(str(experiment / "traces.otf2")) as trace:
        for location, event in trace.events:
            if rank_of(location) == 0 and isinstance(event, (otf2.events.MpiSend, otf2.events.MpiIsend)):
                assert event.msg_tag not in lengths
                lengths[event.msg_tag] = event.msg_length
    return lengths


@pytest.mark.parametrize("binding", ["f08", "f90"])
@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_fortran_send_bytes_follow_the_datatype_the_handle_names(mpi, binding, tmp_path):
    extra = ["-cpp"] + (["-DUSE_MPI_F08"] if binding == "f08" else [])
    plain, measured = compile_fortran_pair(mpi, "send_bytes_f.F90", tmp_path, extra)
    proc, experiment = run_measured(mpi, 2, measured, tmp_path, env={"SCOREP_ENABLE_TRACING": "true"})
    plain_proc, _ = run_measured(mpi, 2, plain, tmp_path)
    received = sorted(program_lines(proc.stdout, "RECEIVED"))
    assert len(received) == 30 and received == sorted(program_lines(plain_proc.stdout, "RECEIVED"))
    sent = dict(program_lines(proc.stdout, "SENT"))
    assert len(sent) == 30 and len(set(sent.values())) >= 5   # sizes differ between the sends
    assert traced_send_lengths(experiment) == sent
