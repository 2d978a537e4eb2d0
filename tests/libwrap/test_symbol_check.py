"""The symbol check of library wrapping (generator/libwrap/link_check.py): the batched
check_symbols must give the verdicts of the one-link-per-function reference
check_per_function, on small libraries built here (exported, hidden, weak,
versioned, C++, static-only, archive members that cannot link) and on samples of
real Debian libraries; bad input raises SymbolCheckError naming the culprit."""
import random
import shutil
import subprocess

import pytest

from generator.errors import SpecError
from generator.libwrap.library_search import find_libraries
from generator.libwrap.link_check import SymbolCheckError, check_per_function, check_symbols
from generator.libwrap.symbol_tables import exported_symbols

JOBS = 2   # links of the reference method at a time (the machine has 2 cores)

DEMO_C = r"""
#include <stdlib.h>
#include <string.h>
int demo_exported(int x) { return x + 1; }
__attribute__((visibility("hidden"))) int demo_hidden(int x) { return x + 2; }
__attribute__((weak)) int demo_weak(int x) { return x + 3; }
int demo_data = 4;
int demo_uses_hidden(int x) { return demo_hidden(x); }
/* demo_versioned@DEMO_1 (old) and demo_versioned@@DEMO_2 (default) */
int demo_versioned_old(int x) { return x; }
int demo_versioned_new(int x) { return -x; }
__asm__(".symver demo_versioned_old, demo_versioned@DEMO_1");
__asm__(".symver demo_versioned_new, demo_versioned@@DEMO_2");
/* also in libc: links with and without this library */
char *strdup(const char *s) { size_t n = strlen(s) + 1; char *d = malloc(n); return d ? memcpy(d, s, n) : d; }
int demo_declared_only(int x);   /* declared in the header, never defined */
"""
DEMO_VIS_C = r"""
int demo_vis_hidden(int x) { return x; }      /* compiled with -fvisibility=hidden */
__attribute__((visibility("default"))) int demo_vis_public(int x) { return demo_vis_hidden(x); }
"""
DEMO_CC = r"""
namespace demo {
int twice(int x) { return 2 * x; }
__attribute__((visibility("hidden"))) int hidden_cpp(int x) { return x; }
int use(int x) { return hidden_cpp(x); }
}
"""
DEMO_MAP = """
DEMO_1 { global: *; local: demo_versioned_old; demo_versioned_new; };
DEMO_2 { } DEMO_1;
"""
STATIC_MEMBERS = {
    "so_a.c": "int so_fn(int x) { return x; }\n"
              "__attribute__((weak)) int so_weak(int x) { return x + 1; }\n"
              "__attribute__((visibility(\"hidden\"))) int so_hidden(int x) { return x + 2; }\n",
    # pulling this member in needs a symbol nobody defines: the link fails
    "so_b.c": "extern int nowhere_defined(int);\n"
              "int so_needs_missing(int x) { return nowhere_defined(x); }\n",
    # needs libm, which the link does not name
    "so_c.c": "#include <math.h>\n"
              "double so_needs_libm(double x) { return cbrt(x) + x; }\n",
    "so_d.c": "int so_other(int x) { return x * 3; }\n",
}

DEMO_SYMBOLS = [
    "demo_exported", "demo_hidden", "demo_weak", "demo_data", "demo_uses_hidden",
    "demo_versioned", "demo_versioned@DEMO_1", "demo_versioned@DEMO_2",
    "demo_versioned@@DEMO_2", "demo_versioned@DEMO_3", "demo_vis_hidden", "demo_vis_public",
    "demo_declared_only", "_ZN4demo5twiceEi", "_ZN4demo10hidden_cppEi", "_ZN4demo5threeEi",
    "strdup", "strlen", "printf", "__isoc99_scanf", "memcpy@GLIBC_2.14", "memcpy@GLIBC_2.2.5",
    "memcpy@GLIBC_9.9", "main",
]
STATIC_SYMBOLS = ["so_fn", "so_weak", "so_hidden", "so_needs_missing", "so_needs_libm",
                  "so_other", "so_not_there", "strlen", "puts"]


