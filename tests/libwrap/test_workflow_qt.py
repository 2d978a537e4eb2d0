"""Qt 5 wrapped as a user would (QtCore, QtGui, QtWidgets headers): signals
keep working under measurement, QtGui's headers parse as GCC preprocessed
them, the calls the program makes (also those it reaches only through
QString's inline code) are counted exactly in every mode; and the general
case of signals: a library that compares a function's address.

Qt finds the signal of QObject::connect(sender, &Class::signal, ...) by
comparing the program's &Class::signal with the address its own code has; a
wrapper on a signal's symbol changes the program's address (link time: the
reference becomes __wrap_...; run time: the preloaded wrapper defines the
symbol) and the connect fails. Signals are therefore never wrapped.

Only a few classes are wrapped (a filter), so that the test stays fast: the
scan still reads all of QtWidgets' headers."""
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

from libwrap_runs import MODES, init, run, visits

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
from generator.libwrap.header import HeaderError, scan_header  # noqa: E402

QT_MISSING = "Qt 5 development files not found (Debian/Ubuntu: apt-get install qtbase5-dev)"


def pkg_config(*args):
    try:
        proc = subprocess.run(["pkg-config", *args, "Qt5Widgets"], capture_output=True, text=True)
    except FileNotFoundError:
        pytest.skip(QT_MISSING + "; pkg-config is missing too")
    if proc.returncode != 0:
        pytest.skip(QT_MISSING)
    return proc.stdout.strip()


# the example needs no display; Qt's warning about XDG_RUNTIME_DIR would make
# stderr differ from nothing
def qt_env(tmp):
    runtime_dir = tmp / "xdg-runtime"
    runtime_dir.mkdir(mode=0o700, exist_ok=True)
    return {"QT_QPA_PLATFORM": "offscreen", "XDG_RUNTIME_DIR": str(runtime_dir)}


QT_FILTER = """\
# only these classes: wrapping all of QtWidgets takes minutes
SCOREP_REGION_NAMES_BEGIN
  EXCLUDE *
  INCLUDE QObject::* QTimer::* QAbstractButton::* QPushButton::*
  INCLUDE QString::*_helper(* operator<(QString?const&,?QString?const&)
# QtGui and QtWidgets call it too: run-time wrappers would count their calls
  EXCLUDE QString::fromLatin1_helper(*
SCOREP_REGION_NAMES_END
"""

# the calls examples/qt_signals_main.cc makes from its own code (its comments)
EXPECTED_CALLS = {
    "QObject::QObject(QObject*)": 1,
    "QTimer::QTimer(QObject*)": 1,
    "QTimer::start(int)": 1,
    "QTimer::stop()": 1,
    "QTimer::remainingTime() const": 4,       # in the slots of destroyed and timeout
    "QTimer::~QTimer()": 1,
    "QPushButton::QPushButton(QString const&, QWidget*)": 1,
    "QPushButton::~QPushButton()": 1,
    "QAbstractButton::click()": 5,
    "QAbstractButton::setCheckable(bool)": 1,
    "QAbstractButton::isChecked() const": 1,
    # reached through QString's inline code only
    "QString::fromUtf8_helper(char const*, int)": 2,
    "operator<(QString const&, QString const&)": 3,
    "QString::toUpper_helper(QString const&)": 1,
    "QString::toUtf8_helper(QString const&)": 1,
}
# Qt's other libraries call QtCore's string helpers too (the offscreen platform
# plugin calls fromUtf8_helper; how often depends on the environment): run-time
# wrappers see those calls as well, so there the program's are a lower bound
ALSO_CALLED_BY_QT = {name for name in EXPECTED_CALLS if name.startswith(("QString::", "operator<"))}

