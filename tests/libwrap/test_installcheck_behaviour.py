"""make installcheck compares what the program does, not only its stdout: its
stderr (the measurement's own [Score-P] lines set apart) and, for each wrapped
function the example takes the address of, whether that address is still the
one the library uses. The library here is one of the test's own, shaped like
Qt's signals: it registers one of its own functions and later compares a
caller's function pointer with it (built with -Bsymbolic-functions, as Qt is),
and only tells on stderr when they differ."""
import subprocess

import pytest

from libwrap_runs import init

HEADER = """typedef void (*reg_callback)(void);
void reg_default(void);
void reg_init(void);
int reg_is_registered(reg_callback callback);
"""

SOURCE = """#include <stdio.h>
#include "reg.h"
static reg_callback registered;
void reg_default(void) {}
void reg_init(void) { registered = reg_default; }
int reg_is_registered(reg_callback callback)
{
    if (callback != registered) {
        fprintf(stderr, "reg: callback %s not registered\\n", callback ? "given" : "(null)");
        return 0;
    }
    return 1;
}
"""

# prints nothing that depends on the comparison: like a Qt program whose
# connect fails, only stderr tells
MAIN = """#include <stdio.h>
#include "libwrap.h"
int main(void)
{
    reg_init();
    reg_is_registered(&reg_default);
    printf("done\\n");
    return 0;
}
"""

MODES = ("linktime shared", "linktime static", "runtime shared", "runtime static", "scorep-exec")


@pytest.fixture(scope="module")
def reg(installed_prefix, tmp_path_factory):
    d = tmp_path_factory.mktemp("libwrap-reg")
    (d / "include").mkdir()
    (d / "include" / "reg.h").write_text(HEADER)
    (d / "reg.c").write_text(SOURCE)
    subprocess.run(["gcc", "-shared", "-fPIC", "-Wl,-Bsymbolic-functions", "-I", str(d / "include"),
                    str(d / "reg.c"), "-o", str(d / "libreg.so")], check=True)
    work = init(d, installed_prefix, "reg", "c", "-lreg", "zlib_main.c", cppflags=f"-I{d / 'include'}",
                ldflags=f"-L{d} -Wl,-rpath,{d}", headers=["reg.h"])
    (work.path / "main.c").write_text(MAIN)
    work.make()
    work.make("install")
    work.installcheck = work.make("installcheck", check=False)
    return work


def plain_run(work):
    return subprocess.run([str(work.path / "main")], capture_output=True, text=True)


def test_the_library_tells_only_on_stderr_when_wrapping_changes_the_address(reg):
    # the oracle: the plain program's own behaviour, and the measured one's
    plain = plain_run(reg)
    assert plain.returncode == 0 and plain.stdout == "done\n" and plain.stderr == ""
    measured = subprocess.run([str(reg.path / "installcheck" / "main_linktime_shared")],
                              capture_output=True, text=True,
                              env={"SCOREP_EXPERIMENT_DIRECTORY": str(reg.path / "installcheck" / "again")})
    assert measured.stdout == "done\n"
    assert "reg: callback given not registered" in measured.stderr


@pytest.mark.parametrize("mode", MODES)
def test_installcheck_fails_when_the_measured_stderr_differs(reg, mode):
    out = reg.installcheck.stdout
    assert reg.installcheck.returncode != 0
    failed = [line for line in out.split("installcheck FAILED: ")[1:]
              if line.startswith(f"{mode}: the example behaves differently")]
    assert failed, out
    assert "stderr differs" in failed[0] and "+reg: callback given not registered" in failed[0]
    assert "stdout differs" not in failed[0] and "exit status" not in failed[0]


@pytest.mark.parametrize("mode", MODES)
def test_installcheck_names_a_wrapped_function_whose_address_the_example_takes(reg, mode):
    out = reg.installcheck.stdout
    assert (f"installcheck FAILED: {mode}: the example takes the address of reg_default: plainly it is "
            f"the one the library uses, measured it is the wrapper's") in out, out
    assert "EXCLUDE MANGLED reg_default" in out
    # the example calls reg_is_registered but does not take its address
    assert "address of reg_is_registered" not in out and "address of reg_init" not in out