def run(argv, cwd):
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    assert proc.returncode == 0, f"{' '.join(argv)}:\n{proc.stderr}"


@pytest.fixture(scope="module")
def libs(tmp_path_factory):
    """libdemo.so (no static twin) and libstaticonly.a (no shared twin)."""
    d = tmp_path_factory.mktemp("libs")
    (d / "demo.c").write_text(DEMO_C)
    (d / "demo_vis.c").write_text(DEMO_VIS_C)
    (d / "demo.cc").write_text(DEMO_CC)
    (d / "demo.map").write_text(DEMO_MAP)
    run(["gcc", "-c", "-fPIC", "demo.c", "-o", "demo.o"], d)
    run(["gcc", "-c", "-fPIC", "-fvisibility=hidden", "demo_vis.c", "-o", "demo_vis.o"], d)
    run(["g++", "-c", "-fPIC", "demo.cc", "-o", "demo_cc.o"], d)
    run(["gcc", "-shared", "-Wl,--version-script=demo.map", "demo.o", "demo_vis.o",
         "demo_cc.o", "-o", "libdemo.so"], d)
    for name, text in STATIC_MEMBERS.items():
        (d / name).write_text(text)
        run(["gcc", "-c", name, "-o", name[:-2] + ".o"], d)
    run(["ar", "rcs", "libstaticonly.a"] + [n[:-2] + ".o" for n in STATIC_MEMBERS], d)
    # a shared library with an unresolved dependency: nothing links against it
    (d / "broken.c").write_text("extern int gone(void);\nint broken(void) { return gone(); }\n")
    run(["gcc", "-shared", "-fPIC", "broken.c", "-o", "libbroken.so"], d)
    # libtop.so needs libdep.so, which the check's link line does not name
    (d / "dep.c").write_text("int dep_fn(int x) { return x; }\nint dep_other(int x) { return -x; }\n")
    (d / "top.c").write_text("extern int dep_fn(int);\nint top_fn(int x) { return dep_fn(x) + 1; }\n")
    run(["gcc", "-shared", "-fPIC", "dep.c", "-o", "libdep.so"], d)
    run(["gcc", "-shared", "-fPIC", "top.c", "-o", "libtop.so", "-L.", "-ldep",
         f"-Wl,-rpath,{d}"], d)
    return d


def compare(symbols, ldflags, libs, workdir, cc="gcc", language="c"):
    """check_symbols and check_per_function agree; the batched result."""
    fast = check_symbols(symbols, cc, ldflags, libs, workdir / "fast", language=language)
    slow = check_per_function(symbols, cc, ldflags, libs, workdir / "slow", language=language,
                              jobs=JOBS)
    assert fast.missing == slow.missing, (
        f"missing: batched only {sorted(set(fast.missing) - set(slow.missing))}, "
        f"per function only {sorted(set(slow.missing) - set(fast.missing))}")
    assert fast.uncertain == slow.uncertain, (
        f"uncertain: batched only {sorted(set(fast.uncertain) - set(slow.uncertain))}, "
        f"per function only {sorted(set(slow.uncertain) - set(fast.uncertain))}")
    assert fast.links < slow.links
    return fast


# ---------------------------------------------------------------- own libraries

def test_shared_library_verdicts(libs, tmp_path):
    result = compare(DEMO_SYMBOLS, f"-L{libs}", "-ldemo", tmp_path)
    assert result.links == 2        # the linker named every failing symbol
    assert set(result.missing) == {
        "demo_hidden", "demo_versioned@DEMO_3", "demo_vis_hidden", "demo_declared_only",
        "_ZN4demo10hidden_cppEi", "_ZN4demo5threeEi", "memcpy@GLIBC_9.9"}
    assert set(result.uncertain) == {"strdup", "strlen", "printf", "__isoc99_scanf",
                                     "memcpy@GLIBC_2.14", "memcpy@GLIBC_2.2.5", "main"}


