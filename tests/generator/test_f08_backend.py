"""The Fortran 2008 back-end: wrapper interfaces follow the mpi_f08 binding,
every task has an F08 snippet, and the exclusions say why."""
import re

import pytest

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
    # begin (enter, event generation off; with the communicator's id and the
    # send event, the send task's variant, which folds comm_id's) and end
    # (exit, on) around the call: MPICH's F08 layer calls the C MPI_Send,
    # which must not record again
    begin = ("= scorep_mpi_f08_begin_send(scorep_region_index, comm%MPI_VAL, &\n"
             "            dest, tag, int(count, c_int64_t), datatype%MPI_VAL, scorep_comm_id)")
    assert text.index(begin) < text.index("call PMPI_Send(")
    assert text.index("call PMPI_Send(") < text.index("call scorep_mpi_f08_end(scorep_region_id)")
    assert "scorep_mpi_f08_begin_comm" not in text


def test_sendrecv_begins_with_the_send_and_ends_with_the_receive_on_one_communicator_id():
    text = wrapper("MPI_Sendrecv")
    begin = text.index("scorep_region_id = scorep_mpi_f08_begin_send(")
    assert text.index("sendtype%MPI_VAL, scorep_comm_id)", begin) < text.index("call PMPI_Sendrecv(")
    end = "call scorep_mpi_f08_recv_end(scorep_region_id, scorep_comm_id, scorep_status, scorep_ierror)"
    assert text.index("call PMPI_Sendrecv(") < text.index(end)


def test_receive_event_and_end_are_one_call_after_the_pmpi_call():
    text = wrapper("MPI_Recv")
    end = "call scorep_mpi_f08_recv_end(scorep_region_id, scorep_comm_id, scorep_status, scorep_ierror)"
    assert text.index("call PMPI_Recv(") < text.index(end)
    assert "call scorep_mpi_f08_end(" not in text and text.count("scorep_mpi_f08_recv_end") == 1


def test_a_test_call_keeps_its_flag_branches_and_the_plain_end():
    text = wrapper("MPI_Test")
    assert "if (flag) then" in text and "call scorep_mpi_f08_end(scorep_region_id)" in text
    assert "scorep_mpi_f08_complete_end" not in text


def test_two_tasks_replacing_one_call_is_an_error_naming_both():
    import jinja2
    from types import SimpleNamespace
    from generator.errors import SpecError
    from generator.f08_backend import render_hooks
    snippet = "{% macro begin(w) %}scorep_region_id = x(){% endmacro %}"
    env = jinja2.Environment(loader=jinja2.DictLoader({"a.f08.j2": snippet, "b.f08.j2": snippet}))
    use = lambda name: SimpleNamespace(name=name, args={}, options={})
    plan = SimpleNamespace(proc=SimpleNamespace(name="MPI_Foo"), tasks=[use("a"), use("b")])
    with pytest.raises(SpecError) as error:
        render_hooks(env, plan)
    assert all(word in str(error.value) for word in ("MPI_Foo", "'a'", "'b'", "begin"))


def test_a_task_folding_another_takes_its_replacement_and_a_third_still_conflicts():
    import jinja2
    from types import SimpleNamespace
    from generator.errors import SpecError
    from generator.f08_backend import render_hooks
    env = jinja2.Environment(loader=jinja2.DictLoader({
        "a.f08.j2": "{% macro begin(w) %}scorep_region_id = a(){% endmacro %}",
        "b.f08.j2": '{% set folds = "a" %}{% macro begin(w) %}scorep_region_id = b(){% endmacro %}',
        "c.f08.j2": "{% macro begin(w) %}scorep_region_id = c(){% endmacro %}"}))
    use = lambda name: SimpleNamespace(name=name, args={}, options={})
    for order in (["a", "b"], ["b", "a"]):
        plan = SimpleNamespace(proc=SimpleNamespace(name="MPI_Foo"), tasks=[use(n) for n in order])
        assert render_hooks(env, plan)[0]["begin"] == "scorep_region_id = b()"
    plan = SimpleNamespace(proc=SimpleNamespace(name="MPI_Foo"), tasks=[use("a"), use("b"), use("c")])
    with pytest.raises(SpecError) as error:
        render_hooks(env, plan)
    assert all(word in str(error.value) for word in ("MPI_Foo", "'b'", "'c'", "begin"))


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
