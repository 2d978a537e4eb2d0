"""The Fortran 2008 back-end: wrapper interfaces follow the mpi_f08 binding,
every task has an F08 snippet, and the exclusions say why."""
import re

from conftest import REPO

GENERATED = REPO / "generated" / "mpi" / "f08"


def wrapper(name):
    """The generated text of one wrapper, #if to #endif."""
    for path in sorted(GENERATED.glob("wrap_*.F90")):
        text = path.read_text()
        m = re.search(rf"^#if SCOREP_F08_HAVE_{name}\n(.*?^end subroutine)\n#endif\n", text, re.S | re.M)
        if m:
            return m.group(1)
    raise AssertionError(f"no wrapper for {name}")


def test_send_has_the_mpi_f08_dummies_and_calls_its_pmpi_generic():
    text = wrapper("MPI_Send")
    assert "subroutine SCOREP_F08_NAME_MPI_Send(buf, count, datatype, dest, tag, comm, ierror)" in text
    # choice buffer: TS 29113 where the library has a ts specific, else ignore-TKR
    assert "#if SCOREP_F08_TS_MPI_Send\n    type(*), dimension(..) :: buf" in text
    assert "!GCC$ ATTRIBUTES NO_ARG_CHECK :: buf\n    type(*), dimension(*) :: buf" in text
    assert "integer, optional :: ierror" in text
    assert "if (present(ierror)) ierror = scorep_ierror" in text
    assert "call PMPI_Send(buf, count, datatype, dest, tag, comm, scorep_ierror)" in text
    # begin (enter, event generation off) and end (exit, on) around the call:
    # MPICH's F08 layer calls the C MPI_Send, which must not record again
    assert text.index("= scorep_mpi_f08_begin(scorep_region_index)") < text.index("call PMPI_Send(")
    assert text.index("call PMPI_Send(") < text.index("call scorep_mpi_f08_end(scorep_region_id)")


def test_large_count_variant_calls_the_same_generic_with_a_count_kind():
    text = wrapper("MPI_Send_c")
    assert "INTEGER(KIND=MPI_COUNT_KIND) :: count" in text
    assert "call PMPI_Send(buf, count" in text


def test_status_ignore_is_replaced_by_a_lent_status_only_in_the_call():
    text = wrapper("MPI_Recv")
    assert "call PMPI_Recv(buf, count, datatype, source, tag, comm, scorep_status, scorep_ierror)" in text
    assert "scorep_status => status" in text


def test_f_sync_reg_has_no_ierror_and_sizeof_is_excluded_with_a_reason():
    text = wrapper("MPI_F_sync_reg")
    assert "subroutine SCOREP_F08_NAME_MPI_F_sync_reg(buf)" in text and "present(ierror)" not in text
    excluded = dict(line.split(": ", 1) for line in (GENERATED / "excluded.txt").read_text().splitlines())
    assert "module procedures" in excluded["MPI_Sizeof"]


def test_every_task_has_an_f08_snippet():
    report = (GENERATED / "tasks-without-f08-snippet.txt").read_text()
    assert [l for l in report.splitlines() if not l.startswith("#")] == []


def test_c_only_arguments_are_not_fortran_dummies():
    assert "subroutine SCOREP_F08_NAME_MPI_Init(ierror)" in wrapper("MPI_Init")


def test_only_procedures_that_create_a_persistent_request_count_as_persistent():
    from generator.specs import load_spec
    spec = load_spec()
    persistent = {name for name in ("MPI_Allreduce_init", "MPI_Send_init", "MPI_Neighbor_alltoall_init")
                  if spec[name].starts_persistent_request}
    assert persistent == {"MPI_Allreduce_init", "MPI_Send_init", "MPI_Neighbor_alltoall_init"}
    assert spec["MPI_Allreduce_init"].large_count_variant().starts_persistent_request
    # an _init without a request, and a request without _init
    assert not any(spec[name].starts_persistent_request
                   for name in ("MPI_Init", "MPI_Session_init", "MPI_Iallreduce", "MPI_Isend"))