def test_static_only_library_verdicts(libs, tmp_path):
    result = compare(STATIC_SYMBOLS, f"-L{libs}", "-lstaticonly", tmp_path)
    # so_hidden: hidden visibility does not stop a static link
    assert set(result.missing) == {"so_needs_missing", "so_needs_libm", "so_not_there"}
    assert set(result.uncertain) == {"strlen", "puts"}
    assert any("only a static library" in n for n in result.notes)
    assert result.libraries[0].shared_path is None


def test_static_library_as_path_and_two_libraries(libs, tmp_path):
    symbols = ["demo_exported", "demo_hidden"] + STATIC_SYMBOLS[:6]
    result = compare(symbols, "", f"-L{libs} -ldemo {libs / 'libstaticonly.a'} -lm", tmp_path)
    assert "so_needs_libm" not in result.missing      # -lm after the archive
    assert "so_needs_missing" in result.missing
    assert "so_fn" not in result.missing and "demo_exported" not in result.missing


def test_symbol_of_a_dependency(libs, tmp_path):
    """GNU ld stops at the first symbol defined only by a library the command line
    does not name ("DSO missing from command line"): each such symbol costs a link."""
    symbols = ["top_fn", "dep_fn", "dep_other", "strlen", "nope"] + [f"filler_{i}" for i in range(3)]
    result = compare(symbols, f"-L{libs}", "-ltop", tmp_path)
    assert {"dep_fn", "dep_other", "nope"} <= set(result.missing)
    assert "top_fn" not in result.missing
    assert result.links <= 6


@pytest.mark.parametrize("linker", ["gold", "lld"])
def test_other_linkers(libs, tmp_path, linker):
    """gold and lld word their errors differently (gold: "..., version 'V'"; lld
    stops after 20 unless told otherwise, and its map does not say why an
    archive member was pulled in: bisection). On these libraries all three
    linkers agree, so GNU ld's verdicts serve as the reference."""
    if not shutil.which(f"ld.{linker}"):
        pytest.skip(f"ld.{linker} not installed")
    symbols = DEMO_SYMBOLS + STATIC_SYMBOLS + [f"filler_{i}" for i in range(20)]
    libs_flags = f"-L{libs} -ldemo -lstaticonly"
    expected = check_symbols(symbols, "gcc", "", libs_flags, tmp_path / "ld")
    result = check_symbols(symbols, "gcc", f"-fuse-ld={linker}", libs_flags, tmp_path / linker)
    assert (result.missing, result.uncertain) == (expected.missing, expected.uncertain)


def test_many_reference_objects(libs, tmp_path, monkeypatch):
    """Large symbol lists are spread over several reference objects (GNU ld's
    cost per undefined reference grows with the symbols of its object): the
    same verdicts."""
    import generator.libwrap.link_check as module
    symbols = DEMO_SYMBOLS + STATIC_SYMBOLS
    libs_flags = f"-L{libs} -ldemo -lstaticonly"
    whole = check_symbols(symbols, "gcc", "", libs_flags, tmp_path / "one")
    monkeypatch.setattr(module, "CHUNK", 4)
    spread = check_symbols(symbols, "gcc", "", libs_flags, tmp_path / "many")
    assert (spread.missing, spread.uncertain) == (whole.missing, whole.uncertain)


def test_cxx_language(libs, tmp_path):
    symbols = ["_ZN4demo5twiceEi", "_ZN4demo10hidden_cppEi", "demo_exported",
               "_ZNSt8ios_base4InitC1Ev", "_ZdlPv", "_Znwm", "strlen", "no_such_thing"]
    result = compare(symbols, f"-L{libs}", "-ldemo", tmp_path, cc="g++", language="c++")
    assert {"_ZNSt8ios_base4InitC1Ev", "_ZdlPv", "_Znwm", "strlen"} <= set(result.uncertain)
    assert set(result.missing) == {"_ZN4demo10hidden_cppEi", "no_such_thing"}


