"""What `make` in a library-wrapping working directory rebuilds, and how it
builds: a setting rebuilds only the steps that read it; a large wrapper
source is split into parts compiled once each, and the libraries built from
them export exactly the wrapped symbols (checked with nm)."""
import re
import subprocess

import pytest

from libwrap_runs import init, run, visits

# LIBWRAP_WRAPPERS_PER_FILE = 50 splits each mode's 120 wrappers into three
# sources of 40 (the default, 2,500, behaves alike for larger libraries)
FUNCTIONS = 120
PARTS = 3


@pytest.fixture(scope="module")
def many_library(tmp_path_factory):
    """libmany.so: many_0 ... many_N, int (int), each adding its number."""
    d = tmp_path_factory.mktemp("many-library")
    (d / "include").mkdir()
    (d / "include" / "many.h").write_text(
        "".join(f"int many_{i}(int x);\n" for i in range(FUNCTIONS)))
    (d / "many.c").write_text("".join(f"int many_{i}(int x) {{ return x + {i}; }}\n"
                                      for i in range(FUNCTIONS)))
    subprocess.run(["gcc", "-shared", "-fPIC", "-O0", str(d / "many.c"), "-o", str(d / "libmany.so")],
                   check=True)
    return d


MAIN = """#include <stdio.h>
#include "libwrap.h"
int main(void) { printf("%d\\n", many_0(1) + many_FIRST_OF_PART_2(1)); return 0; }
"""


@pytest.fixture(scope="module")
def many(installed_prefix, many_library, tmp_path_factory):
    work = init(tmp_path_factory.mktemp("libwrap-many"), installed_prefix, "many", "c", "-lmany",
                "zlib_main.c", cppflags=f"-I{many_library / 'include'}",
                ldflags=f"-L{many_library} -Wl,-rpath,{many_library}", headers=["many.h"])
    # many_118 is in the last part of each mode
    (work.path / "main.c").write_text(MAIN.replace("many_FIRST_OF_PART_2", f"many_{FUNCTIONS - 2}"))
    set_setting(work, "LIBWRAP_WRAPPERS_PER_FILE", "50")
    work.first_make = work.make("-j2")
    return work


def commands(proc):
    return [line for line in proc.stdout.splitlines()
            if line and not line.startswith(("scorep-libwrap:", "make:", "make["))]


def compiled_sources(proc):
    """The wrapper sources a make compiled (`-c ... scorep_libwrap_*.c`)."""
    return sorted(w for line in commands(proc) if " -c " in line
                  for w in line.split() if re.match(r"scorep_libwrap_\w+\.c$", w))


def set_setting(work, variable, value):
    path = work.path / "Makefile"
    text, n = re.subn(rf"(?m)^{variable} =.*$", f"{variable} = {value}", path.read_text())
    assert n == 1
    path.write_text(text)


def defined_symbols(library):
    out = subprocess.run(["nm", "-D", "--defined-only", str(library)], capture_output=True, text=True,
                         check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.split()[-2] in ("T", "W")}


def test_a_large_source_is_split_and_each_part_compiled_once(many):
    names = {f"scorep_libwrap_many_{mode}_{k}.c" for mode in ("linktime", "runtime") for k in range(1, PARTS + 1)}
    assert {p.name for p in many.path.glob("scorep_libwrap_many_*.c")} == names
    # one compile per part: the shared and the static library share the objects
    assert compiled_sources(many.first_make) == sorted(names)


def test_the_split_libraries_export_exactly_the_wrapped_symbols(many):
    wrapped = set(many.wrapped())
    assert wrapped == {f"many_{i}" for i in range(FUNCTIONS)}
    lib = many.path
    assert defined_symbols(lib / "libscorep_libwrap_many_runtime.so") >= wrapped
    assert {s for s in defined_symbols(lib / "libscorep_libwrap_many_runtime.so")
            if s.startswith("many_")} == wrapped
    assert {s for s in defined_symbols(lib / "libscorep_libwrap_many_linktime.so")
            if "many_" in s} == {f"__wrap_{s}" for s in wrapped}
    # the shared link-time library calls the library's own function, not __real_
    undefined = subprocess.run(["nm", "-D", "--undefined-only", str(lib / "libscorep_libwrap_many_linktime.so")],
                               capture_output=True, text=True, check=True).stdout.split()
    assert "many_7" in undefined and not [w for w in undefined if w.startswith("__real_")]
    static = subprocess.run(["nm", str(lib / "libscorep_libwrap_many_linktime.a")], capture_output=True,
                            text=True, check=True).stdout.split()
    assert {w for w in static if w.startswith("__wrap_")} == {f"__wrap_{s}" for s in wrapped}


def test_calls_into_the_first_and_the_last_part_are_measured(many, installed_prefix, tmp_path):
    many.make("install")
    proc = run([installed_prefix / "bin" / "scorep-exec", "--libwrap=many", "--", many.path / "main"],
               installed_prefix, tmp_path, tmp_path / "exp",
               extra_env={"SCOREP_LIBWRAP_PATH": str(many.libwrap_prefix)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"{2 + FUNCTIONS - 2}\n"
    got = visits(tmp_path / "exp")
    assert got.get("many_0") == 1 and got.get(f"many_{FUNCTIONS - 2}") == 1


def test_changing_the_libraries_rebuilds_neither_the_header_nor_the_wrappers(many, many_library):
    def times():
        files = [p for p in many.path.glob("*") if p.suffix in (".i", ".o", ".c")]
        files += list(many.path.glob(".scorep_check/scan.pickle"))
        return {p.name: p.stat().st_mtime_ns for p in files}
    before = times()
    # the same library named by its path: the scan and the sources stay the same
    set_setting(many, "LIBWRAP_LIBS", str(many_library / "libmany.so"))
    proc = many.make()
    assert compiled_sources(proc) == []
    assert not [line for line in commands(proc) if " -E " in line]
    # neither libwrap.i, nor the scan's result, nor a source or an object was written again
    assert times() == before
    # what reads the setting did run: the example and the shared libraries are linked again
    assert any(line.endswith(f"{many_library / 'libmany.so'}") and "main.c" in line for line in commands(proc))
    assert str(many_library / "libmany.so") in many.read("many.target-libs")
    # and nothing runs again when nothing changed
    assert commands(many.make()) == []


def test_changing_the_preprocessor_flags_rebuilds_the_header_and_the_wrappers(many, many_library):
    set_setting(many, "LIBWRAP_CPPFLAGS", f"-I{many_library / 'include'} -DMANY_UNUSED=1")
    proc = many.make()
    assert [line for line in commands(proc) if " -E " in line and "-DMANY_UNUSED=1" in line]
    assert len(compiled_sources(proc)) == 2 * PARTS
    assert all("-DMANY_UNUSED=1" in line for line in commands(proc) if " -c " in line)


def test_a_bad_wrappers_per_file_is_refused_with_its_name(many):
    set_setting(many, "LIBWRAP_WRAPPERS_PER_FILE", "many")
    proc = many.make(check=False)
    assert proc.returncode != 0
    assert "LIBWRAP_WRAPPERS_PER_FILE: 'many' is not a positive whole number" in proc.stderr
    set_setting(many, "LIBWRAP_WRAPPERS_PER_FILE", "50")
    assert compiled_sources(many.make()) == []