# signals of the wrapped classes (Qt's documentation); QPrivateSignal ones too
SIGNALS = {
    "_ZN7QObject9destroyedEPS_": "QObject::destroyed(QObject *)",
    "_ZN7QObject17objectNameChangedERK7QStringNS_14QPrivateSignalE":
        "QObject::objectNameChanged(const QString &, QPrivateSignal)",
    "_ZN6QTimer7timeoutENS_14QPrivateSignalE": "QTimer::timeout(QPrivateSignal)",
    "_ZN15QAbstractButton7clickedEb": "QAbstractButton::clicked(bool)",
    "_ZN15QAbstractButton7pressedEv": "QAbstractButton::pressed()",
    "_ZN15QAbstractButton8releasedEv": "QAbstractButton::released()",
    "_ZN15QAbstractButton7toggledEb": "QAbstractButton::toggled(bool)",
}


@pytest.fixture(scope="module")
def qt(installed_prefix, tmp_path_factory):
    cflags = pkg_config("--cflags")
    libs = pkg_config("--libs")
    tmp = tmp_path_factory.mktemp("libwrap-qt")
    with pytest.MonkeyPatch.context() as patch:
        for name, value in qt_env(tmp).items():
            patch.setenv(name, value)
        work = init(tmp, installed_prefix, "qtsignals", "c++", libs, "qt_signals_main.cc",
                    cppflags="-fPIC " + cflags,
                    headers=["QtCore/QObject", "QtCore/QTimer", "QtWidgets/QApplication",
                             "QtWidgets/QPushButton"])
        (work.path / "qtsignals.filter").write_text(QT_FILTER)
        work.make_output = work.make()
        work.make("install")
        work.installcheck_output = work.make("installcheck", check=False)
    work.env = qt_env(tmp)
    return work


def not_wrappable(work):
    out = {}
    for line in work.read("not_wrappable.txt").splitlines():
        name, _, reason = line.partition(": ")
        out[name] = reason
    return out


def test_qt_signals_are_not_wrapped_and_the_reason_is_reported(qt):
    wrapped = qt.wrapped()
    assert not set(SIGNALS) & set(wrapped), "a signal was wrapped"
    reasons = not_wrappable(qt)
    for name in SIGNALS.values():
        assert reasons.get(name) == "address compared by the library: Qt signal", name
    # the classes' other members are wrapped (the filter kept them)
    assert "_ZN15QAbstractButton5clickEv" in wrapped
    assert "_ZN6QTimer5startEi" in wrapped


def test_installcheck_passes_with_connections_by_signal_address(qt):
    proc = qt.installcheck_output
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "QAbstractButton::click()" in proc.stdout      # its table


def test_the_expected_counts_are_the_calls_ltrace_sees_the_program_make(qt, tmp_path):
    """An independent count of the program's own calls: ltrace, on the plain
    program, of each function of EXPECTED_CALLS by its symbol."""
    if shutil.which("ltrace") is None:
        pytest.skip("ltrace is not installed (Debian/Ubuntu: apt-get install ltrace)")
    symbol_of = {name: symbol for symbol, name in qt.wrapped().items()}
    symbols = [symbol_of[name] for name in EXPECTED_CALLS]
    log = tmp_path / "ltrace.txt"
    proc = subprocess.run(["ltrace", "-o", str(log), "-e", "+".join(symbols), str(qt.path / "main")],
                          capture_output=True, text=True, env=dict(os.environ, **qt.env), timeout=120)
    if proc.returncode != 0 and "ptrace" in proc.stderr.lower():
        pytest.skip(f"ltrace cannot trace here: {proc.stderr.strip()[:200]}")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    calls = re.findall(r"^(?:\d+ )?main->(\S+?)\(", log.read_text(), re.M)
    assert {name: calls.count(symbol_of[name]) for name in EXPECTED_CALLS} == EXPECTED_CALLS


def run_plain(qt, installed_prefix, tmp_path):
    plain = run([qt.path / "main"], installed_prefix, tmp_path, tmp_path / "plain", qt.env)
    assert plain.returncode == 0 and "clicks: 5" in plain.stdout, plain.stdout + plain.stderr
    return plain