def test_no_libraries_and_no_symbols(libs, tmp_path):
    result = compare(["strlen", "not_in_libc_at_all"], "", "", tmp_path)
    assert result.missing == ["not_in_libc_at_all"] and result.uncertain == ["strlen"]
    empty = check_symbols([], "gcc", f"-L{libs}", "-ldemo", tmp_path)
    assert empty.missing == [] and empty.uncertain == []


def test_workdir_left_clean(libs, tmp_path):
    check_symbols(["demo_exported"], "gcc", f"-L{libs}", "-ldemo", tmp_path)
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- symbol tables, finding

def test_exported_symbols(libs):
    shared = exported_symbols(libs / "libdemo.so")
    assert {"demo_exported", "demo_weak", "demo_data", "demo_versioned", "demo_vis_public",
            "_ZN4demo5twiceEi", "strdup"} <= shared
    assert not {"demo_hidden", "demo_vis_hidden", "_ZN4demo10hidden_cppEi",
                "demo_declared_only", "demo_versioned_old"} & shared
    assert not any("@" in s for s in shared)
    static = exported_symbols(libs / "libstaticonly.a")
    assert {"so_fn", "so_weak", "so_hidden", "so_needs_missing", "so_other"} <= static
    assert "nowhere_defined" not in static


def test_find_libraries(libs, tmp_path):
    found = find_libraries(f"-ldemo -lstaticonly {libs / 'libstaticonly.a'} -lc", f"-L{libs}", "gcc")
    demo, static, path, libc = found
    assert (demo.name, demo.shared_path, demo.static_path) == ("demo", str(libs / "libdemo.so"), None)
    assert (static.shared_path, static.static_path) == (None, str(libs / "libstaticonly.a"))
    assert static.linked_path == static.static_path
    assert path.name == "staticonly" and path.static_path == str(libs / "libstaticonly.a")
    # libc.so is a GNU ld script: followed to the shared object it names
    assert libc.script and libc.shared_path.endswith("libc.so.6")
    assert any(p.endswith("libc_nonshared.a") for p in libc.script_inputs)
    assert "printf" in exported_symbols(libc.script)
    # the first -L directory wins, as for the linker
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(libs / "libstaticonly.a", other / "libdemo.a")
    first = find_libraries("-ldemo", f"-L{other} -L{libs}", "gcc")[0]
    assert first.linked_path == str(other / "libdemo.a")
    assert first.shared_path == str(libs / "libdemo.so")
    assert find_libraries("-ldemo", f"-L{other} -L{libs} -static", "gcc")[0].linked_path \
        == str(other / "libdemo.a")
    assert find_libraries("-l:libdemo.so", f"-L{libs}", "gcc")[0].shared_path == str(libs / "libdemo.so")


# ---------------------------------------------------------------- bad input

def test_library_not_found(libs, tmp_path):
    with pytest.raises(SymbolCheckError, match="-lnonexistent.*not found") as err:
        check_symbols(["strlen"], "gcc", f"-L{libs}", "-lnonexistent", tmp_path)
    assert isinstance(err.value, SpecError)
    assert str(libs) in str(err.value)
    with pytest.raises(SymbolCheckError, match="no such library file"):
        check_symbols(["strlen"], "gcc", "", str(libs / "libnothere.a"), tmp_path)


def test_bad_library_directory(tmp_path):
    with pytest.raises(SymbolCheckError, match="-L/nonexistent/dir.*does not exist"):
        check_symbols(["strlen"], "gcc", "-L/nonexistent/dir", "-lz", tmp_path)


