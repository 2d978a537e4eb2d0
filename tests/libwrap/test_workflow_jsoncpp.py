"""jsoncpp, a C++ library with namespaces, classes, overloads and nested
typedefs, wrapped as a user would: mangled symbols, demangled region names,
exact call counts of chosen member functions in every mode."""
import pytest

from libwrap_runs import MODES, full_workflow, installcheck_experiment, run, visits

# calls examples/jsoncpp_main.cc makes from its own code (see its comments)
EXPECTED_CALLS = {
    "Json::Value::Value(int)": 4,
    "Json::Value::append(Json::Value&&)": 4,
    "Json::Value::asInt() const": 5,
    "Json::Value::size() const": 6,
    "Json::writeString[abi:cxx11](Json::StreamWriter::Factory const&, Json::Value const&)": 1,
    "Json::Value::operator==(Json::Value const&) const": 1,
}


@pytest.fixture(scope="module")
def jsoncpp(installed_prefix, tmp_path_factory):
    return full_workflow(tmp_path_factory.mktemp("libwrap-jsoncpp"), installed_prefix, "jsoncpp", "c++",
                         "-ljsoncpp", "jsoncpp_main.cc", cppflags="-I/usr/include/jsoncpp",
                         headers=["json/json.h"])


def test_members_are_wrapped_by_mangled_symbol_with_demangled_names(jsoncpp):
    wrapped = jsoncpp.wrapped()
    assert wrapped["_ZNK4Json5Value5asIntEv"] == "Json::Value::asInt() const"
    overloads = [name for name in wrapped.values() if name.startswith("Json::Value::Value(")]
    assert len(overloads) >= 5          # constructors from int, double, const char*, bool, ...
    assert any("ArrayIndex" in p or "unsigned int" in p for p in wrapped.values()
               if p.startswith("Json::Value::operator[]("))


@pytest.mark.parametrize("mode", MODES)
def test_every_mode_counts_each_call_exactly(jsoncpp, mode):
    got = visits(installcheck_experiment(jsoncpp, mode))
    assert {name: got.get(name, 0) for name in EXPECTED_CALLS} == EXPECTED_CALLS


def test_output_is_unchanged(jsoncpp, installed_prefix, tmp_path):
    plain = run([jsoncpp.path / "main"], installed_prefix, tmp_path, tmp_path / "e0")
    measured = run([installed_prefix / "bin" / "scorep-exec", "--libwrap=jsoncpp", "--",
                    jsoncpp.path / "main"], installed_prefix, tmp_path, tmp_path / "e1",
                   {"SCOREP_LIBWRAP_PATH": str(jsoncpp.libwrap_prefix)})
    assert measured.returncode == 0, measured.stderr
    assert measured.stdout == plain.stdout and "sum 60" in plain.stdout
