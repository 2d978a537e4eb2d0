"""The library rules of the header front-end (generator/libwrap/library_rules.json):
every rule the front-end ships is usable and says why it exists; a rule file
with a rule the front-end cannot use stops with an error that names the
file, the rule and what is wrong; and the rules, not code, decide what the
scan does (a rule file without the Qt rule wraps a signal)."""
import json
import pathlib
import shutil
import subprocess

import pytest

from generator.errors import SpecError
from generator.libwrap.library_rules import RULES_FILE, LibraryRuleError, load_rules

GOOD = {"name": "some-macro", "kind": "define", "define": "X=1", "languages": ["c"],
        "reason": "a header needs it"}


def rules_file(tmp_path, *rules, top=None):
    path = tmp_path / "rules.json"
    path.write_text(json.dumps(top if top is not None else {"rules": list(rules)}))
    return path


def error_of(path):
    with pytest.raises(LibraryRuleError) as info:
        load_rules(path)
    assert isinstance(info.value, SpecError)
    return str(info.value)


def test_every_shipped_rule_loads_and_gives_its_reason():
    rules = load_rules(RULES_FILE)
    assert {r.name for r in rules} >= {"qt-signals", "standard-attributes-first"}
    assert all(len(r.reason) > 20 for r in rules)


def test_a_rule_of_an_unknown_kind_names_the_file_the_rule_and_the_kinds(tmp_path):
    path = rules_file(tmp_path, GOOD, {**GOOD, "name": "odd", "kind": "rename_symbols"})
    message = error_of(path)
    assert str(path) in message and "entry 'odd'" in message
    assert "unknown kind 'rename_symbols'" in message and "keyword_type" in message


def test_a_rule_without_a_reason_is_an_error(tmp_path):
    rule = dict(GOOD)
    del rule["reason"]
    message = error_of(rules_file(tmp_path, rule))
    assert "entry 'some-macro'" in message and "field 'reason' missing" in message


def test_a_field_the_kind_does_not_take_is_named(tmp_path):
    message = error_of(rules_file(tmp_path, {**GOOD, "keyword": "_Float16"}))
    assert "entry 'some-macro'" in message and "keyword" in message and "not taken by kind 'define'" in message


def test_a_value_of_the_wrong_type_is_named(tmp_path):
    message = error_of(rules_file(tmp_path, {**GOOD, "languages": "c"}))
    assert "field 'languages' must be a non-empty list" in message


def test_an_unknown_language_is_named(tmp_path):
    message = error_of(rules_file(tmp_path, {**GOOD, "languages": ["fortran"]}))
    assert "'fortran' is not one of c, c++" in message


def test_a_rule_without_a_name_is_named_by_its_position(tmp_path):
    rule = dict(GOOD)
    del rule["name"]
    message = error_of(rules_file(tmp_path, GOOD | {"name": "first"}, rule))
    assert "entry 'rule 2'" in message and "field 'name' missing" in message


def test_a_rule_that_is_not_an_object_and_a_file_without_rules_are_errors(tmp_path):
    assert "entry 'rule 1'" in error_of(rules_file(tmp_path, "define X"))
    assert 'needs a list "rules"' in error_of(rules_file(tmp_path, top={"rule": []}))
    broken = tmp_path / "broken.json"
    broken.write_text('{"rules": [')
    assert "not JSON" in error_of(broken)


def test_a_bad_regular_expression_is_named(tmp_path):
    qt = next(r for r in json.loads(RULES_FILE.read_text())["rules"] if r["name"] == "qt-signals")
    message = error_of(rules_file(tmp_path, {**qt, "declared_when": "qt_metacall("}))
    assert "entry 'qt-signals'" in message and "field 'declared_when'" in message


def test_two_rules_of_one_name_are_an_error(tmp_path):
    assert "entry 'some-macro'" in error_of(rules_file(tmp_path, GOOD, GOOD))


SIGNAL_HEADER = r"""
class Sender {
public:
    struct QPrivateSignal {};
    void changed(int value, QPrivateSignal);
    void set(int value);
};
"""


@pytest.mark.skipif(not shutil.which("g++"), reason="g++ missing")
def test_the_rules_decide_that_a_qt_signal_is_not_wrapped(tmp_path):
    from generator.libwrap.header import HeaderError, scan_header
    try:
        from generator.libwrap.clang_load import load_cindex
        load_cindex()
    except HeaderError:
        pytest.skip("libclang not installed")
    header = tmp_path / "sender.h"
    header.write_text(SIGNAL_HEADER)
    preprocessed = tmp_path / "sender.ii"
    subprocess.run(["g++", "-E", str(header), "-o", str(preprocessed)], check=True)
    shipped = scan_header(preprocessed, language="c++")
    assert [p.attributes["source_name"] for p in shipped.procedures] == ["set"]
    assert any("changed" in name and "Qt signal" in reason for name, reason in shipped.skipped)
    without_qt = [r for r in load_rules(RULES_FILE) if r.name != "qt-signals"]
    scanned = scan_header(preprocessed, language="c++", rules=without_qt)
    assert sorted(p.attributes["source_name"] for p in scanned.procedures) == ["changed", "set"]
