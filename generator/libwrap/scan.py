"""Scanning a parsed header's declarations into one `generator.model.Procedure`
per wrappable function, and the list of those skipped with their reasons."""
import fnmatch
import os
import re
import shutil
import subprocess

from ..model import Parameter, Procedure
from .c_types import TypePrinter, Unnameable, abstract_text, declarator_text, scope_text
from .clang_kinds import (ACCESS_PRIVATE, ACCESS_PROTECTED, EXCEPT_BASIC_NOEXCEPT,
                          EXCEPT_COMPUTED_NOEXCEPT, EXCEPT_DYNAMIC_NONE, EXCEPT_NOTHROW,
                          K_CONSTRUCTOR, K_DESTRUCTOR, MEMBER_DECLS, T_FUNCTION_NOPROTO)
from .clang_load import HeaderError
from .declaration_walk import DeclarationWalk
from .skip_reasons import ADDRESS_COMPARED, SkipReasons
from .source_locations import PresumedLocations

# the Makefile setting that declares functions whose address the library
# compares (scan_header's address_compared)
ADDRESS_COMPARED_SETTING = "LIBWRAP_ADDRESS_COMPARED_SYMBOLS"


class NoSymbol(Exception):
    """libclang cannot mangle the declaration."""


class Scanner:
    """The Procedure objects of a parsed translation unit: its declarations
    walked, each either skipped with its reason or built with its symbol,
    types and region name."""

    def __init__(self, ci, tu, language, path, c89=False, address_compared=(), text=b"", rules=None):
        self.ci = ci
        self.lib = ci.conf.lib
        self.tu = tu
        self.cxx = language == "c++"
        self.language = language
        self.path = os.path.abspath(str(path))
        self.address_compared = list(address_compared)
        # `restrict` is C99; C++ and C89 compilers know only the GNU spelling
        restrict = "restrict" if language == "c" and not c89 else "__restrict"
        self.types = TypePrinter(self.lib, self.cxx, restrict)
        self.declarations = DeclarationWalk(self.lib, tu, self.cxx, text)
        self.skips = SkipReasons(ci, tu, self.cxx, text, self.declarations.class_code, rules)
        self.locations = PresumedLocations(ci, self.path)

    def skipped_name(self, e):
        c = e.cursor
        if e.reason:
            return e.prefix
        if not self.cxx:
            return c.spelling
        if e.prefix is None:            # a friend: named in its namespace
            scope = scope_text(c.semantic_parent)
            return (scope + "::" if scope else "") + c.displayname
        return e.prefix + c.displayname

    def manglings(self, c):
        """Every symbol of a constructor or destructor (C1/C2, D0/D1/D2)."""
        found = self.lib.clang_Cursor_getCXXManglings(c)
        if not found:
            return []
        try:
            cstring = self.ci._scorep_raw_cstring
            strings = found.contents.strings
            return [cstring(strings[i]).decode() for i in range(found.contents.count)]
        finally:
            self.lib.clang_disposeStringSet(found)

    def build(self, e):
        """(procedure fields) for an entry, or raises Unnameable."""
        c = e.cursor
        lib = self.lib
        k = c._kind_id
        # the latest declaration has every attribute, an assembler label
        # added by a redeclaration too (glibc: scanf -> __isoc99_scanf)
        latest = e.others[-1] if e.others else c
        symbol = (latest.mangled_name or "").lstrip("\x01")
        if not symbol:
            raise NoSymbol()
        ftype = c.type
        no_prototype = ftype._kind_id == T_FUNCTION_NOPROTO
        variadic = not no_prototype and bool(lib.clang_isFunctionTypeVariadic(ftype))
        cls = None
        this_type = None
        function_kind = "function"
        ref_qualifier = ""
        if k in MEMBER_DECLS:
            parent = c.semantic_parent
            cls = self.types.record_name(parent)
            if k == K_CONSTRUCTOR:
                function_kind = "constructor"
            elif k == K_DESTRUCTOR:
                function_kind = "destructor"
            elif lib.clang_CXXMethod_isStatic(c):
                function_kind = "static_method"
            else:
                function_kind = "method"
            if function_kind != "static_method":
                cv = []
                if lib.clang_CXXMethod_isConst(c):
                    cv.append("const")
                if re.match(r"_ZNr?K?V", symbol):
                    cv.append("volatile")
                this_type = " ".join(cv + [cls])
            ref_qualifier = {1: "&", 2: "&&"}.get(lib.clang_Type_getCXXRefQualifier(ftype), "")
        if k in (K_CONSTRUCTOR, K_DESTRUCTOR):
            return_type, return_declarator, return_kind = "void", "void {name}", "void"
        else:
            result = c.result_type
            before, after = self.types.type_parts(result)
            return_type = abstract_text(before, after)
            return_declarator = declarator_text(before, after, "{name}")
            return_kind = self.types.coarse_kind(result)
        arguments = list(c.get_arguments())
        declared = [a.spelling for a in arguments]
        for other in e.others:              # a name from another declaration
            if all(declared):
                break
            other_names = [a.spelling for a in other.get_arguments()]
            if len(other_names) == len(declared):
                declared = [d or o for d, o in zip(declared, other_names)]
        names = _parameter_names(declared)
        parameters = []
        for position, (a, name) in enumerate(zip(arguments, names), 1):
            t = a.type
            try:
                before, after = self.types.type_parts(t)
            except Unnameable as exc:
                raise Unnameable(f"parameter {position}: {exc}") from None
            parameters.append(Parameter(
                name=name, kind=self.types.coarse_kind(t, parameter=True), direction="in",
                c_type=abstract_text(before, after), c_declarator=declarator_text(before, after, "{name}")))
        file, line, _ = self.locations.presumed(c.location)
        source_name = c.spelling
        scope = self.types.scope_prefix(c) if self.cxx else ""
        attributes = {
            "symbol": symbol,
            "file": file,
            "line": line,
            "language": self.language,
            "function_kind": function_kind,
            "class": cls,
            "this_type": this_type,
            "return_type": return_type,
            "return_declarator": return_declarator,
            "variadic": variadic,
            "no_prototype": no_prototype,
            "source_name": source_name,
            "qualified_name": scope + source_name,
        }
        if self.cxx:
            if k in (K_CONSTRUCTOR, K_DESTRUCTOR):
                # libclang's symbol is the complete-object one (C1, D1); the
                # base-object (C2, D2) and deleting (D0) ones are the others
                attributes["alternate_symbols"] = [m for m in self.manglings(c) if m != symbol]
            spec = lib.clang_getCursorExceptionSpecificationType(c)
            attributes.update({
                "access": {ACCESS_PROTECTED: "protected", ACCESS_PRIVATE: "private"}.get(
                    lib.clang_getCXXAccessSpecifier(c), "public"),
                "virtual": bool(k in MEMBER_DECLS and lib.clang_CXXMethod_isVirtual(c)),
                "ref_qualifier": ref_qualifier,
                # a friend declared only in its class: callable by argument-
                # dependent lookup, not by a qualified name
                "hidden_friend": e.friend_only,
                "noexcept": spec in (EXCEPT_DYNAMIC_NONE, EXCEPT_BASIC_NOEXCEPT, EXCEPT_NOTHROW)
                            or (spec == EXCEPT_COMPUTED_NOEXCEPT
                                and "noexcept(false)" not in ftype.spelling),
            })
        return symbol, return_kind, tuple(parameters), attributes

    def run(self):
        self.declarations.walk()
        built = []
        by_symbol = {}
        skipped, skipped_files = [], []
        used = set()          # patterns of address_compared that name a declared function
        for e in self.declarations.order:
            reason = e.reason or self.skips.reason(e)
            if reason is None:
                try:
                    symbol, return_kind, parameters, attributes = self.build(e)
                except Unnameable as exc:
                    reason = f"cannot be written at global scope: {exc}"
                except NoSymbol:
                    reason = "no symbol (libclang cannot mangle the declaration)"
            if reason is not None:
                if self.address_compared:      # not wrapped anyway: the pattern is not unknown
                    name = self.skipped_name(e)
                    pattern = self.declared_address_compared(name, {"qualified_name": name.split("(")[0],
                                                                    "symbol": ""})
                    if pattern is not None:
                        used.add(pattern)
                skipped.append((self.skipped_name(e), reason))
                skipped_files.append(self.locations.presumed(e.cursor.location)[0])
                continue
            if symbol in by_symbol:
                skipped_files.append(self.locations.presumed(e.cursor.location)[0])
                skipped.append((self.skipped_name(e),
                                f"its symbol {symbol} is that of {by_symbol[symbol]}, "
                                "which is wrapped (an assembler label names it twice)"))
                continue
            by_symbol[symbol] = self.skipped_name(e)
            built.append((e, symbol, return_kind, parameters, attributes))
        names, warnings = self.region_names(built)
        procedures = []
        for name, (e, symbol, return_kind, parameters, attributes) in zip(names, built):
            pattern = self.declared_address_compared(name, attributes)
            if pattern is not None:
                used.add(pattern)
                skipped.append((self.skipped_name(e), f"{ADDRESS_COMPARED}listed in "
                                f"{ADDRESS_COMPARED_SETTING} ('{pattern}')"))
                skipped_files.append(attributes["file"])
                continue
            procedures.append(Procedure(name=name, return_kind=return_kind, parameters=parameters,
                                        attributes=attributes, origin=attributes["file"] or ""))
        unknown = [p for p in self.address_compared if p not in used]
        if unknown:
            raise HeaderError(f"{ADDRESS_COMPARED_SETTING}: {', '.join(repr(p) for p in unknown)} "
                              "matches no function the headers declare (write a function's "
                              "name as in ns::Class::function or its region name in NAME.wrap, a C "
                              "function's name, or a symbol; shell wildcards * ? [ ] match)",
                              file=self.path)
        return procedures, skipped, skipped_files, warnings

    def declared_address_compared(self, name, attributes):
        """The first pattern of address_compared naming this function, or None:
        by region name (`ns::Cls::f(int) const`), by qualified name (every
        overload), or by symbol."""
        for pattern in self.address_compared:
            for text in (name, attributes["qualified_name"], attributes["symbol"]):
                if fnmatch.fnmatchcase(text, pattern):
                    return pattern
        return None

    def region_names(self, built):
        """C: the function's name. C++: the demangled symbol (one c++filt for all)."""
        names = [attributes["source_name"] for (_, _, _, _, attributes) in built]
        if not self.cxx:
            return names, []
        mangled = [(i, symbol) for i, (_, symbol, _, _, _) in enumerate(built)
                   if symbol.startswith("_Z")]
        if not mangled:
            return names, []
        demangled = _demangle([s for _, s in mangled])
        warnings = []
        if demangled is None:
            warnings.append("c++filt (binutils) not found: region names are built from the "
                            "declarations instead of demangled symbols")
            for i, _ in mangled:
                attrs = built[i][4]
                types = ", ".join(p.c_type for p in built[i][3])
                cv = " const" if attrs["this_type"] and attrs["this_type"].startswith("const ") else ""
                names[i] = f"{attrs['qualified_name']}({types}){cv}"
        else:
            for (i, _), name in zip(mangled, demangled):
                names[i] = name
        return names, warnings


def _demangle(symbols):
    cxxfilt = shutil.which("c++filt")
    if not cxxfilt:
        return None
    out = subprocess.run([cxxfilt], input="\n".join(symbols) + "\n", capture_output=True,
                         text=True, check=True).stdout.split("\n")
    if len(out) < len(symbols):
        return None
    return out[:len(symbols)]


def _parameter_names(declared):
    """Unnamed -> argN; names the wrapper uses itself (scorep_*) or repeated -> renamed."""
    taken = {n for n in declared if n and not n.startswith("scorep_")}
    names = []
    used = set()
    for position, name in enumerate(declared, 1):
        if not name or name.startswith("scorep_") or name in used:
            name = f"arg{position}"
            while name in taken or name in used:
                name += "_"
        used.add(name)
        names.append(name)
    return names
