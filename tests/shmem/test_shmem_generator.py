"""The SHMEM adapter's generation (tasks/shmem.json over Open MPI's shmem.h,
generator/system_backend.py): generated/shmem/ is what the catalogue renders
today; every wrapped function is one liboshmem defines (a wrapper of one it
does not would break every link) and every shmem_* function it defines and
the header declares is wrapped or excluded with a reason; a catalogue or
header that is wrong stops the generator with an error naming it."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

from conftest import REPO

CATALOGUE = REPO / "tasks" / "shmem.json"
GENERATED = REPO / "generated" / "shmem"
LIBOSHMEM = pathlib.Path("/usr/lib/x86_64-linux-gnu/liboshmem.so.40")
HEADER = pathlib.Path("/usr/lib/x86_64-linux-gnu/openmpi/include/shmem.h")

pytestmark = pytest.mark.skipif(not (LIBOSHMEM.exists() and HEADER.exists()),
                                reason="Open MPI's oshmem (liboshmem, shmem.h) not installed")


def render(tmp_path, catalogue=CATALOGUE, env=None):
    """Renders the catalogue into tmp_path/out in a fresh interpreter; (exit
    code, stderr, {relative path: text})."""
    code = ("import sys, pathlib\n"
            "from generator.errors import SpecError\n"
            "from generator.system_backend import render_system_adapter\n"
            "out = {}\n"
            "try:\n"
            f"    render_system_adapter(pathlib.Path({str(tmp_path / 'out')!r}), "
            "lambda p, t: out.__setitem__(str(p), t), "
            f"pathlib.Path({str(catalogue)!r}))\n"
            "except SpecError as e:\n"
            "    print(f'error: {e}', file=sys.stderr); sys.exit(1)\n"
            "import json; print(json.dumps(out))\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                          env=dict(os.environ, **(env or {})))
    files = {}
    if proc.returncode == 0:
        files = {str(pathlib.Path(p).relative_to(tmp_path / "out" / "shmem")): t
                 for p, t in json.loads(proc.stdout).items()}
    return proc.returncode, proc.stderr, files


def test_generated_shmem_is_what_the_catalogue_renders(tmp_path):
    code, err, files = render(tmp_path)
    assert code == 0, err
    committed = {p.name: p.read_text() for p in GENERATED.iterdir()}
    assert files.keys() == committed.keys()
    for name, text in files.items():
        assert text == committed[name], f"generated/shmem/{name} differs from a fresh rendering"


def exported():
    out = subprocess.run(["nm", "-D", "--defined-only", str(LIBOSHMEM)], capture_output=True, text=True,
                         check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.split()}


def test_wrapped_functions_are_defined_by_liboshmem():
    wrapped = set((GENERATED / "wrapped.txt").read_text().split())
    assert len(wrapped) > 400
    assert not wrapped - exported()


def test_every_declared_api_function_is_wrapped_or_excluded():
    from generator.system_backend import compiler, declared_functions
    declared = declared_functions(compiler(), ["shmem.h"], [f"-I{HEADER.parent}"], CATALOGUE)
    wrapped = set((GENERATED / "wrapped.txt").read_text().split())
    excluded = {line.split(":")[0] for line in (GENERATED / "excluded.txt").read_text().splitlines()}
    api = {name for name in exported() & set(declared) if name.startswith("shmem_") or name == "start_pes"}
    assert api - wrapped - excluded == set()
    for line in (GENERATED / "excluded.txt").read_text().splitlines():
        assert line.split(": ", 1)[1].strip(), line


def changed_catalogue(tmp_path, change):
    raw = json.loads(CATALOGUE.read_text())
    change(raw)
    path = tmp_path / "shmem.json"
    path.write_text(json.dumps(raw))
    return path


def test_header_named_by_variable_must_exist(tmp_path):
    code, err, _ = render(tmp_path, env={"SCOREP_SHMEM_HEADER": str(tmp_path / "nowhere" / "shmem.h")})
    assert code == 1
    assert f"SCOREP_SHMEM_HEADER names {tmp_path / 'nowhere' / 'shmem.h'}, which does not exist" in err


def test_missing_header_says_what_to_install(tmp_path):
    path = changed_catalogue(tmp_path, lambda raw: raw["header"].update(search=[str(tmp_path)]))
    code, err, _ = render(tmp_path, path, env={"SCOREP_SHMEM_HEADER": ""})
    assert code == 1
    assert "shmem.h not found" in err and "apt-get install libopenmpi-dev" in err
    assert "SCOREP_SHMEM_HEADER=/path/to/shmem.h" in err


def test_functions_named_both_ways_is_an_error(tmp_path):
    path = changed_catalogue(tmp_path, lambda raw: raw.update(functions=["shmem_init"]))
    code, err, _ = render(tmp_path, path)
    assert code == 1 and "both 'functions' and 'functions_match'" in err


def test_exclusion_without_reason_is_an_error(tmp_path):
    path = changed_catalogue(tmp_path, lambda raw: raw["exclude"][0].pop("why"))
    code, err, _ = render(tmp_path, path)
    assert code == 1 and "an exclusion needs a 'why'" in err


def test_rule_that_cannot_bind_its_task_names_the_function(tmp_path):
    """shmem_<type>_p has no len: its rule binds len to nothing; without that,
    the generator cannot tell which integer is the count."""
    def change(raw):
        rule = next(r for r in raw["rules"] if r["match"] == "shmem_\\w+_p")
        rule["tasks"][1]["args"].pop("len")
    code, err, _ = render(tmp_path, changed_catalogue(tmp_path, change))
    assert code == 1
    assert "shmem_char_p" in err and "task 'shmem_put' needs argument 'len'" in err