@pytest.mark.parametrize("mode", MODES)
def test_signal_connections_work_and_calls_are_counted_exactly(qt, mode, installed_prefix, tmp_path):
    """Each mode's program (as make installcheck built it) behaves as the
    plain one: the connects succeed, every slot runs (the program checks,
    and its slots' calls are counted), stdout, stderr and exit status equal."""
    plain = run_plain(qt, installed_prefix, tmp_path)
    if mode == "exec":
        argv = [installed_prefix / "bin" / "scorep-exec", "--libwrap=qtsignals", "--", qt.path / "main"]
    else:
        argv = [qt.path / "installcheck" / f"main_{mode.replace(' ', '_')}"]
    measured = run(argv, installed_prefix, tmp_path, tmp_path / "experiment",
                   dict(qt.env, SCOREP_LIBWRAP_PATH=str(qt.libwrap_prefix)))
    assert (measured.returncode, measured.stdout, measured.stderr) == \
        (plain.returncode, plain.stdout, plain.stderr)
    got = visits(tmp_path / "experiment")
    if mode.startswith("linktime"):     # the program's own calls only
        assert {name: got.get(name, 0) for name in EXPECTED_CALLS} == EXPECTED_CALLS
    else:
        exact = {name: n for name, n in EXPECTED_CALLS.items() if name not in ALSO_CALLED_BY_QT}
        assert {name: got.get(name, 0) for name in exact} == exact
        assert all(got.get(name, 0) >= EXPECTED_CALLS[name] for name in ALSO_CALLED_BY_QT), got
    # no signal became a region (none is wrapped)
    assert not [name for name in got if name.startswith(("QObject::destroyed(", "QTimer::timeout(",
                                                         "QAbstractButton::clicked("))]


# ---- headers that GCC preprocessed ----------------------------------------------

def test_qtgui_header_as_gcc_preprocessed_it_parses(tmp_path):
    """QtGui's qcolor.h, preprocessed by g++ (C++17): Qt writes a deprecated
    member as QT_DEPRECATED_X(...) Q_REQUIRED_RESULT, which GCC expands to
    `__attribute__((__deprecated__(...))) [[nodiscard]]`, an order clang
    rejects; the scan reads it without a hand fix."""
    cflags = pkg_config("--cflags").split()
    (tmp_path / "libwrap.h").write_text("#include <QtGui/QColor>\n")
    subprocess.run(["g++", "-x", "c++", "-std=c++17", "-fPIC", *cflags, *SCAN_CPPFLAGS, "-E", "libwrap.h",
                    "-o", "libwrap.i"], cwd=tmp_path, check=True)
    assert "[[nodiscard]]" in (tmp_path / "libwrap.i").read_text()
    scan = scan_header(tmp_path / "libwrap.i", language="c++", clang_args=["-std=c++17"])
    symbols = {p.attributes["symbol"]: p for p in scan.procedures}
    light = symbols["_ZNK6QColor5lightEi"]        # the deprecated, nodiscard one
    assert light.attributes["file"].endswith("QtGui/qcolor.h")
    assert "_ZNK6QColor7lighterEi" in symbols


# what a working directory's Makefile adds to the preprocessing for the scan
SCAN_CPPFLAGS = ["-DQT_ANNOTATE_ACCESS_SPECIFIER(x)=__attribute__((annotate(#x)))",
                 "-DQT_ANNOTATE_FUNCTION(x)=__attribute__((annotate(#x)))"]


def test_qt_headers_preprocessed_without_the_signal_annotations_are_refused(tmp_path):
    """A working directory whose Makefile lacks SCAN_CPPFLAGS (made by an
    older scorep-libwrap-init) would wrap most signals: the scan says what to add."""
    cflags = pkg_config("--cflags").split()
    (tmp_path / "libwrap.h").write_text("#include <QtCore/QTimer>\n")
    subprocess.run(["g++", "-x", "c++", "-fPIC", *cflags, "-E", "libwrap.h", "-o", "libwrap.i"],
                   cwd=tmp_path, check=True)
    with pytest.raises(HeaderError, match=r"(?s)Qt classes \(Q_OBJECT\).*SCAN_CPPFLAGS = "
                                          r"'-DQT_ANNOTATE_ACCESS_SPECIFIER\(x\)"):
        scan_header(tmp_path / "libwrap.i", language="c++")


