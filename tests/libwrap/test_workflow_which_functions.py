"""Which functions `make` wraps, and the numbers it reports: by default the
functions of the library libwrap.h names, not those of its dependencies
whose headers share an -I directory (Qt's QtGui and QtCore); a dependency's
functions when LIBWRAP_DEPENDENCY_DIRS names it; one summary where the
declared functions add up (wrapped + not wrappable + not exported +
filtered); and no "success" with nothing wrapped.

The two small libraries are laid out like Qt's: one -I prefix holding both
libraries' header directories (base/ and top/), top's headers including
base's, and the link line naming both (as pkg-config prints it)."""
import json
import pathlib
import re
import subprocess

import pytest

from libwrap_runs import init

BASE_H = """#pragma once
int base_add(int a, int b);
int base_twice(int x);
"""
# top: one of each kind of declaration the summary sorts
TOP_H = """#pragma once
#include <base/base.h>
int top_sum(int n);                                   /* wrapped */
int top_hidden(int n);                                /* excluded by top.filter */
int top_undefined(int n);                             /* declared, not exported */
static inline int top_inline(int x) { return x; }     /* not wrappable: static */
int top_log(const char* format, ...);                 /* not wrappable: no va_list variant */
"""
BASE_C = """#include <base/base.h>
int base_add(int a, int b) { return a + b; }
int base_twice(int x) { return 2 * x; }
"""
TOP_C = """#include <top.h>
int top_sum(int n) { return base_add(n, base_twice(n)); }
int top_hidden(int n) { return n; }
int top_log(const char* format, ...) { (void)format; return 0; }
"""
MAIN = """#include <stdio.h>
#include "libwrap.h"
int main(void) { printf("%d %d\\n", top_sum(2), base_add(1, 2)); return 0; }
"""
FILTER = "SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE top_hidden\nSCOREP_REGION_NAMES_END\n"


@pytest.fixture(scope="module")
def libraries(tmp_path_factory):
    d = tmp_path_factory.mktemp("two-libraries")
    (d / "include" / "base").mkdir(parents=True)
    (d / "include" / "top").mkdir()
    (d / "include" / "base" / "base.h").write_text(BASE_H)
    (d / "include" / "top" / "top.h").write_text(TOP_H)
    (d / "base.c").write_text(BASE_C)
    (d / "top.c").write_text(TOP_C)
    inc = ["-I", str(d / "include"), "-I", str(d / "include" / "top")]
    subprocess.run(["gcc", "-shared", "-fPIC", *inc, str(d / "base.c"), "-o", str(d / "libbase.so")],
                   check=True)
    subprocess.run(["gcc", "-shared", "-fPIC", *inc, str(d / "top.c"), "-o", str(d / "libtop.so"),
                    f"-L{d}", "-lbase"], check=True)
    return d


def top_workdir(tmp, prefix, lib, libs="-ltop -lbase", name="top"):
    work = init(tmp, prefix, name, "c", libs, "zlib_main.c",
                cppflags=f"-I{lib / 'include'} -I{lib / 'include' / 'top'}",
                ldflags=f"-L{lib} -Wl,-rpath,{lib}", headers=["top.h"])
    (work.path / "main.c").write_text(MAIN)
    (work.path / f"{name}.filter").write_text(FILTER)
    return work


def exported(library):
    """The functions a shared library defines (nm -D: the oracle), without
    their symbol versions (@@Qt_5)."""
    out = subprocess.run(["nm", "-D", "--defined-only", str(library)], capture_output=True, text=True,
                         check=True).stdout
    return {line.split()[-1].split("@")[0] for line in out.splitlines() if line.split()[1:2] in (["T"], ["W"])}


def summary(output):
    """The numbers of make's summary line."""
    line = next(line for line in output.splitlines() if " functions declared in " in line)
    numbers = {"declared": int(re.search(r"(\d+) functions declared", line).group(1))}
    for key, pattern in (("wrapped", r"(\d+) wrapped"), ("not wrappable", r"(\d+) not wrappable"),
                         ("not exported", r"(\d+) not exported"), ("filtered", r"(\d+) excluded by"),
                         ("not compiling", r"(\d+) do not compile")):
        m = re.search(pattern, line)
        numbers[key] = int(m.group(1)) if m else 0
    return line, numbers


def test_the_named_library_is_wrapped_not_its_dependency_sharing_the_include_dir(installed_prefix,
                                                                                 libraries, tmp_path):
    work = top_workdir(tmp_path, installed_prefix, libraries)
    proc = work.make()
    wrapped = set(work.wrapped())
    assert wrapped == {"top_sum"} and wrapped <= exported(libraries / "libtop.so")
    # base's functions are named, with where they are and how to have them too
    assert "LIBWRAP_DEPENDENCY_DIRS" in proc.stdout and str(libraries / "include" / "base") in proc.stdout
    # ... which the setting does (a directory that is not there is an error, not ignored)
    makefile = work.read("Makefile")
    (work.path / "Makefile").write_text(makefile.replace(
        "LIBWRAP_DEPENDENCY_DIRS =", "LIBWRAP_DEPENDENCY_DIRS = ../no-such-include/base", 1))
    bad = work.make(check=False)
    assert bad.returncode != 0 and "LIBWRAP_DEPENDENCY_DIRS: '../no-such-include/base' does not exist" in bad.stderr
    (work.path / "Makefile").write_text(makefile.replace(
        "LIBWRAP_DEPENDENCY_DIRS =", f"LIBWRAP_DEPENDENCY_DIRS = {libraries / 'include' / 'base'}", 1))
    work.make()
    assert set(work.wrapped()) == {"top_sum", "base_add", "base_twice"}


