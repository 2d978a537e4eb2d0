"""The library-header front-end: libclang over a preprocessed header ->
Procedure objects (generator/libwrap/header.py).

The strongest check renders, from the Procedure objects alone, a translation
unit that includes the real header and states every procedure's signature in
a way only the exact declaration satisfies (a pointer to the one overload with
these parameter types, an out-of-line definition for constructors and
destructors), and compiles it.
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time
from dataclasses import replace

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from generator.errors import SpecError  # noqa: E402
from generator.libwrap import header as frontend  # noqa: E402
from generator.libwrap.header import HeaderError, scan_header  # noqa: E402

HEADERS = pathlib.Path(__file__).resolve().parent / "headers"


def _have_libclang():
    try:
        frontend.load_cindex()
        return True
    except HeaderError:
        return False


pytestmark = [
    pytest.mark.skipif(not _have_libclang(), reason="python3-clang-16 / libclang not installed"),
    pytest.mark.skipif(not (shutil.which("gcc") and shutil.which("g++")), reason="gcc/g++ missing"),
]


# ---- helpers ---------------------------------------------------------------------

def preprocess(header, out, language, flags=()):
    cc = "g++" if language == "c++" else "gcc"
    subprocess.run([cc, "-E", *flags, str(header), "-o", str(out)], check=True)
    return out


def scan(tmp, header, language, flags=(), **kw):
    suffix = ".ii" if language == "c++" else ".i"
    out = preprocess(header, tmp / (pathlib.Path(header).stem + suffix), language, flags)
    return scan_header(out, language=language, **kw)


def params(proc, declarators):
    items = [p.c_declarator.format(name=p.name) if declarators else p.c_type
             for p in proc.parameters]
    if proc.attributes["variadic"]:
        items.append("...")
    return items


def c_param_list(proc, declarators):
    items = params(proc, declarators)
    if proc.attributes["no_prototype"]:
        return ""
    return ", ".join(items) if items else "void"


def render_c_checks(procedures, include):
    """Each procedure's pointer type, once from the types and once from the
    declarators, initialised with the function's address."""
    lines, owner = [f'#include "{include}"'], {}
    for i, proc in enumerate(procedures):
        a = proc.attributes
        name = a["source_name"]
        for text in (
                f"typedef __typeof__({a['return_type']}) scorep_r{i};",
                f"static scorep_r{i} (*scorep_t{i})({c_param_list(proc, False)}) = &{name};",
                "static " + a["return_declarator"].format(
                    name=f"(*scorep_d{i})({c_param_list(proc, True)})") + f" = &{name};"):
            lines.append(text)
            owner[len(lines)] = proc
    return "\n".join(lines) + "\n", owner