def test_standard_attribute_lists_after_gnu_ones_are_read_in_place(tmp_path):
    header = tmp_path / "attrs.i"
    header.write_text(
        'struct S {\n'
        '  __attribute__((__deprecated__("use f(int) [instead]"))) __attribute__((visibility("default")))\n'
        '    [[nodiscard]] int old(int x) const;\n'
        '};\n'
        '__attribute__((deprecated)) [[nodiscard]] [[maybe_unused]] int g(int);\n'
        'char s[2] = "[", t[[]]; int h(int);\n')
    scan = scan_header(header, language="c++")
    lines = {p.attributes["symbol"]: p.attributes["line"] for p in scan.procedures}
    assert lines == {"_ZNK1S3oldEi": 3, "_Z1gi": 5, "_Z1hi": 6}


@pytest.mark.parametrize("text, advice", [
    ("unknown_t f(int);\n", "-std=... to LIBWRAP_CPPFLAGS"),
    ("int [[nodiscard]] h(int);\n", "SCAN_CPPFLAGS"),
])
def test_a_header_that_does_not_parse_names_what_fixes_it(tmp_path, text, advice):
    header = tmp_path / "libwrap.i"
    header.write_text(text)
    with pytest.raises(HeaderError) as error:
        scan_header(header, language="c++")
    message = str(error.value)
    assert "libwrap.i:1:" in message and advice in message
    assert "make preprocesses libwrap.h into libwrap.i" in message


# ---- the general case: a library that compares a function's address ------------

CALLBACK_HEADER = """\
typedef int (*cb_handler)(int);
int cb_default(int x);              /* the library's own handler */
int cb_call(cb_handler h, int x);   /* calls h; knows its own handler by its address */
"""
CALLBACK_LIBRARY = """\
#include "cb.h"
int cb_default(int x) { return x + 1; }
int cb_call(cb_handler h, int x) { return h == cb_default ? 1000 + cb_default(x) : h(x); }
"""
CALLBACK_MAIN = """\
#include <stdio.h>
#include "libwrap.h"
int main(void) { printf("%d\\n", cb_call(cb_default, 1)); return 0; }  /* cb_call x1 */
"""


def test_a_declared_address_compared_function_is_not_wrapped_and_the_program_keeps_working(
        installed_prefix, tmp_path):
    """Wrapping the handler the program passes by address changes that address
    (link time: __wrap_cb_default; run time: the preloaded definition, while
    the library, linked with -Bsymbolic-functions as many distributions' are,
    keeps its own): the library no longer recognises it and the program prints
    2 instead of 1002. Listed in LIBWRAP_ADDRESS_COMPARED_SYMBOLS it is not
    wrapped, with the reason, and every mode prints what the plain build does."""
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "cb.h").write_text(CALLBACK_HEADER)
    (lib / "cb.c").write_text(CALLBACK_LIBRARY)
    subprocess.run(["gcc", "-shared", "-fPIC", "-Wl,-Bsymbolic-functions", "cb.c", "-o", "libcb.so"],
                   cwd=lib, check=True)
    subprocess.run(["gcc", "-c", "cb.c", "-o", "cb.o"], cwd=lib, check=True)
    subprocess.run(["ar", "rcs", "libcb.a", "cb.o"], cwd=lib, check=True)
    (tmp_path / "main.c").write_text(CALLBACK_MAIN)
    work = init(tmp_path, installed_prefix, "cb", "c", "-lcb", tmp_path / "main.c", cppflags=f"-I{lib}",
                ldflags=f"-L{lib} -Wl,-rpath,{lib}", headers=["cb.h"])
    work.make()
    assert set(work.wrapped()) == {"cb_call", "cb_default"}
    work.make("install")
    before = work.make("installcheck", check=False)
    assert before.returncode != 0 and "1002" in before.stdout    # the plain output, then what differs

    makefile = work.path / "Makefile"
    makefile.write_text(makefile.read_text().replace("LIBWRAP_ADDRESS_COMPARED_SYMBOLS =",
                                                     "LIBWRAP_ADDRESS_COMPARED_SYMBOLS = cb_default"))
    work.make()
    assert set(work.wrapped()) == {"cb_call"}
    assert ("cb_default: address compared by the library: listed in LIBWRAP_ADDRESS_COMPARED_SYMBOLS "
            "('cb_default')") in work.read("not_wrappable.txt").splitlines()
    work.make("install")
    after = work.make("installcheck", check=False)
    assert after.returncode == 0, after.stdout + after.stderr
    for mode in MODES:
        tag = "exec" if mode == "exec" else mode.replace(" ", "_")
        assert visits(work.path / "installcheck" / f"experiment_{tag}").get("cb_call") == 1, mode