def test_the_summary_adds_up_to_the_declared_functions(installed_prefix, libraries, tmp_path):
    work = top_workdir(tmp_path, installed_prefix, libraries)
    line, numbers = summary(work.make().stdout)
    # top.h declares 5 functions: 1 wrapped, 2 not wrappable, 1 not exported, 1 filtered
    assert numbers == {"declared": 5, "wrapped": 1, "not wrappable": 2, "not exported": 1,
                       "filtered": 1, "not compiling": 0}, line
    assert "1 static" in line and "1 variable arguments" in line      # the reasons, counted
    # each number is what the file it points to lists
    assert len(work.wrapped()) == numbers["wrapped"]
    assert len(work.read("not_wrappable.txt").splitlines()) == numbers["not wrappable"]
    assert work.read("missing.filter").count("EXCLUDE MANGLED") == numbers["not exported"]
    assert "top_undefined" not in exported(libraries / "libtop.so")
    # the description make install installs carries the same account
    account = json.loads(work.read("top.libwrap.json"))["account"]
    assert account == {"declared": 5, "wrapped": 1, "not_exported": 1, "filtered": 1, "not_compiling": 0,
                       "not_wrappable": {"static": 1, "variable arguments and no va_list variant found": 1}}


def test_nothing_to_wrap_fails_saying_why(installed_prefix, libraries, tmp_path):
    """The right header with the wrong library: every function is declared,
    none is exported by what LIBWRAP_LIBS names."""
    work = top_workdir(tmp_path, installed_prefix, libraries, libs="-lbase", name="wrong")
    (work.path / "main.c").write_text('#include "libwrap.h"\nint main(void) { return base_add(0, 0); }\n')
    proc = work.make(check=False)
    assert proc.returncode != 0
    assert "no function to wrap" in proc.stderr
    assert "2 not exported" in proc.stderr and "LIBWRAP_LIBS" in proc.stderr and "-lbase" in proc.stderr
    assert not (work.path / "wrong.wrap").exists()


def test_a_header_of_templates_only_fails_saying_why(installed_prefix, libraries, tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "tmpl.hpp").write_text(
        "#pragma once\ntemplate <class T> T twice(T x) { return 2 * x; }\n"
        "template <class T> struct Box { T get() const; };\n")
    work = init(tmp_path, installed_prefix, "tmpl", "c++", "-lbase", "jsoncpp_main.cc",
                cppflags=f"-I{tmp_path / 'inc'}", ldflags=f"-L{libraries} -Wl,-rpath,{libraries}",
                headers=["tmpl.hpp"])
    (work.path / "main.cc").write_text('#include "libwrap.h"\nint main() { return twice(0); }\n')
    proc = work.make(check=False)
    assert proc.returncode != 0
    assert "no function to wrap" in proc.stderr and "2 not wrappable" in proc.stderr
    assert "function template" in proc.stderr and "member of a class template" in proc.stderr


def test_wrapping_a_qtgui_header_wraps_qtgui_not_qtcore(installed_prefix, tmp_path):
    """Qt as pkg-config describes it: QtGui's and QtCore's -I directories and
    libraries together. A QtGui header wraps QtGui functions only."""
    flags = {what: subprocess.run(["pkg-config", f"--{what}", "Qt5Gui"], capture_output=True, text=True,
                                  check=True).stdout.strip() for what in ("cflags", "libs")}
    work = init(tmp_path, installed_prefix, "qvec", "c++", flags["libs"], "jsoncpp_main.cc",
                cppflags=flags["cflags"] + " -fPIC", headers=["QtGui/qvector2d.h"])
    (work.path / "main.cc").write_text('#include "libwrap.h"\n#include <cstdio>\n'
                                       'int main() { std::printf("%g\\n", QVector2D(3, 4).length()); }\n')
    proc = work.make()
    wrapped = set(work.wrapped())
    libdir = subprocess.run(["pkg-config", "--variable=libdir", "Qt5Gui"], capture_output=True, text=True,
                            check=True).stdout.strip()
    assert wrapped and wrapped <= exported(pathlib.Path(libdir) / "libQt5Gui.so")
    assert not wrapped & exported(pathlib.Path(libdir) / "libQt5Core.so")
    assert "_ZNK9QVector2D6lengthEv" in wrapped
    # QtCore's functions are counted apart, with the directory that holds them
    assert re.search(r"\d+ in /\S+/qt5/QtCore\b", proc.stdout), proc.stdout
