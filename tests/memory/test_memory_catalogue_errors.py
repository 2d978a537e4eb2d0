"""tasks/memory.json's by_symbol entries (C++'s operator new and delete,
given by linker symbol and a C declaration): one that does not declare its
symbol, or lacks a field, stops `regenerate` with an error naming the
catalogue and the entry (generator/system_backend.py)."""
import json
import subprocess
import sys

from conftest import REPO

CATALOGUE = REPO / "tasks" / "memory.json"


def regenerate_with(tmp_path, change):
    raw = json.loads(CATALOGUE.read_text())
    change(raw)
    catalogue = tmp_path / "memory.json"
    catalogue.write_text(json.dumps(raw))
    code = ("import sys, pathlib\n"
            "from generator.errors import SpecError\n"
            "from generator.system_backend import render_system_adapter\n"
            "try:\n"
            f"    render_system_adapter(pathlib.Path({str(tmp_path / 'out')!r}), lambda p, t: None, "
            f"pathlib.Path({str(catalogue)!r}))\n"
            "except SpecError as e:\n"
            "    print(f'error: {e}', file=sys.stderr); sys.exit(1)\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    return proc.returncode, proc.stderr, str(catalogue)


def test_by_symbol_declaration_of_another_name_is_an_error_naming_the_entry(tmp_path):
    def change(raw):
        raw["by_symbol"]["functions"]["_Znwm"]["declaration"] = "void* _Znwx(size_t size)"
    code, err, path = regenerate_with(tmp_path, change)
    assert code == 1
    assert f"{path}, entry '_Znwm'" in err and "declares no function '_Znwm'" in err


def test_by_symbol_entry_without_declaration_is_an_error(tmp_path):
    code, err, path = regenerate_with(tmp_path, lambda raw: raw["by_symbol"]["functions"]["_ZdlPv"].pop("declaration"))
    assert code == 1
    assert f"{path}, entry '_ZdlPv'" in err and "needs 'region' and 'declaration'" in err


def test_by_symbol_without_why_is_an_error(tmp_path):
    code, err, path = regenerate_with(tmp_path, lambda raw: raw["by_symbol"].pop("why"))
    assert code == 1
    assert path in err and "'by_symbol' needs 'header', 'functions' and 'why'" in err
