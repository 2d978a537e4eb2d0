"""Bad input at each step of library wrapping: a clear message naming what is
wrong, a non-zero exit, nothing half-written, and the next make after the fix
works."""
import subprocess

import pytest

from libwrap_runs import init, tool_env

HEADER = """#ifndef DEMO_H
#define DEMO_H
int demo_add(int a, int b);
double demo_scale(double x, int times);
int demo_log(const char* format, ...);
int demo_vlog(const char* format, __builtin_va_list ap);
#endif
"""
SOURCE = """#include <stdarg.h>
#include <stdio.h>
#include "demo.h"
int demo_add(int a, int b) { return a + b; }
double demo_scale(double x, int times) { return x * times; }
int demo_vlog(const char* format, va_list ap) { return vprintf(format, ap); }
int demo_log(const char* format, ...) { va_list ap; va_start(ap, format); int n = demo_vlog(format, ap); va_end(ap); return n; }
"""
MAIN = """#include <stdio.h>
#include "libwrap.h"
int main(void) { demo_log("%d %g\\n", demo_add(2, 3), demo_scale(1.5, 4)); return 0; }
"""


@pytest.fixture(scope="module")
def demo_library(tmp_path_factory):
    d = tmp_path_factory.mktemp("demo-library")
    (d / "include").mkdir()
    (d / "include" / "demo.h").write_text(HEADER)
    (d / "demo.c").write_text(SOURCE)
    subprocess.run(["gcc", "-shared", "-fPIC", "-I", str(d / "include"), str(d / "demo.c"),
                    "-o", str(d / "libdemo.so")], check=True)
    return d


def demo_workdir(tmp, prefix, lib):
    work = init(tmp, prefix, "demo", "c", "-ldemo", "zlib_main.c", cppflags=f"-I{lib / 'include'}",
                ldflags=f"-L{lib} -Wl,-rpath,{lib}", headers=["demo.h"])
    (work.path / "main.c").write_text(MAIN)
    return work


def init_command(prefix, directory, libs="-ldemo", extra=()):
    return subprocess.run([str(prefix / "bin" / "scorep-libwrap-init"), "--name", "demo", "-x", "c",
                           "--libs", libs, *extra, str(directory)],
                          capture_output=True, text=True, env=tool_env(prefix))


def test_wrong_libs_is_refused_before_anything_is_written(installed_prefix, tmp_path):
    proc = init_command(installed_prefix, tmp_path / "w", libs="-lno_such_library_here")
    assert proc.returncode != 0
    assert "no_such_library_here" in proc.stderr and "--libs" in proc.stderr
    assert not (tmp_path / "w").exists()


def test_existing_directory_needs_update(installed_prefix, demo_library, tmp_path):
    work = demo_workdir(tmp_path, installed_prefix, demo_library)
    user_main = work.read("main.c")
    again = init_command(installed_prefix, work.path, extra=["--ldflags", f"-L{demo_library}"])
    assert again.returncode != 0 and "--update" in again.stderr
    updated = init_command(installed_prefix, work.path,
                           extra=["--update", "--ldflags", f"-L{demo_library} -Wl,-rpath,{demo_library}",
                                  "--cppflags", f"-I{demo_library / 'include'} -DDEMO_UPDATED"])
    assert updated.returncode == 0, updated.stderr
    assert "-DDEMO_UPDATED" in work.read("Makefile") and work.read("main.c") == user_main


def leftovers(path):
    return sorted(p.name for p in path.rglob("*.tmp"))


def fails_then_works(work, break_it, fix_it, *expected):
    break_it()
    proc = work.make(check=False)
    assert proc.returncode != 0
    for text in expected:
        assert text in proc.stderr + proc.stdout, proc.stderr
    assert leftovers(work.path) == []
    fix_it()
    work.make()
    assert "demo_add" in work.wrapped()


def test_a_header_that_does_not_parse(installed_prefix, demo_library, tmp_path):
    work = demo_workdir(tmp_path, installed_prefix, demo_library)
    good = work.read("libwrap.h")
    fails_then_works(work, lambda: (work.path / "libwrap.h").write_text(good + "int broken(;\n"),
                     lambda: (work.path / "libwrap.h").write_text(good), "libwrap.h", ":4")


def test_a_filter_with_a_syntax_error_names_its_line(installed_prefix, demo_library, tmp_path):
    work = demo_workdir(tmp_path, installed_prefix, demo_library)
    path = work.path / "demo.filter"
    fails_then_works(work,
                     lambda: path.write_text("SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE demo_scale\n"
                                             "SCOREP_FILE_NAMES_BEGIN\n"),
                     lambda: path.write_text("SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE demo_scale\n"
                                             "SCOREP_REGION_NAMES_END\n"),
                     "demo.filter", "line 3")
    assert "demo_scale" not in work.wrapped()


