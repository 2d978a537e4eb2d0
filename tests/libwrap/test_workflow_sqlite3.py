"""sqlite3 wrapped as a user would: ellipsis functions forwarded to their
va_list variants, declared-but-not-exported functions found and left out by
make and reported by make check, exact call counts in every mode."""
import subprocess

import pytest

from libwrap_runs import MODES, full_workflow, installcheck_experiment, visits

# how often tests/libwrap/examples/sqlite3_main.c calls each function
EXPECTED_CALLS = {"sqlite3_libversion": 1, "sqlite3_open": 1, "sqlite3_exec": 6, "sqlite3_mprintf": 5,
                  "sqlite3_free": 5, "sqlite3_prepare_v2": 1, "sqlite3_step": 6, "sqlite3_column_int": 5,
                  "sqlite3_column_text": 5, "sqlite3_finalize": 1, "sqlite3_close": 1}


@pytest.fixture(scope="module")
def sqlite(installed_prefix, tmp_path_factory):
    return full_workflow(tmp_path_factory.mktemp("libwrap-sqlite3"), installed_prefix, "sqlite3", "c",
                         "-lsqlite3 -lm", "sqlite3_main.c", headers=["sqlite3.h"])


def exported(library="/usr/lib/x86_64-linux-gnu/libsqlite3.so"):
    out = subprocess.run(["nm", "-D", "--defined-only", library], capture_output=True, text=True,
                         check=True).stdout
    return {line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()}


def excluded(filter_text):
    return {line.split()[-1] for line in filter_text.splitlines() if "EXCLUDE MANGLED" in line}


def test_ellipsis_functions_use_their_va_list_variants(sqlite):
    source = sqlite.read("scorep_libwrap_sqlite3_runtime.c")
    for name, variant in (("sqlite3_mprintf", "sqlite3_vmprintf"), ("sqlite3_snprintf", "sqlite3_vsnprintf")):
        assert name in sqlite.wrapped()
        assert f'"{variant}"' in source


def test_declared_but_not_exported_functions_are_left_out_and_reported(sqlite):
    missing = excluded(sqlite.read("missing.filter"))
    assert missing, "sqlite3.h declares functions Debian's library does not export"
    assert not missing & exported()
    assert not missing & set(sqlite.wrapped())
    assert "not exported" in sqlite.make_output.stdout
    assert "not exported by the library" in sqlite.check_output.stdout


def test_every_wrapped_function_is_exported(sqlite):
    assert set(sqlite.wrapped()) <= exported()


@pytest.mark.parametrize("mode", MODES)
def test_every_mode_counts_each_call_exactly(sqlite, mode):
    got = visits(installcheck_experiment(sqlite, mode))
    assert {name: got.get(name, 0) for name in EXPECTED_CALLS} == EXPECTED_CALLS
