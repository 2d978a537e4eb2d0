"""Parsing a preprocessed header with libclang as clang accepts it: the
compiler-specific rules of library_rules.json applied (macros for what a
GCC-preprocessed header contains that clang 16 rejects, standard attributes
first), function bodies skipped, and its errors sorted into those that stop
the scan and those in system headers that are tolerated."""
import re

from .attribute_order import standard_attributes_first
from .clang_load import HeaderError, load_cindex
from .library_rules import keyword_type, rules_of
from .parse_advice import how_to_go_on

PARSE_SKIP_FUNCTION_BODIES = 0x40
MAX_REPORTED_ERRORS = 20
C89 = re.compile(r"--?std=(c89|c90|gnu89|gnu90|iso9899:1990|iso9899:199409)")


def compat_args(text, language, rules=None):
    """The -D options of the define and keyword_type rules for this header: a
    keyword only where the header uses it and no typedef names it (a header
    preprocessed by clang has typedefs for GCC's _FloatN instead)."""
    args = [f"-D{rule['define']}" for rule in rules_of("define", rules)
            if language in rule["languages"]]
    for rule in rules_of("keyword_type", rules):
        word = rule["keyword"].encode()
        if language in rule["languages"] and word in text \
                and not re.search(rb"typedef[^;]*\b" + word + rb"\s*;", text):
            args.append(f"-D{rule['keyword']}={keyword_type(rule)}")
    return args


def source_for_clang(text, rules=None):
    """The text libclang parses: with the attribute_order rule, standard
    attribute lists before GNU ones."""
    if rules_of("attribute_order", rules):
        text, _ = standard_attributes_first(text)
    return text


def is_c89(clang_args):
    return any(C89.fullmatch(a) or a == "-ansi" for a in clang_args)


def parse(path, language, clang_args, rules=None):
    """(clang.cindex, translation unit, the text parsed, the arguments given)."""
    ci = load_cindex()
    with open(path, "rb") as f:
        raw = f.read()
    args = ["-x", language, "-ferror-limit=0", "-w", *compat_args(raw, language, rules)]
    if language == "c++" and not any(a.startswith(("-std=", "--std")) for a in clang_args):
        args.append("-std=c++17")
    args += clang_args
    source = source_for_clang(raw, rules)
    try:
        tu = ci.Index.create().parse(path, args=args, unsaved_files=[(path, source)],
                                     options=PARSE_SKIP_FUNCTION_BODIES)
    except ci.TranslationUnitLoadError as exc:
        raise HeaderError(f"libclang cannot parse it ({exc}; arguments: {' '.join(args)})",
                          file=path) from None
    return ci, tu, source, args


def sorted_diagnostics(ci, tu, locations, tolerate_system_header_errors):
    """(errors, warnings): libclang's errors as `file:line:col: error: text`;
    those in system headers are warnings when tolerated."""
    errors, warnings = [], []
    lib = ci.conf.lib
    for d in tu.diagnostics:
        if d.severity < ci.Diagnostic.Error:
            continue
        location = d.location
        if location.file is not None:
            file, line, col = locations.presumed(location)
            text = f"{file}:{line}:{col}: error: {d.spelling}"
        else:
            text = f"error: {d.spelling}"
        if (tolerate_system_header_errors and location.file is not None
                and lib.clang_Location_isInSystemHeader(location)):
            warnings.append(text + " (in a system header; tolerated)")
        else:
            errors.append(text)
    return errors, warnings


def raise_errors(errors, path, language, args):
    if errors:
        shown = errors[:MAX_REPORTED_ERRORS]
        more = len(errors) - len(shown)
        raise HeaderError(
            f"libclang reports {len(errors)} error(s) in the preprocessed {language} header:\n  "
            + "\n  ".join(shown) + (f"\n  ... and {more} more" if more else "")
            + "\n" + how_to_go_on(errors, language, args), file=path)


def check_annotations(source, language, path, rules=None):
    """An address_compared_members rule whose members the header declares
    (its declared_when matches) but whose annotation libwrap.i lacks: the
    members cannot be told apart, so the scan stops with the rule's message."""
    if language != "c++":
        return
    for rule in rules_of("address_compared_members", rules):
        if re.search(rule["declared_when"].encode(), source) \
                and f'annotate("{rule["annotation"]}")'.encode() not in source:
            raise HeaderError(rule["annotation_missing"], file=path)