def test_installcheck_passes_once_the_compared_function_is_left_out(reg):
    filter_path = reg.path / "reg.filter"
    original = filter_path.read_text()
    try:
        filter_path.write_text("SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE MANGLED reg_default\n"
                               "SCOREP_REGION_NAMES_END\n")
        reg.make()
        reg.make("install")
        proc = reg.make("installcheck", check=False)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "reg_default" not in reg.wrapped()
    finally:
        filter_path.write_text(original)


# The same library in C++: a member of a namespace, reached through its
# mangled symbol (the probe's asm label, the filter's MANGLED rule).
CXX_HEADER = """namespace reg {
using callback = void (*)();
void default_handler();
void init();
bool is_registered(callback c);
}
"""

CXX_SOURCE = """#include <cstdio>
#include "reg.hh"
namespace reg {
static callback registered;
void default_handler() {}
void init() { registered = &default_handler; }
bool is_registered(callback c)
{
    if (c != registered) std::fprintf(stderr, "reg: callback not registered\\n");
    return c == registered;
}
}
"""

CXX_MAIN = """#include <cstdio>
#include "libwrap.h"
int main()
{
    reg::init();
    reg::is_registered(&reg::default_handler);
    std::printf("done\\n");
    return 0;
}
"""


def test_a_cxx_library_comparing_a_members_address_fails_installcheck_in_every_mode(installed_prefix,
                                                                                    tmp_path):
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "reg.hh").write_text(CXX_HEADER)
    (tmp_path / "reg.cc").write_text(CXX_SOURCE)
    subprocess.run(["g++", "-shared", "-fPIC", "-Wl,-Bsymbolic-functions", "-I", str(tmp_path / "include"),
                    str(tmp_path / "reg.cc"), "-o", str(tmp_path / "libregxx.so")], check=True)
    work = init(tmp_path, installed_prefix, "regxx", "c++", "-lregxx", "jsoncpp_main.cc",
                cppflags=f"-I{tmp_path / 'include'}", ldflags=f"-L{tmp_path} -Wl,-rpath,{tmp_path}",
                headers=["reg.hh"])
    (work.path / "main.cc").write_text(CXX_MAIN)
    work.make()
    work.make("install")
    proc = work.make("installcheck", check=False)
    out = proc.stdout
    assert proc.returncode != 0
    symbol = "_ZN3reg15default_handlerEv"
    assert work.wrapped()[symbol] == "reg::default_handler()"
    for mode in MODES:
        assert (f"installcheck FAILED: {mode}: the example takes the address of reg::default_handler(): "
                f"plainly it is the one the library uses") in out, out
        assert f"installcheck FAILED: {mode}: the example behaves differently" in out
    assert f"EXCLUDE MANGLED {symbol}" in out
    assert "+reg: callback not registered" in out


def completed(stdout="", stderr="", code=0):
    return subprocess.CompletedProcess([], code, stdout, stderr)


def test_the_measurements_own_lines_are_set_apart_not_compared():
    from generator.libwrap.installcheck import compare_runs
    failures = []
    plain = completed("result 42\n", "program: note\n")
    measured = completed("result 42\n", "[Score-P] Warning: something the measurement says\nprogram: note\n")
    said = compare_runs("runtime shared", plain, measured, failures)
    assert failures == [] and said == "[Score-P] Warning: something the measurement says\n"
    # a changed line of the program's own fails, and the measurement's line is shown apart
    compare_runs("runtime shared", plain, completed("result 42\n", "[Score-P] Warning: w\nprogram: other\n"),
                 failures)
    assert len(failures) == 1
    assert "-program: note" in failures[0] and "+program: other" in failures[0]
    assert "+[Score-P]" not in failures[0] and "the measurement said:\n[Score-P] Warning: w" in failures[0]


def test_an_output_that_changes_between_plain_runs_is_not_compared():
    from generator.libwrap.installcheck import compare_runs, unstable_streams
    first, second = completed("took 1.25 s\n", "same\n"), completed("took 1.31 s\n", "same\n")
    unstable = unstable_streams(first, second)
    assert unstable == {"stdout"}
    failures = []
    compare_runs("linktime shared", first, completed("took 1.40 s\n", "same\n"), failures, unstable)
    assert failures == []
    compare_runs("linktime shared", first, completed("took 1.40 s\n", "changed\n", 1), failures, unstable)
    assert len(failures) == 1 and "exit status: plain 0, measured 1" in failures[0]
    assert "stderr differs" in failures[0] and "stdout differs" not in failures[0]