def test_an_address_compared_name_that_names_nothing_is_an_error(tmp_path):
    header = tmp_path / "libwrap.i"
    header.write_text(CALLBACK_HEADER)
    with pytest.raises(HeaderError, match=r"LIBWRAP_ADDRESS_COMPARED_SYMBOLS: 'cb_defualt' matches no "
                                          r"function the headers declare"):
        scan_header(header, language="c", address_compared=["cb_call", "cb_defualt"])


# ---- what the program reaches without naming it -----------------------------------

REACHED_HEADER = """\
class Text {
public:
    Text upper() const & { return upper_helper(*this); }     // inline: calls a private helper
    static Text make(const char *s) { return Text(from_helper(s, -1)); }
    friend bool operator<(const Text &, const Text &);      // declared only here: found by ADL
    friend int count_all(int);                              // declared only here: nothing finds it
private:
    explicit Text(int);
    static Text upper_helper(const Text &);
    static Text upper_helper(Text &);                       // an overload of a called name
    static int from_helper(const char *, int);
    void unused_helper();                                   // no inline code calls it
    int n;
};
inline int length_of(const Text &t);
"""


def test_private_helpers_of_inline_members_and_hidden_friends_are_wrapped(tmp_path):
    """The program calls Text::upper_helper through Text::upper() and
    operator< by argument-dependent lookup: their symbols are wrapped. What
    no code outside the class can reach is reported with the reason."""
    header = tmp_path / "libwrap.i"
    header.write_text(REACHED_HEADER)
    scan = scan_header(header, language="c++")
    wrapped = {p.attributes["symbol"]: p for p in scan.procedures}
    assert set(wrapped) == {"_ZN4Text12upper_helperERKS_", "_ZN4Text12upper_helperERS_",
                            "_ZN4Text11from_helperEPKci", "_ZltRK4TextS1_"}
    assert wrapped["_ZN4Text11from_helperEPKci"].attributes["access"] == "private"
    reasons = dict(scan.skipped)
    assert "no inline code of its class calls" in reasons["Text::unused_helper()"]
    assert "private constructor" in reasons["Text::Text(int)"]
    assert "no parameter of that class" in reasons["count_all(int)"]


def test_address_compared_names_are_region_names_qualified_names_or_symbols(tmp_path):
    header = tmp_path / "libwrap.i"
    header.write_text(REACHED_HEADER)
    scan = scan_header(header, language="c++", address_compared=[
        "Text::upper_helper(Text?const&)", "Text::from_*", "_ZltRK4TextS1_"])
    assert {p.attributes["symbol"] for p in scan.procedures} == {"_ZN4Text12upper_helperERS_"}
    reasons = dict(scan.skipped)
    assert reasons["Text::upper_helper(const Text &)"] == \
        "address compared by the library: listed in LIBWRAP_ADDRESS_COMPARED_SYMBOLS ('Text::upper_helper(Text?const&)')"
    assert reasons["operator<(const Text &, const Text &)"].endswith("('_ZltRK4TextS1_')")