@pytest.mark.parametrize("rules, word, meant", [
    ("  EXCLUDE demo_scale\n  INLCUDE demo_*\n", "INLCUDE", "INCLUDE"),
    ("  EXCLUDE demo_scale\n  EXCLUDE MANGLD _Z*\n", "MANGLD", "MANGLED"),
    ("  EXCLUDE demo_scale\n  EXCLUDEMANGLED _Z*\n", "EXCLUDEMANGLED", "EXCLUDE MANGLED"),
])
def test_a_misspelled_filter_keyword_after_the_first_rule_is_an_error(installed_prefix, demo_library,
                                                                      tmp_path, rules, word, meant):
    """Not read as one more pattern (which, after EXCLUDE *, once left out
    every function): make fails naming the file, line, word and keyword."""
    work = demo_workdir(tmp_path, installed_prefix, demo_library)
    path = work.path / "demo.filter"
    fails_then_works(work,
                     lambda: path.write_text(f"SCOREP_REGION_NAMES_BEGIN\n{rules}SCOREP_REGION_NAMES_END\n"),
                     lambda: path.write_text("SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE demo_scale\n"
                                             "SCOREP_REGION_NAMES_END\n"),
                     "demo.filter: line 3", f"'{word}' is not a keyword", f"did you mean {meant}?",
                     "INCLUDE, EXCLUDE")


def test_an_unknown_mapping_symbol(installed_prefix, demo_library, tmp_path):
    work = demo_workdir(tmp_path, installed_prefix, demo_library)
    makefile = work.read("Makefile")
    variable = "LIBWRAP_ELLIPSIS_MAPPING_SYMBOLS ="
    fails_then_works(work,
                     lambda: (work.path / "Makefile").write_text(
                         makefile.replace(variable, variable + " demo_log:demo_vlogx")),
                     lambda: (work.path / "Makefile").write_text(
                         makefile.replace(variable, variable + " demo_log:demo_vlog")),
                     "LIBWRAP_ELLIPSIS_MAPPING_SYMBOLS", "demo_vlogx")
    assert "demo_log" in work.wrapped()


def test_an_unknown_parameter_name(installed_prefix, demo_library, tmp_path):
    work = demo_workdir(tmp_path, installed_prefix, demo_library)
    params = work.path / "demo.params"
    fails_then_works(work, lambda: params.write_text("demo_add: c\n"),
                     lambda: params.write_text("demo_add: b\n"), "demo_add", "'c'", "line 1")


PINNED_HEADER = """#pragma once
namespace demo {
struct Pinned {
    explicit Pinned(int v);
    Pinned(const Pinned&) = delete;
    Pinned(Pinned&&) = delete;
    int value;
};
int pinned_value(Pinned p);       // a wrapper cannot pass p on: no copy, no move
int twice(int x);
}
"""
PINNED_SOURCE = """#include "pinned.h"
namespace demo {
Pinned::Pinned(int v) : value(v) {}
int pinned_value(Pinned p) { return p.value; }
int twice(int x) { return 2 * x; }
}
"""


def test_a_wrapper_that_does_not_compile_is_left_out_with_the_reason(installed_prefix, tmp_path):
    lib = tmp_path / "pinned-library"
    (lib / "include").mkdir(parents=True)
    (lib / "include" / "pinned.h").write_text(PINNED_HEADER)
    (lib / "pinned.cc").write_text(PINNED_SOURCE)
    subprocess.run(["g++", "-shared", "-fPIC", "-I", str(lib / "include"), str(lib / "pinned.cc"),
                    "-o", str(lib / "libpinned.so")], check=True)
    work = init(tmp_path, installed_prefix, "pinned", "c++", "-lpinned", "jsoncpp_main.cc",
                cppflags=f"-I{lib / 'include'}", ldflags=f"-L{lib} -Wl,-rpath,{lib}", headers=["pinned.h"])
    (work.path / "main.cc").write_text('#include "libwrap.h"\n#include <cstdio>\n'
                                       'int main() { std::printf("%d\\n", demo::twice(21)); }\n')
    proc = work.make()
    assert "do not compile and are left out" in proc.stdout
    left_out = work.read("not_compiled.txt")
    assert left_out.startswith("demo::pinned_value(demo::Pinned)") and "Pinned" in left_out.split(":", 1)[1]
    wrapped = set(work.wrapped().values())
    assert "demo::twice(int)" in wrapped and "demo::Pinned::Pinned(int)" in wrapped
    assert not any(name.startswith("demo::pinned_value") for name in wrapped)
    work.make("install")
    work.make("installcheck")


def test_installcheck_checks_the_calls_the_example_makes_not_every_reference(installed_prefix, demo_library,
                                                                             tmp_path):
    """A wrapped function the example references on a path the run does not
    take is reported as not checked, not as a wrapper that failed."""
    work = demo_workdir(tmp_path, installed_prefix, demo_library)
    (work.path / "main.c").write_text(
        '#include <stdio.h>\n#include "libwrap.h"\n'
        'int main(int argc, char** argv) {\n'
        '    (void)argv;\n'
        '    double x = argc > 5 ? demo_scale(1.5, 4) : 0.0;   /* never taken */\n'
        '    printf("%d %g\\n", demo_add(2, 3), x);\n'
        '    return 0;\n}\n')
    work.make()
    work.make("install")
    check = work.make("installcheck")
    assert "not checked: 1 wrapped function(s)" in check.stdout and "demo_scale" in check.stdout
    table = [line.split() for line in check.stdout.splitlines() if line.startswith("demo_")]
    assert [row[0] for row in table] == ["demo_add"] and set(row[1:] == ["1"] * 5 for row in table) == {True}
