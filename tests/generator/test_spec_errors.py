"""Malformed spec files: one clear error naming file, entry and parameter; exit 1."""
import json
import subprocess
import sys

import pytest

from conftest import REPO

GOOD_ENTRY = {
    "name": "MPI_Foo", "name_f90": None, "return_kind": "ERROR_CODE",
    "attributes": {"c_expressible": True, "f90_expressible": True, "f08_expressible": True,
                   "callback": False, "predefined_function": None},
    "parameters": [
        {"name": "buf", "kind": "BUFFER", "param_direction": "in", "length": None},
        {"name": "count", "kind": "POLYXFER_NUM_ELEM_NNI", "param_direction": "in", "length": None},
        {"name": "ranks", "kind": "RANK", "param_direction": "in", "length": "count"},
    ],
}


def run_specs(specs_dir):
    return subprocess.run([sys.executable, "-m", "generator", "specs", "--summary",
                           "--specs-dir", str(specs_dir)], cwd=REPO, capture_output=True, text=True)


def spec_dir_with(tmp_path, text):
    (tmp_path / "mpi-4.0.apis.json").write_text(text)
    return tmp_path


def entry_with(change):
    entry = json.loads(json.dumps(GOOD_ENTRY))
    change(entry)
    return json.dumps({"mpi_foo": entry})


def test_valid_minimal_spec_is_accepted(tmp_path):
    result = run_specs(spec_dir_with(tmp_path, entry_with(lambda e: None)))
    assert result.returncode == 0, result.stderr
    assert "MPI 4.0: 1 procedures" in result.stdout


CASES = {
    "bad JSON": ('{"mpi_foo": {"name": "MPI_Foo",,}}', ["mpi-4.0.apis.json", "not valid JSON", "line 1"]),
    "unknown kind": (entry_with(lambda e: e["parameters"][1].update(kind="COUNTT")),
                     ["mpi-4.0.apis.json", "MPI_Foo", "'count'", "unknown kind 'COUNTT'"]),
    "missing field": (entry_with(lambda e: e["parameters"][0].pop("kind")),
                      ["mpi-4.0.apis.json", "MPI_Foo", "'buf'", "missing field 'kind'"]),
    "missing entry field": (entry_with(lambda e: e.pop("parameters")),
                            ["mpi-4.0.apis.json", "MPI_Foo", "missing field 'parameters'"]),
    "bad length": (entry_with(lambda e: e["parameters"][2].update(length="n")),
                   ["mpi-4.0.apis.json", "MPI_Foo", "'ranks'", "length 'n' names no parameter"]),
    "unknown direction": (entry_with(lambda e: e["parameters"][0].update(param_direction="sideways")),
                          ["MPI_Foo", "'buf'", "unknown direction 'sideways'"]),
    "duplicate parameter": (entry_with(lambda e: e["parameters"].append(dict(e["parameters"][0]))),
                            ["MPI_Foo", "'buf'", "duplicate parameter"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_malformed_spec_gives_one_located_error(tmp_path, case):
    text, expected = CASES[case]
    result = run_specs(spec_dir_with(tmp_path, text))
    assert result.returncode == 1
    errors = result.stderr.strip().splitlines()
    assert len(errors) == 1, result.stderr
    for fragment in expected:
        assert fragment in errors[0], f"{fragment!r} not in {errors[0]!r}"
    assert "Traceback" not in result.stderr


def test_removed_interface_needs_its_removal_version(tmp_path):
    spec_dir_with(tmp_path, entry_with(lambda e: None))
    (tmp_path / "removed.apis.json").write_text(
        entry_with(lambda e: e.update(name="MPI_Bar")).replace("mpi_foo", "mpi_bar"))
    result = run_specs(tmp_path)
    assert result.returncode == 1
    assert "removed.apis.json" in result.stderr and "MPI_Bar" in result.stderr


def test_later_version_keeps_first_version_and_takes_new_definition(tmp_path):
    from generator.specs import load_spec
    spec_dir_with(tmp_path, entry_with(lambda e: None))
    (tmp_path / "mpi-4.1.apis.json").write_text(
        entry_with(lambda e: e["parameters"].pop()))
    (tmp_path / "mpi-5.0.apis.json").write_text(
        entry_with(lambda e: e.update(name="MPI_Bar")).replace("mpi_foo", "mpi_bar"))
    spec = load_spec(tmp_path)
    assert spec["MPI_Foo"].since == "4.0"
    assert [p.name for p in spec["MPI_Foo"].parameters] == ["buf", "count"]
    assert spec["MPI_Bar"].since == "5.0"
    assert [p.name for p in spec.in_version("4.1")] == ["MPI_Foo"]


def test_large_count_variant_has_count_types(tmp_path):
    from generator.kinds import CRenderer, load_kinds
    from generator.specs import load_spec
    spec = load_spec(spec_dir_with(tmp_path, entry_with(lambda e: None)))
    variants = [p.name for p in spec.callable_procedures()]
    assert variants == ["MPI_Foo", "MPI_Foo_c"]
    large = list(spec.callable_procedures())[1]
    assert CRenderer(load_kinds()).prototype(large) == \
        "int MPI_Foo_c(void *buf, MPI_Count count, int ranks[])"
