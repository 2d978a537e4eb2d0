"""Header front-end for library wrapping: libclang over a preprocessed header
(`libwrap.i`) -> one `generator.model.Procedure` per wrappable function.

    result = scan_header("libwrap.i", language="c++", clang_args=["-std=c++17"])
    result.procedures   # Procedure objects in declaration order, one per symbol
    result.skipped      # (name, reason) for functions seen but not wrappable
    result.warnings     # errors libclang reported in system headers (tolerated)

The steps, a module each: clang_load (libclang), header_parse (the header as
clang accepts it, its errors), scan (declarations -> Procedure objects, with
declaration_walk, skip_reasons and c_types), all of them following the
library rules of library_rules.json.
"""
import os
from dataclasses import dataclass, field

from .clang_load import HeaderError, load_cindex
from .header_parse import check_annotations, is_c89, parse, raise_errors, sorted_diagnostics
from .scan import Scanner
from .source_locations import PresumedLocations

__all__ = ["HeaderError", "ScanResult", "scan_header", "load_cindex"]


@dataclass
class ScanResult:
    procedures: list
    skipped: list                      # [(name, reason)]
    skipped_files: list = field(default_factory=list)   # the declaring file of each skipped entry
    warnings: list = field(default_factory=list)
    language: str = "c"
    path: str = ""


def scan_header(path, language="c", clang_args=(), tolerate_system_header_errors=True,
                address_compared=(), rules=None):
    """Scan a preprocessed header (`libwrap.i`) for wrappable functions.

    language: "c" or "c++"; clang_args: extra compiler flags (-std=..., -D...).
    address_compared: names or shell patterns of functions whose address the
    library compares or stores (LIBWRAP_ADDRESS_COMPARED_SYMBOLS): listed as
    not wrappable, as Qt signals are; a pattern that names nothing is an error.
    rules: the library rules (library_rules.load_rules), those of
    library_rules.json unless given.
    Errors libclang reports raise HeaderError, except (by default) errors in
    system headers: a header preprocessed by GCC carries GCC-only builtins from
    the compiler's own headers (libstdc++'s `__integer_pack`) that clang does
    not know; those land in `warnings`, and a function whose own declaration
    is broken by them is skipped.
    """
    if language not in ("c", "c++"):
        raise HeaderError(f"unknown language '{language}' (c or c++)", file=path)
    path = os.path.abspath(str(path))
    if not os.path.isfile(path):
        raise HeaderError("no such file", file=path)
    clang_args = list(clang_args)
    ci, tu, source, args = parse(path, language, clang_args, rules)
    errors, warnings = sorted_diagnostics(ci, tu, PresumedLocations(ci, path),
                                          tolerate_system_header_errors)
    raise_errors(errors, path, language, args)
    check_annotations(source, language, path, rules)
    scanner = Scanner(ci, tu, language, path, c89=is_c89(clang_args),
                      address_compared=address_compared, text=source, rules=rules)
    procedures, skipped, skipped_files, name_warnings = scanner.run()
    return ScanResult(procedures=procedures, skipped=skipped, skipped_files=skipped_files,
                      warnings=warnings + name_warnings,
                      language=language, path=scanner.path)
