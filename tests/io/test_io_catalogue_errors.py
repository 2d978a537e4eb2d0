"""A system catalogue (tasks/posix_io.json, tasks/isoc_io.json) that does not fit the system's
headers stops `regenerate` with an error naming the catalogue, the entry and
what is wrong (generator/system_backend.py), instead of wrappers that drop an
argument or a function silently."""
import json
import subprocess
import sys


from conftest import REPO

CATALOGUE = REPO / "tasks" / "posix_io.json"
ISOC = REPO / "tasks" / "isoc_io.json"


def regenerate_with(tmp_path, change, original=CATALOGUE):
    """`python3 -m generator regenerate`'s system-adapter step on a changed
    copy of the catalogue: (exit code, stderr)."""
    raw = json.loads(original.read_text())
    change(raw)
    catalogue = tmp_path / original.name
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


def test_function_the_headers_do_not_declare_is_named(tmp_path):
    code, err, path = regenerate_with(tmp_path, lambda raw: raw["functions"].append("no_such_call"))
    assert code == 1
    assert path in err and "no_such_call: not declared by fcntl.h, unistd.h, sys/uio.h" in err
    assert "add the header that declares it" in err


def test_ellipsis_function_without_its_argument_is_an_error(tmp_path):
    code, err, path = regenerate_with(tmp_path, lambda raw: raw.pop("ellipsis"))
    assert code == 1
    assert f"{path}, entry 'open': declared with an ellipsis" in err


def test_wrong_number_of_parameter_names_is_an_error(tmp_path):
    code, err, path = regenerate_with(tmp_path, lambda raw: raw["parameters"].update(close=["fd", "extra"]))
    assert code == 1
    assert f"{path}, entry 'close': 2 parameter names for 1 parameters (int)" in err


def test_fortified_variant_of_an_unwrapped_function_is_an_error(tmp_path):
    def change(raw):
        raw["functions"].remove("pread64")
        del raw["parameters"]["pread64"]
    code, err, path = regenerate_with(tmp_path, change)
    assert code == 1
    assert f"{path}, entry '__pread64_chk': fortified variant of 'pread64'" in err


def test_ellipsis_function_without_its_va_list_variant_is_an_error(tmp_path):
    code, err, path = regenerate_with(tmp_path, lambda raw: raw.pop("va_list"), ISOC)
    assert code == 1
    assert f"{path}, entry 'fprintf': declared with an ellipsis: name its va_list variant in 'va_list'" in err


def test_va_list_variant_the_headers_do_not_declare_is_named(tmp_path):
    code, err, path = regenerate_with(tmp_path, lambda raw: raw["va_list"]["functions"].update(printf="vprintf_x"),
                                      ISOC)
    assert code == 1
    assert path in err and "vprintf_x: not declared by stdio.h" in err


def test_va_list_entry_of_a_function_without_ellipsis_is_an_error(tmp_path):
    code, err, path = regenerate_with(tmp_path, lambda raw: raw["va_list"]["functions"].update(fputs="vfprintf"),
                                      ISOC)
    assert code == 1
    assert f"{path}, entry 'fputs': in 'va_list', but declared without an ellipsis" in err