def render_cxx_checks(procedures, include):
    """Free and static functions: `static_cast<R (*)(P)>(&ns::f)` selects the
    one overload with exactly these types; methods the same with `R (C::*)(P) cv
    ref`; constructors and destructors: an out-of-line definition, which must
    match a declaration of the class exactly.  Protected members are reached
    from a derived class."""
    lines, owner = [f'#include "{include}"', "#include <type_traits>", "#include <utility>"], {}
    signature_only = set()

    def emit(text, proc):
        lines.append(text)
        owner[len(lines)] = proc

    for i, proc in enumerate(procedures):
        a = proc.attributes
        kind = a["function_kind"]
        types, decls = ", ".join(params(proc, False)), ", ".join(params(proc, True))
        # the types and the declarators name the same function type
        emit(f"static_assert(std::is_same<void (*)({types}), void (*)({decls})>::value, \"{i}\");", proc)
        if a.get("access") == "private":
            continue        # no C++ code outside the class can name it (the wrappers use its symbol)
        if a.get("hidden_friend"):
            # no qualified name either: a call finds it (argument-dependent lookup)
            args = ", ".join(f"std::declval<{t}>()" for t in params(proc, False))
            emit(f"static_assert(std::is_same<decltype({a['source_name']}({args})), {a['return_type']}>::value, "
                 f"\"{i}\");", proc)
            continue
        if kind in ("constructor", "destructor"):
            noexcept = " noexcept" if a["noexcept"] else ""
            emit(f"{a['qualified_name']}({decls}){noexcept} {{}}", proc)
            signature_only.add(len(lines))
            continue
        cls = a["class"]
        target = a["qualified_name"]
        probe = a.get("access") == "protected"
        if probe:
            emit(f"struct scorep_probe{i} : {cls} {{ static void scorep_check() {{", proc)
            target = f"scorep_probe{i}::{a['source_name']}"
        emit(f"using scorep_r{i} = {a['return_type']};", proc)
        if kind == "method":
            cv = a["this_type"][:-len(cls)].strip()
            quals = " ".join(q for q in (cv, a["ref_qualifier"]) if q)
            emit(f"static auto scorep_t{i} = static_cast<scorep_r{i} ({cls}::*)({types}) {quals}>(&{target});", proc)
            declarator = f"({cls}::*scorep_d{i})({decls}) {quals}"
        else:
            emit(f"static auto scorep_t{i} = static_cast<scorep_r{i} (*)({types})>(&{target});", proc)
            declarator = f"(*scorep_d{i})({decls})"
        emit("static " + a["return_declarator"].format(name=declarator) + f" = &{target};", proc)
        if probe:
            emit("} };", proc)
    return "\n".join(lines) + "\n", owner, signature_only


# An out-of-line constructor definition also initialises bases and members,
# which may not be default-constructible: on those lines only a mismatch
# between the definition and the class's declarations counts.
SIGNATURE_ERRORS = re.compile(r"no declaration matches|does not match any|different exception specifier"
                              r"|redefinition|declared in class|is not a member")


def compile_check(tmp, procedures, include, language, flags=()):
    """Compile the rendered checks; the procedures whose lines do not compile."""
    signature_only = set()
    if language == "c++":
        source, owner, signature_only = render_cxx_checks(procedures, include)
        path, cc = tmp / "check.cc", ["g++", "-std=c++17"]
    else:
        source, owner = render_c_checks(procedures, include)
        path, cc = tmp / "check.c", ["gcc", "-Werror=incompatible-pointer-types"]
    path.write_text(source)
    run = subprocess.run([*cc, "-fsyntax-only", "-fmax-errors=0", *flags, str(path)],
                         capture_output=True, text=True)
    if run.returncode == 0:
        return []
    bad = {}
    for m in re.finditer(rf"^{re.escape(str(path))}:(\d+):\d+: error: (.*)$", run.stderr, re.M):
        if int(m.group(1)) in signature_only and not SIGNATURE_ERRORS.search(m.group(2)):
            continue
        proc = owner.get(int(m.group(1)))
        key = proc.name if proc else f"line {m.group(1)}"
        bad.setdefault(key, f"{source.splitlines()[int(m.group(1)) - 1]}  -> {m.group(2)}")
    if not bad and not re.search(rf"^{re.escape(str(path))}:\d+:\d+: error:", run.stderr, re.M):
        return [run.stderr[-3000:]]          # errors elsewhere (in the header itself?)
    return [f"{k}: {v}" for k, v in bad.items()]


def by_name(result):
    return {p.name: p for p in result.procedures}


def skipped_reasons(result):
    return {name: reason for name, reason in result.skipped}


# ---- the C header ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def c_scan(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cfront")
    return tmp, scan(tmp, HEADERS / "cfront.h", "c")


def test_c_signatures_compile_against_the_header(c_scan):
    tmp, result = c_scan
    assert compile_check(tmp, result.procedures, HEADERS / "cfront.h", "c") == []


