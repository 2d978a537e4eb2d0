"""MPI I/O bytes go the way the data goes: every read-like procedure (MPI_File_read*,
MPI_File_iread*, their _all, _at, _shared, _ordered and split-collective _begin
forms) records bytes read, every write-like one bytes written, in the C, the
mpif.h and the mpi_f08 wrappers. The expectation is taken from the MPI spec,
not from the catalogue: a procedure reads from the file when its choice buffer
is an output of the call (the standard's `param_direction` of `buf`), writes
when it is an input; its name (read/iread vs write/iwrite) must agree.
Bytes of a non-blocking call or a split collective are recorded once, at the
call that starts it (the request's size): the _end call records none."""
import re

import pytest

from conftest import REPO
from generator.errors import SpecError
from generator.specs import load_spec
from generator.tasks import Catalogue

GENERATED = {"c": REPO / "generated/mpi/c/wrap_io.c",
             "f90": REPO / "generated/mpi/fortran/wrap_io.c",
             "f08": REPO / "generated/mpi/f08/wrap_io.F90"}
# the wrapper's guard in each generated file: one block per procedure
GUARD = {"c": r"SCOREP_WRAPGEN_HAVE_", "f90": r"SCOREP_MPIF_HAVE_", "f08": r"SCOREP_F08_HAVE_"}
# the call of the core in each language: (bytes read, bytes written)
READ = {"c": "scorep_io_bytes(scorep_bytes, 0)", "f90": "scorep_io_bytes(scorep_bytes, 0)",
        "f08": "call scorep_io_bytes(scorep_io_moved, 0_c_int64_t)"}
WRITE = {"c": "scorep_io_bytes(0, scorep_bytes)", "f90": "scorep_io_bytes(0, scorep_bytes)",
         "f08": "call scorep_io_bytes(0_c_int64_t, scorep_io_moved)"}


def file_data_procedures():
    """{name: 'read' | 'write'} of the spec's MPI_File procedures that move data
    between memory and the file, from the direction of their choice buffer."""
    moving = {}
    for proc in load_spec().callable_procedures():
        if not proc.name.startswith("MPI_File_"):
            continue
        buffers = [p for p in proc.parameters if p.kind.endswith("BUFFER")]
        if buffers:
            assert len(buffers) == 1, proc.name
            moving[proc.name] = {"out": "read", "in": "write"}[buffers[0].direction]
    return moving


def test_spec_names_and_buffer_directions_agree():
    moving = file_data_procedures()
    # the standard's own list: 5 iread, 5 iwrite, and the blocking/split forms
    assert len([n for n in moving if re.match(r"MPI_File_iread(_\w+)?$", n) and not n.endswith("_c")]) == 5
    for name, direction in moving.items():
        word = re.match(r"MPI_File_i?(read|write)", name).group(1)
        assert word == direction, name


@pytest.mark.parametrize("binding", ["c", "f90", "f08"])
def test_every_file_read_records_bytes_read_and_every_write_bytes_written(binding):
    catalogue = Catalogue()
    spec = load_spec()
    wrong, missing = [], []
    for name, direction in file_data_procedures().items():
        proc = next(p for p in spec.callable_procedures() if p.name == name)
        if catalogue.excluded(name, binding) or not proc.has_binding(binding):
            continue
        uses = [u for u in catalogue.plan(proc, binding).tasks if u.name == "io_bytes"]
        if name.removesuffix("_c").endswith("_end"):
            # a split collective's bytes were recorded at its _begin
            assert uses == [], name
            continue
        if len(uses) != 1:
            missing.append(name)
        elif uses[0].options.get("direction") != direction:
            wrong.append((name, uses[0].options.get("direction"), direction))
    assert missing == [] and wrong == []


def generated_blocks(binding):
    """{procedure: its wrapper's text} of a committed generated/ I/O file."""
    text = GENERATED[binding].read_text()
    parts = re.split(r"^#if " + GUARD[binding] + r"(\w+)\n", text, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


@pytest.mark.parametrize("binding", ["c", "f90", "f08"])
def test_generated_wrappers_record_io_bytes_in_the_spec_direction(binding):
    blocks = generated_blocks(binding)
    checked = 0
    for name, direction in file_data_procedures().items():
        block = blocks.get(name)
        if block is None:
            continue
        if name.removesuffix("_c").endswith("_end"):
            assert "scorep_io_bytes" not in block, name
            continue
        expect, other = (READ, WRITE) if direction == "read" else (WRITE, READ)
        assert block.count(expect[binding]) == 1 and other[binding] not in block, name
        checked += 1
    # every binding wraps the non-blocking reads at least
    for name in ("MPI_File_iread", "MPI_File_iread_at", "MPI_File_iread_all",
                 "MPI_File_iread_at_all", "MPI_File_iread_shared"):
        assert name in blocks, name
    assert checked >= 40 if binding == "c" else checked >= 20


def catalogue_with(tmp_path, change):
    import json
    raw = json.loads((REPO / "tasks/scorep.json").read_text())
    change(raw)
    path = tmp_path / "scorep.json"
    path.write_text(json.dumps(raw))
    return path


def io_rule(raw, name):
    return next(r for r in raw["rules"] if r["match"] == name)


@pytest.mark.parametrize("options, message", [
    ({}, "task 'io_bytes' needs option 'direction' (one of read, write)"),
    ({"direction": "in"}, "option 'direction' is 'in', not one of read, write"),
    ({"direction": "read", "way": "x"}, "task 'io_bytes' has no option 'way'"),
])
def test_io_bytes_without_a_valid_direction_is_a_catalogue_error(tmp_path, options, message):
    def change(raw):
        io_rule(raw, "MPI_File_iread(_at|_shared)?(_all)?")["tasks"] = [{"task": "io_bytes", "options": options}]
    with pytest.raises(SpecError) as error:
        Catalogue(catalogue_with(tmp_path, change))
    assert message in str(error.value) and "MPI_File_iread(_at|_shared)?(_all)?" in str(error.value)
