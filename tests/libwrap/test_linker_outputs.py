"""Each linker output parser (generator/libwrap/linker_*.py) reads the symbols,
versions and archive members out of outputs recorded from the real linkers
(linker_outputs/README.md says how they were made); the expected values are
read off the recorded files by hand."""
import pathlib
import types

from generator.libwrap import link_errors, linker_gnu_ld, linker_gold, linker_lld

OUTPUTS = pathlib.Path(__file__).resolve().parent / "linker_outputs"
STEM = "scorep_libwrap_refs"

UNDEFINED_REFS = ["no_such_function", "_ZN4demo7missingEi", "lib_member", "demo_versioned@DEMO_9"]
MEMBER_OF_UNDEFINED = {"./libmember.a(member.o)": ("scorep_libwrap_refs_1_src_0.o", "lib_member")}
CHAIN = "deep/directory/of/libraries/libchain.a"
MEMBERS_OF_CHAIN = {
    f"{CHAIN}(chain_first_member.o)": ("scorep_libwrap_refs_2_src_0.o", "chain_first"),
    f"{CHAIN}(chain_second_member.o)": (f"{CHAIN}(chain_first_member.o)", "chain_second"),
}


def recorded(linker, name):
    return (OUTPUTS / linker / name).read_text()


def failed_link(output):
    return types.SimpleNamespace(returncode=1, stderr=output, stdout="")


def names_of(symbols):
    return {s: [s] for s in symbols}


# ---- GNU ld ----------------------------------------------------------------------

def test_gnu_ld_names_each_undefined_reference_with_the_version_in_the_name():
    assert linker_gnu_ld.undefined_symbols(recorded("gnu_ld", "undefined.txt")) == [
        ("no_such_function", ""), ("_ZN4demo7missingEi", ""), ("demo_versioned@DEMO_9", ""),
        ("lib_needs_missing", "")]


def test_gnu_ld_names_the_symbol_a_missing_dso_defines_with_its_default_version():
    assert linker_gnu_ld.undefined_symbols(recorded("gnu_ld", "dso_missing.txt")) == [
        ("cbrt@@GLIBC_2.2.5", "")]


def test_gnu_ld_map_says_which_reference_pulled_in_each_archive_member():
    assert linker_gnu_ld.archive_members(recorded("gnu_ld", "undefined.map")) == MEMBER_OF_UNDEFINED


def test_gnu_ld_map_with_long_member_names_puts_the_referrer_on_the_next_line():
    assert linker_gnu_ld.archive_members(recorded("gnu_ld", "archive_chain.map")) == MEMBERS_OF_CHAIN


# ---- gold ------------------------------------------------------------------------

def test_gold_names_each_undefined_reference_and_the_version_apart():
    assert linker_gold.undefined_symbols(recorded("gold", "undefined.txt")) == [
        ("no_such_function", ""), ("_ZN4demo7missingEi", ""), ("demo_versioned", "DEMO_9"),
        ("lib_needs_missing", "")]


def test_gold_names_a_symbol_of_a_missing_dso_as_plainly_undefined():
    assert linker_gold.undefined_symbols(recorded("gold", "dso_missing.txt")) == [("cbrt", "")]


def test_gold_map_says_which_reference_pulled_in_each_archive_member():
    assert linker_gold.archive_members(recorded("gold", "undefined.map")) == MEMBER_OF_UNDEFINED
    assert linker_gold.archive_members(recorded("gold", "archive_chain.map")) == MEMBERS_OF_CHAIN


# ---- lld -------------------------------------------------------------------------

def test_lld_names_each_undefined_symbol_with_the_version_in_the_name():
    assert linker_lld.undefined_symbols(recorded("lld", "undefined.txt")) == [
        ("no_such_function", ""), ("_ZN4demo7missingEi", ""), ("demo_versioned@DEMO_9", ""),
        ("lib_needs_missing", "")]


def test_lld_names_the_archive_member_an_undefined_symbol_is_referenced_from():
    assert linker_lld.members_named(recorded("lld", "undefined.txt")) == ["./libmember.a(member.o)"]
    assert linker_lld.members_named(recorded("lld", "archive_chain.txt")) == [
        f"{CHAIN}(chain_second_member.o)"]


def test_lld_why_extract_says_which_reference_pulled_in_each_archive_member():
    assert linker_lld.why_extract(recorded("lld", "undefined.why")) == MEMBER_OF_UNDEFINED
    assert linker_lld.why_extract(recorded("lld", "archive_chain.why")) == MEMBERS_OF_CHAIN


def test_lld_says_when_it_stopped_at_its_error_limit():
    output = recorded("lld", "error_limit.txt")
    assert linker_lld.stopped_at_error_limit(output)
    assert [s for s, _ in linker_lld.undefined_symbols(output)] == [f"absent_{i}" for i in range(20)]
    assert not linker_lld.stopped_at_error_limit(recorded("lld", "undefined.txt"))


# ---- the analysis of a failed link, over every linker's output ------------------------

def analysed(linker, name, symbols):
    members = link_errors.read_members(OUTPUTS / linker / name)
    output = recorded(linker, f"{name}.txt")
    return link_errors.analyse(failed_link(output), names_of(symbols), STEM, members)


def test_each_linker_fails_our_undefined_references_and_the_symbol_pulling_in_a_broken_member():
    for linker in ("gnu_ld", "gold", "lld"):
        outcome = analysed(linker, "undefined", UNDEFINED_REFS)
        assert outcome.failed == set(UNDEFINED_REFS), linker
        assert outcome.via_members == {"lib_member"}, linker
        assert outcome.unattributed == [], linker


def test_each_linker_follows_a_chain_of_archive_members_back_to_our_symbol():
    for linker in ("gnu_ld", "gold", "lld"):
        outcome = analysed(linker, "archive_chain", ["chain_first", "inner_only"])
        assert outcome.failed == {"chain_first", "inner_only"}, linker
        assert outcome.via_members == {"chain_first"}, linker


def test_gnu_ld_missing_dso_fails_the_symbol_and_leaves_its_dso_line_unattributed():
    outcome = analysed("gnu_ld", "dso_missing", ["outer2", "cbrt"])
    assert outcome.failed == {"cbrt"}
    assert len(outcome.unattributed) == 1 and "DSO missing" in outcome.unattributed[0]
