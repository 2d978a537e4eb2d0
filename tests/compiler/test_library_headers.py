"""Compiler instrumentation leaves out functions defined in system and
library headers (std:: and Qt templates and inline functions, headers of
--libwrap libraries) and keeps the program's own, its own headers included;
--instrument-library-headers brings them back. Counts are the test programs'
own loop counts; the files are those the regions record."""
import json
import subprocess

import pytest

from compiler_runs import HERE, load, run, scorep, visits_by_region

N = 7
CHECKSUM = "long own::checksum<std::vector<int, std::allocator<int> > >(std::vector<int, std::allocator<int> > const&)"


def build(build_dir, tmp_path, options, compiler, sources, flags, output, libs=()):
    exe = tmp_path / output
    cmd = scorep(build_dir) + ["--nompi", *options, compiler, *flags, *map(str, sources), "-o", str(exe), *libs]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stdout}\n{proc.stderr}"
    return exe


def compiler_regions(exe, experiment, args=(N,)):
    run(exe, args, experiment)
    profile = load(experiment)
    files = {r["name"]: r.get("file", "") for r in profile["regions"] if r["paradigm"] == "compiler"}
    return visits_by_region(profile, paradigm="compiler"), files


# -O0: GCC inlines nothing, so the headers' inline functions are instrumented
# unless left out for where they are defined

def test_std_templates_left_out_own_header_functions_kept(build_dir, tmp_path):
    flags = ["-O0", f"-I{HERE / 'include'}"]
    exe = build(build_dir, tmp_path, [], "g++", [HERE / "library_headers.cc"], flags, "default")
    visits, files = compiler_regions(exe, tmp_path / "default-exp")
    # exactly the program's functions: its own header's template and inline
    # function included, no std:: or __gnu_cxx:: function
    assert visits == {"main": 1, "key(int)": N, CHECKSUM: 1, "own::twice(int)": N}
    assert files["own::twice(int)"] == str(HERE / "include" / "own_header.h")

    exe = build(build_dir, tmp_path, ["--instrument-library-headers"], "g++", [HERE / "library_headers.cc"],
                flags, "all")
    visits, files = compiler_regions(exe, tmp_path / "all-exp")
    assert visits["std::vector<int, std::allocator<int> >::push_back(int&&)"] == N
    sort = ("void std::sort<__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > > >"
            "(__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, "
            "__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >)")
    assert visits[sort] == 1
    assert files[sort].startswith("/usr/include/c++/")
    assert {k: visits[k] for k in ("main", "key(int)", CHECKSUM, "own::twice(int)")} == \
        {"main": 1, "key(int)": N, CHECKSUM: 1, "own::twice(int)": N}


def pkg_config(*args):
    try:
        proc = subprocess.run(["pkg-config", *args, "Qt5Core"], capture_output=True, text=True)
    except OSError:
        proc = None
    if proc is None or proc.returncode != 0:
        pytest.skip("needs Qt 5's QtCore development files (Debian qtbase5-dev) and pkg-config")
    return proc.stdout.split()


def test_qt_inline_functions_and_templates_left_out(build_dir, tmp_path):
    # Qt's headers need position-independent code (Qt is built with -reduce-relocations)
    flags, libs = ["-O0", "-fPIC", *pkg_config("--cflags")], pkg_config("--libs")
    qt_include = pkg_config("--variable=includedir")[0]
    # Qt's -I directory lies below /usr/include, but GCC does not take it as
    # a system directory: the rule is what leaves it out
    source = [HERE / "qt_strings.cc"]
    exe = build(build_dir, tmp_path, [], "g++", source, flags, "default", libs)
    visits, _ = compiler_regions(exe, tmp_path / "default-exp")
    assert visits == {"main": 1, "label(int)": N}

    exe = build(build_dir, tmp_path, ["--instrument-library-headers"], "g++", source, flags, "all", libs)
    visits, files = compiler_regions(exe, tmp_path / "all-exp")
    assert visits["QList<QString>::append(QString const&)"] == N
    assert files["QList<QString>::append(QString const&)"].startswith(qt_include + "/")
    assert visits["label(int)"] == N


def test_libwrap_include_directories_left_out(build_dir, tmp_path, monkeypatch):
    """The include directories a --libwrap wrapper was made with are a
    library's: its header's functions are left out, while the same header
    through a -I of the program's own is the program's. C, compiled and
    linked in two steps (the compile step alone needs the wrapper's
    description, not its libraries)."""
    include = tmp_path / "fakelib" / "include"
    include.mkdir(parents=True)
    (include / "fakelib.h").write_text("static inline int fakelib_scale(int x) { return 3 * x; }\n")
    source = tmp_path / "prog.c"
    source.write_text("#include <stdio.h>\n#include <stdlib.h>\n#include <fakelib.h>\n"
                      "int main(int argc, char** argv) { int s = 0;"
                      " for (int i = 0; i < atoi(argv[1]); i++) s += fakelib_scale(i);"
                      " printf(\"%d\\n\", s); return 0; }\n")
    share = tmp_path / "share"
    share.mkdir()
    (share / "fakelib.libwrap.json").write_text(json.dumps(
        {"format": "scorep-wrapgen-libwrap", "version": 1, "name": "fakelib",
         "cppflags": ["-I", str(include)], "ldflags": [], "libs": []}))
    monkeypatch.setenv("SCOREP_LIBWRAP_PATH", str(share))

    def visits(options, name):
        obj = tmp_path / f"{name}.o"
        build(build_dir, tmp_path, options, "gcc", [source], ["-O0", f"-I{include}", "-c"], obj.name)
        exe = build(build_dir, tmp_path, [], "gcc", [obj], [], name)
        return compiler_regions(exe, tmp_path / f"{name}-exp")[0]

    assert visits([], "own") == {"main": 1, "fakelib_scale": N}
    assert visits(["--libwrap=fakelib"], "wrapped") == {"main": 1}
    assert visits(["--libwrap=fakelib", "--instrument-library-headers"], "all") == {"main": 1, "fakelib_scale": N}

    proc = subprocess.run(scorep(build_dir) + ["--nompi", "--libwrap=nosuch", "gcc", "-c", str(source)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 2
    assert "no installed library wrapper 'nosuch'" in proc.stderr


def test_fortran_include_from_isystem_directory_left_out(build_dir, tmp_path):
    """A preprocessed Fortran source's #include from an -isystem directory is
    a library's (gfortran itself does not mark it as a system header); the
    same file through -I is the program's."""
    include = tmp_path / "lib"
    include.mkdir()
    (include / "triple.h").write_text("integer function triple(x)\n  integer :: x\n  triple = 3 * x\nend function\n")
    source = tmp_path / "prog.F90"
    source.write_text("program prog\n  integer :: i, s, triple\n  character(len=16) :: arg\n"
                      "  call get_command_argument(1, arg)\n  s = 0\n"
                      "  do i = 1, len_trim(arg)\n    s = s + triple(i)\n  end do\n  print *, s\nend program\n"
                      "#include <triple.h>\n")
    arg = "x" * N

    def visits(options, include_flag, name):
        exe = build(build_dir, tmp_path, options, "gfortran", [source], ["-O0", include_flag, str(include)], name)
        return compiler_regions(exe, tmp_path / f"{name}-exp", args=(arg,))[0].get("triple")

    assert visits([], "-I", "own") == N
    assert visits([], "-isystem", "system") is None
    assert visits(["--instrument-library-headers"], "-isystem", "all") == N