def test_c_types_and_declarators(c_scan):
    _, result = c_scan
    procs = by_name(result)

    def param(fn, i):
        p = procs[fn].parameters[i]
        return p.name, p.kind, p.c_type, p.c_declarator

    assert param("cf_add", 0) == ("a", "integer", "int", "int {name}")
    assert param("cf_length", 0) == ("text", "string", "const char *", "const char * {name}")
    assert param("cf_seek", 0) == ("h", "pointer", "cf_handle", "cf_handle {name}")
    assert param("cf_seek", 1)[1:3] == ("integer", "cf_offset")
    assert param("cf_seek", 2)[0] == "arg3"                        # unnamed
    assert param("cf_scale", 1)[1:3] == ("floating", "long double")
    assert param("cf_flag", 0)[1:3] == ("bool", "_Bool")
    assert param("cf_bytes", 0)[1:3] == ("pointer", "unsigned char *")
    assert param("cf_copy", 0)[1:] == ("string", "char *restrict", "char *restrict {name}")
    assert param("cf_names", 0)[1:3] == ("pointer", "const char *const *")
    assert param("cf_volatile", 1)[2:] == ("const int *const", "const int *const {name}")
    # typedef'd arrays stay typedefs; arrays stay arrays in the declarator
    assert param("cf_fft", 0)[1:] == ("pointer", "cplx *", "cplx * {name}")
    assert param("cf_fft", 2)[1:] == ("pointer", "cplx", "cplx {name}")
    assert param("cf_matrix", 1)[1:] == ("pointer", "double[][3]", "double {name}[][3]")
    assert param("cf_matrix", 2)[2:] == ("double[3]", "double {name}[3]")
    rows = procs["cf_rows"].attributes
    assert (rows["return_type"], rows["return_declarator"]) == ("double (*)[3]", "double (*{name})[3]")
    assert procs["cf_rows"].return_kind == "pointer"
    # function pointers
    assert param("cf_on", 0)[1:3] == ("function_pointer", "cf_callback")
    assert param("cf_sort", 2)[1:] == ("function_pointer", "int (*)(const void *, const void *)",
                                       "int (*{name})(const void *, const void *)")
    sig = procs["cf_signal"]
    assert sig.attributes["return_declarator"] == "void (*{name})(int)"
    assert sig.attributes["return_type"] == "void (*)(int)"
    assert sig.return_kind == "function_pointer"
    assert param("cf_signal", 1)[3] == "void (*{name})(int)"
    assert procs["cf_current"].return_kind == "function_pointer"
    # records, enums: C keeps its tag keywords
    assert param("cf_move", 0)[1:3] == ("record", "struct cf_point")
    assert param("cf_move", 1)[1:3] == ("pointer", "const struct cf_point *")
    assert param("cf_pick", 0)[1:3] == ("record", "union cf_value")
    assert param("cf_paint", 0)[1:3] == ("enum", "enum cf_color")
    assert param("cf_paint", 1)[1:3] == ("enum", "cf_color_t")
    assert param("cf_swap", 0)[1:3] == ("record", "cf_pair")
    assert param("cf_stat", 1)[2] == "struct cf_stat *"
    assert procs["cf_open"].return_kind == "pointer"
    assert procs["cf_reset"].return_kind == "void" and procs["cf_reset"].parameters == ()


def test_c_names_duplicates_and_flags(c_scan):
    _, result = c_scan
    procs = by_name(result)
    names = [p.name for p in result.procedures]
    assert len(names) == len(set(names))
    assert names.count("cf_twice") == 1
    # the unnamed first declaration takes the names of the second
    assert [p.name for p in procs["cf_twice"].parameters] == ["first", "second"]
    # scorep_* is the wrapper's; a renamed parameter does not take a used name
    assert [p.name for p in procs["cf_clash"].parameters] == ["arg1_", "arg1", "arg3"]
    assert procs["cf_printf"].attributes["variadic"] is True
    assert procs["cf_printf"].attributes["no_prototype"] is False
    assert procs["cf_legacy"].attributes["no_prototype"] is True
    assert procs["cf_legacy"].attributes["variadic"] is False
    assert procs["cf_modern"].attributes["no_prototype"] is False
    labelled = procs["cf_labelled"].attributes
    assert (labelled["symbol"], labelled["source_name"]) == ("cf_real_symbol", "cf_labelled")
    add = procs["cf_add"].attributes
    assert add["symbol"] == "cf_add" and add["language"] == "c"
    assert add["function_kind"] == "function" and add["class"] is None and add["this_type"] is None
    assert add["file"] == str(HEADERS / "cfront.h")
    assert add["line"] == 7
    assert procs["cf_types_version"].attributes["file"] == str(HEADERS / "cfront_types.h")
    # declaration order
    assert names.index("cf_types_version") < names.index("cf_add") < names.index("cf_labelled")
    skipped = skipped_reasons(result)
    assert skipped["cf_hidden"].startswith("static")
    assert skipped["cf_inline_static"].startswith("static")
    assert skipped["cf_inline"] == "inline"
    assert not set(skipped) & set(names)