def test_bad_compiler(tmp_path):
    bad = tmp_path / "badcc"
    bad.write_text("#!/bin/sh\necho 'badcc: internal compiler error: broken' >&2\nexit 1\n")
    bad.chmod(0o755)
    with pytest.raises(SymbolCheckError, match="badcc.*\n.*internal compiler error"):
        check_symbols(["strlen"], str(bad), "", "-lz", tmp_path / "w")
    with pytest.raises(SymbolCheckError, match="no-such-cc.*not found"):
        check_symbols(["strlen"], "no-such-cc", "", "-lz", tmp_path / "w")
    # a compiler that finds libraries but cannot compile
    half = tmp_path / "halfcc"
    half.write_text('#!/bin/sh\nfor a in "$@"; do [ "$a" = -c ] && { echo "halfcc: no" >&2; exit 1; }; done\n'
                    'exec gcc "$@"\n')
    half.chmod(0o755)
    with pytest.raises(SymbolCheckError, match="halfcc.*cannot compile a trivial program"):
        check_symbols(["strlen"], str(half), "", "-lz", tmp_path / "w")


def test_flags_that_cannot_link(libs, tmp_path):
    garbage = tmp_path / "libgarbage.so"
    garbage.write_text("this is not a library\n")
    with pytest.raises(SymbolCheckError, match="cannot link a trivial program.*-lgarbage"
                       "(.|\n)*libgarbage.so:1: syntax error"):
        check_symbols(["strlen"], "gcc", f"-L{tmp_path}", "-lgarbage", tmp_path / "w")
    with pytest.raises(SymbolCheckError, match="--no-such-linker-option(.|\n)*unrecognized option"):
        check_symbols(["strlen"], "gcc", "-Wl,--no-such-linker-option", "-lz", tmp_path / "w")


def test_library_with_unresolved_dependency(libs, tmp_path):
    """ld checks libbroken.so's own undefined symbols only once something from it is
    used: the error names no symbol of ours, bisection finds which one."""
    symbols = ["broken", "strlen", "puts", "nothing_here"] + [f"filler_{i}" for i in range(4)]
    result = compare(symbols, f"-L{libs}", "-lbroken", tmp_path)
    assert "broken" in result.missing and "strlen" not in result.missing
    assert any("tied to no symbol" in n for n in result.notes)


def test_bad_symbol_name(tmp_path):
    with pytest.raises(SymbolCheckError, match="'foo bar'"):
        check_symbols(["foo bar"], "gcc", "", "-lz", tmp_path)


# ---------------------------------------------------------------- real libraries

REAL = {
    # library: (--libs, compiler, language, libc-or-default names)
    "zlib": ("-lz", "gcc", "c", ["strlen", "printf", "__isoc99_scanf", "memcpy", "fopen"]),
    "sqlite3": ("-lsqlite3", "gcc", "c", ["strlen", "malloc", "pthread_create", "dlopen", "qsort"]),
    "fftw3": ("-lfftw3", "gcc", "c", ["strlen", "puts", "exit", "memset", "getenv"]),
    "jsoncpp": ("-ljsoncpp", "g++", "c++", ["strlen", "_ZdlPv", "_Znwm", "_ZSt4cout", "puts"]),
}


@pytest.mark.parametrize("library", sorted(REAL))
def test_real_library_sample(library, tmp_path):
    flag, cc, language, default = REAL[library]
    try:
        lib = find_libraries(flag, "", cc)[0]
    except SymbolCheckError:
        pytest.skip(f"{flag}: not installed (apt-get install the -dev package)")
    exported = sorted(set().union(*(exported_symbols(f) for f in lib.linked_files)))
    invented = [f"{library}_invented_{i}" for i in range(3)] + ["_ZN4Json7NoSuchCEv"]
    # the whole symbol table, batched: all of it links, in two links
    whole = check_symbols(exported + invented, cc, "", flag, tmp_path / "whole", language=language)
    assert whole.missing == invented and whole.links == 2
    # a sample against the reference method (a compile and two links per symbol:
    # about 30 symbols per library keep the whole file near 30 s on 2 cores)
    size = 16 if language == "c++" else 20      # a C++ link costs half as much again
    symbols = random.Random(library).sample(exported, min(size, len(exported))) + invented + default
    result = compare(symbols, "", flag, tmp_path, cc=cc, language=language)
    assert set(invented) <= set(result.missing)
    assert set(default) <= set(result.uncertain)
    assert result.links <= 4