# ---- the C++ header -------------------------------------------------------------------

@pytest.fixture(scope="module")
def cxx_scan(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cxxfront")
    return tmp, scan(tmp, HEADERS / "cxxfront.hpp", "c++")


def test_cxx_signatures_compile_against_the_header(cxx_scan):
    tmp, result = cxx_scan
    ours = [p for p in result.procedures if p.attributes["file"].startswith(str(HEADERS))]
    assert len(ours) > 40
    assert compile_check(tmp, result.procedures, HEADERS / "cxxfront.hpp", "c++") == []


def test_compile_check_catches_wrong_signatures(cxx_scan):
    """The check itself: an unqualified type, a lost const, a wrong overload fail."""
    tmp, result = cxx_scan
    procs = by_name(result)
    index = procs["geo::Canvas::operator[](unsigned int) const"]
    unqualified = replace(index, parameters=(replace(index.parameters[0], c_type="ArrayIndex"),))
    size = procs["geo::Canvas::size() const"]
    not_const = replace(size, attributes={**size.attributes, "this_type": "geo::Canvas"})
    twice = procs["geo::twice(int)"]
    wrong = replace(twice, parameters=(replace(twice.parameters[0], c_declarator="long {name}"),))
    ctor = procs["geo::Canvas::Canvas(int, int)"]
    ctor_wrong = replace(ctor, parameters=ctor.parameters[:1])
    bad = compile_check(tmp, [unqualified, not_const, wrong, ctor_wrong], HEADERS / "cxxfront.hpp", "c++")
    assert len(bad) == 4, bad


def test_cxx_qualified_types(cxx_scan):
    _, result = cxx_scan
    procs = by_name(result)

    def param(fn, i):
        p = procs[fn].parameters[i]
        return p.kind, p.c_type, p.c_declarator

    # class typedefs and using-aliases written unqualified inside the class
    assert param("geo::Canvas::operator[](unsigned int)", 0)[:2] == ("integer", "geo::Canvas::ArrayIndex")
    assert param("geo::Canvas::setNames(std::vector<std::__cxx11::basic_string<char, std::char_traits<char>, "
                 "std::allocator<char> >, std::allocator<std::__cxx11::basic_string<char, "
                 "std::char_traits<char>, std::allocator<char> > > > const&)", 0) == (
        "reference", "const geo::Canvas::Names &", "const geo::Canvas::Names & {name}")
    names = procs["geo::Canvas::names[abi:cxx11]() const"]
    assert names.attributes["return_type"] == "geo::Canvas::Names" and names.return_kind == "record"
    assert param("geo::Canvas::draw(geo::Shape, geo::Canvas::Mode)", 0)[:2] == ("enum", "geo::Shape")
    assert param("geo::Canvas::draw(geo::Shape, geo::Canvas::Mode)", 1)[:2] == ("enum", "geo::Canvas::Mode")
    assert param("geo::Canvas::draw(geo::Point const&, double) const", 1)[:2] == ("floating", "geo::real")
    assert procs["geo::Canvas::layer(unsigned int)"].attributes["return_type"] == "geo::Canvas::Layer *"
    assert param("geo::Canvas::create(unsigned long)", 0)[:2] == ("integer", "geo::index_t")
    label = procs["geo::Canvas::label(std::__cxx11::basic_string<char, std::char_traits<char>, "
                  "std::allocator<char> > const&, char const*)"]
    assert [(p.kind, p.c_type) for p in label.parameters] == [
        ("reference", "const std::string &"), ("string", "const char *")]
    assert param("geo::echo(std::__cxx11::basic_string<char, std::char_traits<char>, "
                 "std::allocator<char> > const&)", 0)[1] == "const std::string &"
    fill = procs["geo::Canvas::fill(double (*) [3], double*, double (*) [3])"]
    assert [(p.kind, p.c_type, p.c_declarator) for p in fill.parameters] == [
        ("pointer", "geo::rgb *", "geo::rgb * {name}"),
        ("pointer", "geo::rgb", "geo::rgb {name}"),
        ("pointer", "double (*)[3]", "double (*{name})[3]")]
    on = procs["geo::Canvas::onEvent(void (*)(geo::Canvas&, int), void*)"]
    assert on.parameters[0].c_declarator == "void (*{name})(geo::Canvas &, int)"
    assert on.parameters[0].kind == "function_pointer"
    handler = procs["geo::Canvas::handlerFor(int)"].attributes
    assert handler["return_declarator"] == "void (*{name})(geo::Canvas &, int)"
    box = procs["geo::useBox(geo::Box<int>&, geo::Box<unsigned long> const*, geo::Box<geo::Canvas::Mode>)"]
    assert [p.c_type for p in box.parameters] == [
        "geo::Box<int> &", "const geo::Box<geo::index_t> *", "geo::Box<geo::Canvas::Mode>"]
    deep = procs["geo::Canvas::Nested::Deep::go(geo::Canvas::Mode, geo::Canvas::Layer)"]
    assert [p.c_type for p in deep.parameters] == ["geo::Canvas::Mode", "geo::Canvas::Layer"]
    # standard-library templates
    lib = {p.attributes["source_name"]: p for p in result.procedures
           if p.attributes.get("class") == "geo::Library"}
    assert [q.c_type for q in lib["subscribe"].parameters] == [
        "geo::Library::Callback", "const std::function<int (double)> &"]
    assert lib["subscribe"].parameters[0].kind == "record"
    assert lib["count"].attributes["return_type"] == \
        "std::vector<geo::Point, std::allocator<geo::Point>>::size_type"
    assert lib["count"].return_kind == "integer"
    assert lib["triple"].attributes["return_type"] == "std::array<int, 3>"
    assert lib["triple"].parameters[0].c_type == "const std::array<double, 2> &"
    assert lib["buffer"].attributes["return_type"] == "std::unique_ptr<int[]>"
    assert lib["table"].parameters[1].c_type == "std::pair<char, int>"   # an alias template, resolved
    assert [(q.kind, q.c_declarator) for q in lib["pick"].parameters] == [
        ("reference", "const char (&{name})[4]"),
        ("record", "int (geo::Canvas::*{name})(geo::Shape, geo::Canvas::Mode)"),
        ("record", "geo::real geo::Point::* {name}")]
    assert lib["measured"].attributes["return_type"] == "unsigned long"  # decltype: canonical
    assert lib["trailing"].attributes["return_type"] == "long"
    # a class-private typedef is written as what it stands for
    assert param("geo::Canvas::usesSecret(int)", 0)[1] == "int"
    cstat = procs["c_stat"]
    assert cstat.parameters[1].c_type == "struct c_stat *"
    assert cstat.attributes["symbol"] == "c_stat"


def test_cxx_special_members_and_attributes(cxx_scan):
    _, result = cxx_scan
    procs = by_name(result)
    ctor = procs["geo::Canvas::Canvas(int, int)"].attributes
    assert ctor["symbol"] == "_ZN3geo6CanvasC1Eii"                   # complete-object constructor
    assert ctor["function_kind"] == "constructor" and ctor["this_type"] == "geo::Canvas"
    assert ctor["source_name"] == "Canvas" and ctor["class"] == "geo::Canvas"
    assert procs["geo::Canvas::Canvas(int, int)"].return_kind == "void"
    # Canvas is abstract: libclang lists no C1 among its manglings, only C2
    assert ctor["alternate_symbols"] == ["_ZN3geo6CanvasC2Eii"]
    move = procs["geo::Canvas::Canvas(geo::Canvas&&)"]
    assert move.parameters[0].c_type == "geo::Canvas &&" and move.attributes["noexcept"] is True
    dtor = procs["geo::Canvas::~Canvas()"].attributes
    assert dtor["symbol"] == "_ZN3geo6CanvasD1Ev" and dtor["function_kind"] == "destructor"
    assert dtor["virtual"] is True
    assert dtor["alternate_symbols"] == ["_ZN3geo6CanvasD2Ev", "_ZN3geo6CanvasD0Ev"]
    size = procs["geo::Canvas::size() const"].attributes
    assert size["this_type"] == "const geo::Canvas" and size["symbol"] == "_ZNK3geo6Canvas4sizeEv"
    assert size["noexcept"] is True and size["return_type"] == "geo::Canvas::ArrayIndex"
    create = procs["geo::Canvas::create(unsigned long)"].attributes
    assert create["function_kind"] == "static_method" and create["this_type"] is None
    assert create["class"] == "geo::Canvas"
    assert procs["geo::Canvas::rvalueOnly() &&"].attributes["ref_qualifier"] == "&&"
    lvalue = procs["geo::Canvas::lvalueOnly() const &"].attributes
    assert (lvalue["ref_qualifier"], lvalue["this_type"]) == ("&", "const geo::Canvas")
    assert procs["geo::Canvas::volatileMethod() volatile"].attributes["this_type"] == "volatile geo::Canvas"
    assert procs["geo::Canvas::operator bool() const"].attributes["source_name"] == "operator bool"
    shift = procs["geo::operator<<(std::basic_ostream<char, std::char_traits<char> >&, geo::Point const&)"]
    assert shift.attributes["source_name"] == "operator<<"
    assert shift.attributes["function_kind"] == "function"
    assert shift.attributes["return_type"] == "std::ostream &"
    assert procs["geo::Canvas::protectedHook(int)"].attributes["access"] == "protected"
    assert procs["geo::sum(int, ...)"].attributes["variadic"] is True
    assert "geo::twice(int)" in procs and "geo::twice(double)" in procs
    assert procs["geo::detail::v1::versioned(int)"].attributes["qualified_name"] == "geo::detail::v1::versioned"
    assert procs["global_function(geo::Canvas::Mode, geo::Shape, geo::Canvas::Nested::Deep*)"]
    assert procs["c_linkage"].attributes["symbol"] == "c_linkage"
    assert procs["geo::befriend(geo::Friendly&)"].attributes["function_kind"] == "function"
    base = procs["geo::base_version()"].attributes
    assert base["file"] == str(HEADERS / "cxxfront_base.hpp") and base["language"] == "c++"
    for p in result.procedures:
        a = p.attributes
        for key in ("symbol", "file", "line", "language", "function_kind", "class", "this_type",
                    "return_type", "return_declarator", "variadic", "no_prototype", "source_name"):
            assert key in a, (p.name, key)
        assert not any(q.name.startswith("scorep_") for q in p.parameters)
        assert len({q.name for q in p.parameters}) == len(p.parameters)


def test_cxx_skipped(cxx_scan):
    _, result = cxx_scan
    skipped = skipped_reasons(result)
    names = {p.name for p in result.procedures}
    expect = {
        "geo::Canvas::Canvas(int, int, int)": "deleted",
        "geo::Canvas::deleted()": "deleted",
        "geo::Canvas::operator new(std::size_t)": "operator new/delete",
        "geo::Canvas::operator delete(void *)": "operator new/delete",
        "geo::Canvas::outline()": "pure virtual",
        "geo::Canvas::inlineMethod()": "inline",
        "geo::Canvas::declaredInline()": "inline",
        "geo::Canvas::constant()": "constexpr",
        "geo::Canvas::templated(T)": "template",
        "geo::Canvas::privateHelper()": "private",
        "geo::Canvas::PrivateNested::work()": "private",
        "geo::Canvas::usesHidden(Hidden *)": "not accessible",
        "geo::square(T)": "function template",
        "geo::square<>(int)": "template specialisation",
        "geo::Box::get()": "class template",
        "geo::Box::set(T)": "class template",
        "geo::internal(int)": "static",
        "geo::(anonymous namespace)::hiddenAway(int)": "anonymous namespace",
        "geo::cube(int)": "constexpr",
        "geo::deletedFree(double)": "deleted",
        "geo::operator==(Friendly, Friendly)": "inline",
    }
    for name, reason in expect.items():
        assert reason in skipped.get(name, ""), (name, skipped.get(name))
    for p in names:
        assert not p.startswith(("geo::Canvas::inlineMethod", "geo::Box", "geo::square", "geo::cube"))
    # declared only as a friend, but found by argument-dependent lookup
    assert "geo::onlyFriend(geo::Friendly&, int)" in names


# ---- real library headers -------------------------------------------------------------

REAL = {
    "zlib": ("/usr/include/zlib.h", "c"),
    "sqlite3": ("/usr/include/sqlite3.h", "c"),
    "fftw3": ("/usr/include/fftw3.h", "c"),
    "jsoncpp": ("/usr/include/jsoncpp/json/json.h", "c++"),
}


@pytest.fixture(scope="module", params=sorted(REAL))
def real_scan(request, tmp_path_factory):
    header, language = REAL[request.param]
    if not os.path.exists(header):
        pytest.skip(f"{header} not installed")
    tmp = tmp_path_factory.mktemp(request.param)
    return request.param, tmp, header, language, scan(tmp, header, language)


def test_real_headers_compile(real_scan):
    library, tmp, header, language, result = real_scan
    assert compile_check(tmp, result.procedures, header, language) == []
    names = [p.name for p in result.procedures]
    assert len(names) == len(set(names))
    symbols = [p.attributes["symbol"] for p in result.procedures]
    assert len(symbols) == len(set(symbols))
    procs = by_name(result)
    if library == "zlib":
        deflate = procs["deflate"]
        assert deflate.attributes["symbol"] == "deflate"
        assert deflate.attributes["file"] == "/usr/include/zlib.h"
        assert [(p.name, p.kind, p.c_type) for p in deflate.parameters] == [
            ("strm", "pointer", "z_streamp"), ("flush", "integer", "int")]
        assert procs["gzprintf"].attributes["variadic"] is True
        assert procs["gzopen"].parameters[0].kind == "string"
        assert procs["gzopen"].return_kind == "pointer"               # gzFile
    elif library == "sqlite3":
        assert procs["sqlite3_mprintf"].attributes["variadic"] is True
        assert procs["sqlite3_open"].parameters[1].c_type == "sqlite3 **"
        assert procs["sqlite3_exec"].parameters[2].kind == "function_pointer"
    elif library == "fftw3":
        plan = procs["fftw_plan_dft_1d"]
        assert [p.c_type for p in plan.parameters] == [
            "int", "fftw_complex *", "fftw_complex *", "int", "unsigned int"]
        assert plan.parameters[1].c_declarator == "fftw_complex * {name}"
        assert plan.parameters[1].kind == "pointer"
        assert plan.attributes["return_type"] == "fftw_plan" and plan.return_kind == "pointer"
    elif library == "jsoncpp":
        as_int = procs["Json::Value::asInt() const"]
        assert as_int.attributes["symbol"] == "_ZNK4Json5Value5asIntEv"
        assert as_int.attributes["this_type"] == "const Json::Value"
        assert as_int.attributes["return_type"] == "Json::Value::Int"
        assert as_int.attributes["file"] == "/usr/include/jsoncpp/json/value.h"
        ctor = procs["Json::Value::Value(int)"]
        assert ctor.attributes["symbol"] == "_ZN4Json5ValueC1Ei"
        assert ctor.parameters[0].c_type == "Json::Value::Int"
        index = procs["Json::Value::operator[](unsigned int) const"]
        assert index.parameters[0].c_type == "Json::Value::ArrayIndex"
        assert index.attributes["return_type"] == "const Json::Value &"
        # GCC's libstdc++ uses builtins clang does not know: reported, tolerated
        assert all("system header" in w for w in result.warnings)


# ---- errors, system headers, speed ----------------------------------------------------

def test_syntax_error_names_file_and_line(tmp_path):
    with pytest.raises(HeaderError) as info:
        scan(tmp_path, HEADERS / "broken.h", "c")
    text = str(info.value)
    assert isinstance(info.value, SpecError)
    assert f"{HEADERS / 'broken.h'}:4:" in text
    assert "expected" in text


def test_errors_in_system_headers_are_tolerated(tmp_path):
    sysdir = tmp_path / "sys"
    sysdir.mkdir()
    (sysdir / "vendor.h").write_text("int vendor_bad(undeclared_type x);\nint vendor_good(int x);\n")
    (tmp_path / "lib.h").write_text("#include <vendor.h>\nint lib_fn(int x);\n")
    result = scan(tmp_path, tmp_path / "lib.h", "c", flags=["-isystem", str(sysdir)])
    assert {p.name for p in result.procedures} == {"vendor_good", "lib_fn"}
    assert "errors" in skipped_reasons(result)["vendor_bad"]
    assert any("vendor.h:1:" in w and "undeclared_type" in w for w in result.warnings)
    with pytest.raises(HeaderError, match="vendor.h:1:"):
        scan_header(tmp_path / "lib.i", "c", tolerate_system_header_errors=False)


def test_missing_file():
    with pytest.raises(HeaderError, match="no such file"):
        scan_header("/nonexistent/libwrap.i", "c")


def test_big_header_is_fast(tmp_path):
    types = ["int", "double", "const char *", "size_t", "void *", "struct big_s *",
             "big_t *", "float", "big_cb"]
    lines = ["#include <stddef.h>", "typedef struct big_s big_t;", "typedef int (*big_cb)(int);"]
    for i in range(10000):
        ps = ", ".join(f"{types[(i + j) % len(types)]} p{j}" for j in range(i % 5)) or "void"
        lines.append(f"{['int', 'double', 'void', 'const char *', 'big_t *'][i % 5]} big_fn_{i}({ps});")
    (tmp_path / "big.h").write_text("\n".join(lines) + "\n")
    preprocess(tmp_path / "big.h", tmp_path / "big.i", "c")
    start = time.perf_counter()
    result = scan_header(tmp_path / "big.i", "c")
    elapsed = time.perf_counter() - start
    ours = [p for p in result.procedures if p.name.startswith("big_fn_")]
    assert len(ours) == 10000
    assert ours[8].parameters[0].c_type == "big_cb"
    assert ours[4].parameters[2].c_type == "big_t *"
    assert ours[4].parameters[1].c_type == "struct big_s *"
    assert elapsed < 5, f"scanning 10,000 functions took {elapsed:.1f} s"


def test_glibc_assembler_labels_and_gcc_keywords(tmp_path):
    (tmp_path / "io.h").write_text("#include <stdio.h>\n#include <math.h>\n")
    result = scan(tmp_path, tmp_path / "io.h", "c")
    assert result.warnings == []            # GCC's _Float128 & co. in math.h are known
    procs = by_name(result)
    assert procs["scanf"].attributes["symbol"] == "__isoc99_scanf"    # C99 scanf
    assert procs["scanf"].attributes["variadic"] is True
    assert procs["printf"].attributes["symbol"] == "printf"
