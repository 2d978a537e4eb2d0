"""Header front-end for library wrapping: libclang over a preprocessed header
(`libwrap.i`) -> one `generator.model.Procedure` per wrappable function.

    result = scan_header("libwrap.i", language="c++", clang_args=["-std=c++17"])
    result.procedures   # Procedure objects in declaration order, one per symbol
    result.skipped      # (name, reason) for functions seen but not wrappable
    result.warnings     # errors libclang reported in system headers (tolerated)

Types are printed by this module from libclang's type tree, not taken from
libclang's spelling: clang spells a type as it was written at the point of
use (`ArrayIndex` inside class `Json::Value`), which is not valid at global
scope.  Every named type is printed from its declaration with its enclosing
namespaces and classes (`Json::Value::ArrayIndex`), typedefs and aliases are
kept (`fftw_complex *`, `std::string`), and only where libclang does not
expose a type's structure (some template specialisations, decltype, ...) the
canonical spelling, which clang prints fully qualified, is the fallback.

A type becomes a declarator pattern with "{name}" where the declared name goes
(`double (*{name})[2]`, `void (*{name})(int, void *)`); `c_type` is the same
with the name left out.
"""
import ctypes
import fnmatch
import glob
import os
import platform
import re
import shutil
import subprocess
from dataclasses import dataclass, field

from ..errors import SpecError
from ..model import Parameter, Procedure

__all__ = ["HeaderError", "ScanResult", "scan_header", "load_cindex"]

MAX_REPORTED_ERRORS = 20


class HeaderError(SpecError):
    """The header cannot be scanned: libclang missing or the header does not parse."""


@dataclass
class ScanResult:
    procedures: list
    skipped: list                      # [(name, reason)]
    skipped_files: list = field(default_factory=list)   # the declaring file of each skipped entry
    warnings: list = field(default_factory=list)
    language: str = "c"
    path: str = ""


# ---- libclang ----------------------------------------------------------------

# CXCursorKind
K_UNEXPOSED_DECL, K_STRUCT, K_UNION, K_CLASS, K_ENUM = 1, 2, 3, 4, 5
K_FUNCTION, K_TYPEDEF, K_METHOD, K_NAMESPACE, K_LINKAGE_SPEC = 8, 20, 21, 22, 23
K_CONSTRUCTOR, K_DESTRUCTOR, K_CONVERSION = 24, 25, 26
K_FUNCTION_TEMPLATE, K_CLASS_TEMPLATE, K_CLASS_PARTIAL = 30, 31, 32
K_TYPE_ALIAS, K_TRANSLATION_UNIT, K_FRIEND = 36, 350, 603
K_ANNOTATE_ATTR = 406
RECORD_DECLS = (K_STRUCT, K_UNION, K_CLASS)
FUNCTION_DECLS = (K_FUNCTION, K_METHOD, K_CONSTRUCTOR, K_DESTRUCTOR, K_CONVERSION)
MEMBER_DECLS = (K_METHOD, K_CONSTRUCTOR, K_DESTRUCTOR, K_CONVERSION)
TEMPLATE_DECLS = (K_CLASS_TEMPLATE, K_CLASS_PARTIAL)
TAG_KEYWORD = {K_STRUCT: "struct", K_UNION: "union", K_CLASS: "class", K_ENUM: "enum"}

# CXTypeKind
T_INVALID, T_UNEXPOSED, T_VOID, T_BOOL = 0, 1, 2, 3
T_CHAR_U, T_CHAR_S = 4, 13
T_FLOATING = {21, 22, 23, 30, 31, 32, 39, 40}     # float .. long double, _Float128, half, bf16, ibm128
T_NULLPTR = 24
T_COMPLEX, T_POINTER, T_BLOCK_POINTER, T_LREF, T_RREF = 100, 101, 102, 103, 104
T_RECORD, T_ENUM, T_TYPEDEF = 105, 106, 107
T_FUNCTION_NOPROTO, T_FUNCTION_PROTO = 110, 111
T_CONSTANT_ARRAY, T_VECTOR, T_INCOMPLETE_ARRAY, T_VARIABLE_ARRAY, T_DEPENDENT_ARRAY = 112, 113, 114, 115, 116
T_MEMBER_POINTER, T_AUTO, T_ELABORATED = 117, 118, 119
T_ATTRIBUTED, T_EXT_VECTOR, T_ATOMIC = 163, 176, 177
T_BUILTIN = set(range(2, 41))
ARRAYS = (T_CONSTANT_ARRAY, T_INCOMPLETE_ARRAY, T_VARIABLE_ARRAY, T_DEPENDENT_ARRAY)
FUNCTIONS = (T_FUNCTION_NOPROTO, T_FUNCTION_PROTO)
POINTERS = {T_POINTER: "*", T_BLOCK_POINTER: "^", T_LREF: "&", T_RREF: "&&"}

# CXLinkageKind, CX_CXXAccessSpecifier, CXAvailabilityKind
LINKAGE_INTERNAL = 2
ACCESS_PUBLIC, ACCESS_PROTECTED, ACCESS_PRIVATE = 1, 2, 3
AVAILABILITY_NOT_AVAILABLE = 2
# CXCursor_ExceptionSpecificationKind
EXCEPT_DYNAMIC_NONE, EXCEPT_BASIC_NOEXCEPT, EXCEPT_COMPUTED_NOEXCEPT, EXCEPT_NOTHROW = 1, 4, 5, 9
PARSE_SKIP_FUNCTION_BODIES = 0x40

# What a header preprocessed by GCC contains that clang 16 rejects.  The input
# goes through clang's preprocessor again (-x c / -x c++), so macros fix it:
# GCC 11's `__attribute__((__malloc__(deallocator)))` loses its arguments, and
# in C glibc uses GCC's _FloatN keywords, which clang 16 does not have (a
# header preprocessed by clang has typedefs for them instead: then no macro).
GCC_COMPAT_ARGS = ["-D__malloc__(...)=__malloc__"]
FLOATN = {"_Float32": "float", "_Float64": "double", "_Float32x": "double",
          "_Float64x": "long double",
          "_Float128": "long double" if platform.machine() in ("aarch64", "arm64", "riscv64", "s390x")
          else "__float128"}


def _compat_args(path, language):
    args = list(GCC_COMPAT_ARGS)
    if language == "c":
        with open(path, "rb") as f:
            text = f.read()
        for name, replacement in FLOATN.items():
            word = name.encode()
            if word in text and not re.search(rb"typedef[^;]*\b" + word + rb"\s*;", text):
                args.append(f"-D{name}={replacement}")
    return args


# GCC accepts a standard attribute list after a GNU one in the specifiers of
# a declaration, `__attribute__((deprecated)) [[nodiscard]] QColor light()`
# (Qt's QT_DEPRECATED_X + Q_REQUIRED_RESULT as GCC preprocesses them), clang
# does not ("'nodiscard' attribute cannot be applied to types"). No macro can
# reach the already preprocessed text: the scan reads it with every such run
# reordered (standard lists first), each piece and each gap between them kept
# as they are, so the text keeps its length and its lines.
_GNU_ATTRIBUTE = re.compile(rb"\b__attribute(?:__)?\s*\(")
_SPACE = b" \t\r\n\f\v"


def _closing(text, start):
    """The index after the bracket that closes text[start] ('(' or '['), string
    and character literals skipped; None if not closed on this logical line
    run (a line marker inside means it is not one attribute)."""
    open_ = text[start]
    close = {ord("("): ord(")"), ord("["): ord("]")}[open_]
    depth, i, n = 0, start, len(text)
    while i < n:
        ch = text[i]
        if ch == open_:
            depth += 1
        elif ch == close:
            depth -= 1
            if depth == 0:
                return i + 1
        elif ch in (0x22, 0x27):           # " or '
            i += 1
            while i < n and text[i] != ch:
                if text[i] == 0x5C:        # backslash
                    i += 1
                elif text[i] == 0x0A:
                    return None
                i += 1
        elif ch == 0x0A and text.startswith(b"#", i + 1):
            return None
        i += 1
    return None


def _attribute_at(text, i):
    """(end, is_standard) of an attribute specifier starting at text[i], or None."""
    if text.startswith(b"[[", i):
        end = _closing(text, i)
        return (end, True) if end else None
    m = _GNU_ATTRIBUTE.match(text, i)
    if m:
        end = _closing(text, m.end() - 1)
        return (end, False) if end else None
    return None


def _standard_attributes_first(text):
    """text (bytes) with every run of attribute specifiers in which a `[[...]]`
    follows an `__attribute__((...))` reordered standard lists first; the
    number of runs reordered."""
    if not re.search(rb"\)\s*\[\[", text):
        return text, 0
    out, copied, seen, reordered = [], 0, 0, 0
    for m in _GNU_ATTRIBUTE.finditer(text):
        start = m.start()
        if start < seen:                    # inside a run already looked at
            continue
        items, gaps, i = [], [], start
        while True:
            found = _attribute_at(text, i)
            if found is None:
                break
            end, standard = found
            items.append((text[i:end], standard))
            j = end
            while j < len(text) and text[j] in _SPACE:
                j += 1
            gaps.append(text[end:j])
            i = j
        if not items:
            continue
        gaps.pop()                          # the space after the run stays where it is
        end = start + sum(len(t) for t, _ in items) + sum(len(g) for g in gaps)
        seen = end
        kinds = [standard for _, standard in items]
        if not any(standard and not all(kinds[:k]) for k, standard in enumerate(kinds)):
            continue
        ordered = [t for t, standard in items if standard] + [t for t, standard in items if not standard]
        out += [text[copied:start], ordered[0]] + [g + t for g, t in zip(gaps, ordered[1:])]
        copied = end
        reordered += 1
    if not reordered:
        return text, 0
    out.append(text[copied:])
    return b"".join(out), reordered


# Why a function whose address the library compares or stores is not wrapped:
# a wrapper gives the program another address for it than the library has.
ADDRESS_COMPARED = "address compared by the library: "
# the Makefile setting that declares such functions (scan_header's address_compared)
ADDRESS_COMPARED_SETTING = "LIBWRAP_ADDRESS_COMPARED_SYMBOLS"

_cindex = None


class _RawCXString(ctypes.Structure):
    """A CXString without the bindings' __del__ (a string set frees its own)."""
    _fields_ = [("data", ctypes.c_void_p), ("private_flags", ctypes.c_uint)]


class _CXStringSet(ctypes.Structure):
    _fields_ = [("strings", ctypes.POINTER(_RawCXString)), ("count", ctypes.c_uint)]


def _libclang_candidates():
    env = os.environ.get("SCOREP_LIBWRAP_LIBCLANG")
    found = [env] if env else []
    found += ["/usr/lib/llvm-16/lib/libclang.so.1", "/usr/lib/llvm-16/lib/libclang-16.so.1"]
    found += sorted(glob.glob("/usr/lib/llvm-*/lib/libclang.so.1"), reverse=True)
    found += sorted(glob.glob("/usr/lib/x86_64-linux-gnu/libclang-*.so.1"), reverse=True)
    return [f for f in found if f and os.path.exists(f)]


def load_cindex():
    """clang.cindex with its library loaded and the few functions this module
    calls that the Python bindings of LLVM 16 do not wrap."""
    global _cindex
    if _cindex is not None:
        return _cindex
    try:
        import clang.cindex as ci
    except ImportError as exc:
        raise HeaderError(
            "the Python bindings of libclang are missing (Debian/Ubuntu: apt-get install "
            f"python3-clang-16; they must be importable by this interpreter): {exc}") from None
    if not ci.Config.loaded and not ci.Config.library_file and not ci.Config.library_path:
        candidates = _libclang_candidates()
        if candidates:
            ci.Config.set_library_file(candidates[0])
    try:
        lib = ci.conf.lib
    except Exception as exc:        # clang.cindex.LibclangError
        raise HeaderError(
            "libclang cannot be loaded (Debian/Ubuntu: apt-get install libclang1-16; "
            f"or set SCOREP_LIBWRAP_LIBCLANG to its path): {exc}") from None
    c_uint = ctypes.c_uint
    registered = {entry[0] for entry in getattr(ci, "functionList", ())}
    for fname, argtypes, restype in (
            ("clang_getPresumedLocation", [ci.SourceLocation, ctypes.POINTER(ci._CXString),
                                           ctypes.POINTER(c_uint), ctypes.POINTER(c_uint)], None),
            ("clang_Location_isInSystemHeader", [ci.SourceLocation], ctypes.c_int),
            ("clang_isInvalidDeclaration", [ci.Cursor], c_uint),
            ("clang_Cursor_isFunctionInlined", [ci.Cursor], c_uint),
            ("clang_Type_getModifiedType", [ci.Type], ci.Type),
            ("clang_getCursorLinkage", [ci.Cursor], ctypes.c_int),
            ("clang_getCXXAccessSpecifier", [ci.Cursor], ctypes.c_int),
            ("clang_getCursorAvailability", [ci.Cursor], ctypes.c_int),
            ("clang_getExceptionSpecificationType", [ci.Type], ctypes.c_int),
            ("clang_getCursorExceptionSpecificationType", [ci.Cursor], ctypes.c_int),
            ("clang_Type_getCXXRefQualifier", [ci.Type], ctypes.c_int),
            ("clang_CXXMethod_isStatic", [ci.Cursor], c_uint),
            ("clang_CXXMethod_isConst", [ci.Cursor], c_uint),
            ("clang_CXXMethod_isVirtual", [ci.Cursor], c_uint),
            ("clang_CXXMethod_isPureVirtual", [ci.Cursor], c_uint),
            ("clang_CXXMethod_isDefaulted", [ci.Cursor], c_uint),
            ("clang_CXXMethod_isDeleted", [ci.Cursor], c_uint),
            ("clang_Cursor_getNumTemplateArguments", [ci.Cursor], ctypes.c_int),
            ("clang_isFunctionTypeVariadic", [ci.Type], c_uint),
            ("clang_isConstQualifiedType", [ci.Type], c_uint),
            ("clang_isVolatileQualifiedType", [ci.Type], c_uint),
            ("clang_isRestrictQualifiedType", [ci.Type], c_uint),
            ("clang_Type_getNumTemplateArguments", [ci.Type], ctypes.c_int),
            ("clang_getArraySize", [ci.Type], ctypes.c_longlong),
            ("clang_Cursor_getCXXManglings", [ci.Cursor], ctypes.POINTER(_CXStringSet)),
            ("clang_disposeStringSet", [ctypes.POINTER(_CXStringSet)], None)):
        try:
            func = getattr(lib, fname)
        except AttributeError:
            raise HeaderError(f"libclang ({ci.Config.library_file or 'default'}) lacks {fname}; "
                              "libclang 16 or newer is needed") from None
        if fname in registered:          # the bindings' own registration stays
            continue
        func.argtypes = argtypes
        func.restype = restype
        if restype is ci.Type:
            func.errcheck = ci.Type.from_result
    raw_cstring = lib["clang_getCString"]        # a function object of its own
    raw_cstring.argtypes = [_RawCXString]
    raw_cstring.restype = ctypes.c_char_p
    ci._scorep_raw_cstring = raw_cstring
    _cindex = ci
    return ci


class _Unnameable(Exception):
    """A type that cannot be written at global scope (a private nested type,
    an unnamed struct, a type local to a function)."""


class _NoSymbol(Exception):
    """libclang cannot mangle the declaration."""


@dataclass
class _Entry:
    cursor: object
    prefix: str                 # enclosing namespaces/classes as written, for `skipped`
    hidden: str = ""            # why every function in this context is skipped
    inline: bool = False        # any declaration of it is inline
    friend_only: bool = False   # declared only as a friend inside a class
    friend_of: object = None    # the (first) class that declares it a friend
    others: list = field(default_factory=list)   # later declarations of it
    reason: str = ""            # known to be skipped while walking (templates)


# ---- the scanner ---------------------------------------------------------------

class _Scanner:
    def __init__(self, ci, tu, language, path, c89=False, address_compared=(), text=b""):
        self.ci = ci
        self.address_compared = list(address_compared)
        self.lib = ci.conf.lib
        self.tu = tu
        self.cxx = language == "c++"
        self.language = language
        # `restrict` is C99; C++ and C89 compilers know only the GNU spelling
        self.restrict = "restrict" if language == "c" and not c89 else "__restrict"
        self.path = os.path.abspath(str(path))
        self.base_dir = os.path.dirname(self.path)
        self.entries = {}
        self.order = []
        self._scope_cache = {}
        self._record_cache = {}
        self._typedef_cache = {}
        self._file_cache = {}
        self.text = text                # what libclang parsed (offsets index it)
        self.class_code = {}            # class USR -> [(start, end)] of its code
        self._calls = {}                # class USR -> {name: occurrences of `name(`}

    # -- locations --
    def presumed(self, location):
        name = self.ci._CXString()
        line, col = ctypes.c_uint(), ctypes.c_uint()
        self.lib.clang_getPresumedLocation(location, ctypes.byref(name), ctypes.byref(line),
                                           ctypes.byref(col))
        filename = self.ci._CXString.from_result(name)
        return self.absolute(filename), line.value, col.value

    def absolute(self, filename):
        if not filename:
            return filename
        cached = self._file_cache.get(filename)
        if cached is None:
            if filename.startswith("<"):          # <built-in>, <command-line>
                cached = filename
            else:
                cached = os.path.normpath(os.path.join(self.base_dir, filename))
            self._file_cache[filename] = cached
        return cached

    # -- walking: each declaration once, never into function bodies --
    def walk(self):
        root = self.tu.cursor
        if not self.cxx:
            for c in root.get_children():
                k = c._kind_id
                if k == K_FUNCTION:
                    self.add(c, "")
                elif k in (K_LINKAGE_SPEC, K_UNEXPOSED_DECL):
                    self.walk_scope(c, "", "")
            return
        self.walk_scope(root, "", "")

    def walk_scope(self, scope, prefix, hidden, in_class=False):
        for c in scope.get_children():
            k = c._kind_id
            if k in FUNCTION_DECLS:
                if k != K_FUNCTION and not in_class:
                    self.add_out_of_class(c)
                else:
                    self.add(c, prefix, hidden)
            elif k == K_NAMESPACE:
                name = c.spelling
                self.walk_scope(c, prefix + (name or "(anonymous namespace)") + "::",
                                hidden or ("" if name else "in an anonymous namespace (internal linkage)"))
            elif k in (K_LINKAGE_SPEC, K_UNEXPOSED_DECL):
                self.walk_scope(c, prefix, hidden, in_class)
            elif k in RECORD_DECLS:
                if not c.is_definition():
                    continue
                name = c.spelling
                inner = hidden
                if in_class and self.lib.clang_getCXXAccessSpecifier(c) == ACCESS_PRIVATE:
                    inner = inner or "member of a private nested class"
                if not name or name.startswith("("):
                    inner = inner or "member of an unnamed class"
                self.class_code.setdefault(c.get_usr(), []).append(
                    (c.extent.start.offset, c.extent.end.offset))
                self.walk_scope(c, prefix + (name or "(unnamed)") + "::", inner, in_class=True)
            elif k in TEMPLATE_DECLS:
                if c.is_definition():
                    self.walk_template(c, prefix + c.spelling + "::")
            elif k == K_FUNCTION_TEMPLATE:
                self.skip_once(c, prefix + c.displayname,
                               "member function template" if in_class else "function template")
            elif k == K_FRIEND:
                for f in c.get_children():
                    if f._kind_id == K_FUNCTION:
                        self.add(f, None, "", friend=scope)

    def walk_template(self, scope, prefix):
        for c in scope.get_children():
            k = c._kind_id
            if k in FUNCTION_DECLS or k == K_FUNCTION_TEMPLATE:
                self.skip_once(c, prefix + c.displayname, "member of a class template")
            elif k in RECORD_DECLS or k in TEMPLATE_DECLS:
                if c.is_definition():
                    self.walk_template(c, prefix + c.spelling + "::")

    def skip_once(self, c, name, reason):
        usr = c.get_usr() or f"#{c.hash}"
        if usr not in self.entries:
            e = _Entry(c, name, reason=reason)
            self.entries[usr] = e
            self.order.append(e)

    def add_out_of_class(self, c):
        """A member defined outside its class: a redeclaration of the member
        seen in the class (or of a class template's member)."""
        parent = c.semantic_parent
        ancestor = parent
        while ancestor is not None and ancestor._kind_id in RECORD_DECLS + TEMPLATE_DECLS:
            if ancestor._kind_id in TEMPLATE_DECLS:
                self.skip_once(c, self.scope_text(parent) + "::" + c.displayname,
                               "member of a class template")
                return
            ancestor = ancestor.semantic_parent
        if parent is not None and parent._kind_id in RECORD_DECLS:
            body = self.body_after(c.extent.end.offset)
            if body is not None:
                self.class_code.setdefault(parent.get_usr(), []).append(body)
        self.add(c, self.scope_text(parent) + "::" if parent is not None else "", "")

    def scope_text(self, c):
        parts = []
        while c is not None and c._kind_id != K_TRANSLATION_UNIT:
            if c._kind_id not in (K_LINKAGE_SPEC, K_UNEXPOSED_DECL):
                parts.append(c.spelling or "(anonymous namespace)")
            c = c.semantic_parent
        return "::".join(reversed(parts))

    def add(self, c, prefix, hidden="", friend=None):
        """friend: the class cursor when c is a friend declaration in it."""
        usr = c.get_usr() or f"#{c.hash}"
        inline = bool(self.lib.clang_Cursor_isFunctionInlined(c))
        if usr in self.entries:
            e = self.entries[usr]
            if not e.reason:
                e.inline = e.inline or inline
                e.others.append(c)
                if friend is None:
                    e.friend_only = False
            return
        e = _Entry(c, prefix, hidden, inline, friend is not None, friend)
        self.entries[usr] = e
        self.order.append(e)

    # -- scope and declaration names --
    def scope_prefix(self, decl):
        """"ns::Cls::" for a declaration inside namespace ns, class Cls."""
        parent = decl.semantic_parent
        if parent is None:
            return ""
        k = parent._kind_id
        if k == K_TRANSLATION_UNIT:
            return ""
        if k in (K_LINKAGE_SPEC, K_UNEXPOSED_DECL):
            return self.scope_prefix(parent)
        key = parent.hash
        cached = self._scope_cache.get(key)
        if cached is not None:
            return cached
        if k == K_NAMESPACE:
            name = parent.spelling
            text = self.scope_prefix(parent) + (name + "::" if name else "")
        elif k in RECORD_DECLS:
            text = self.record_name(parent) + "::"
        elif k == K_ENUM:
            text = self.scope_prefix(parent)
        else:
            raise _Unnameable(f"'{decl.spelling}' is declared inside a function or template")
        self._scope_cache[key] = text
        return text

    def check_access(self, decl, what):
        if self.cxx and self.lib.clang_getCXXAccessSpecifier(decl) in (ACCESS_PROTECTED, ACCESS_PRIVATE):
            raise _Unnameable(f"uses the {what} '{self.scope_text(decl)}', "
                              "which is not accessible outside its class")

    def record_name(self, decl):
        """Qualified name of a struct/class/union/enum, with template arguments."""
        key = decl.hash
        cached = self._record_cache.get(key)
        if cached is not None:
            return cached
        name = decl.spelling
        if not name or name.startswith("(") or "(unnamed" in name or "(anonymous" in name:
            raise _Unnameable(f"uses an unnamed {TAG_KEYWORD.get(decl._kind_id, 'type')}")
        self.check_access(decl, "nested type")
        text = self.scope_prefix(decl) + name
        if self.cxx:
            rtype = decl.type
            n = self.lib.clang_Type_getNumTemplateArguments(rtype)
            if n > 0:
                text = self.template_id(text, rtype, n)
        self._record_cache[key] = text
        return text

    def template_id(self, template_name, t, n):
        args = []
        for i in range(n):
            arg = t.get_template_argument_type(i)
            if arg._kind_id == T_INVALID:          # a value, template or pack argument
                return self.canonical_spelling(t)
            args.append(self.type_string(arg))
        return f"{template_name}<{', '.join(args)}>"

    def canonical_spelling(self, t):
        """clang's spelling of the canonical type: fully qualified, qualifiers included."""
        text = t.get_canonical().spelling
        if "(anonymous" in text or "(unnamed" in text or "(lambda" in text:
            raise _Unnameable(f"uses the type '{text}'")
        return text

    def typedef_name(self, decl):
        key = decl.hash
        cached = self._typedef_cache.get(key)
        if cached is not None:
            return cached
        if self.cxx and self.lib.clang_getCXXAccessSpecifier(decl) in (ACCESS_PROTECTED, ACCESS_PRIVATE):
            # a class-private typedef: write what it stands for
            text = ("", self.type_parts(decl.underlying_typedef_type))
        else:
            text = (self.scope_prefix(decl) + decl.spelling, None)
        self._typedef_cache[key] = text
        return text

    # -- types --
    def quals(self, t):
        q = []
        if self.lib.clang_isConstQualifiedType(t):
            q.append("const")
        if self.lib.clang_isVolatileQualifiedType(t):
            q.append("volatile")
        return q

    def type_parts(self, t, keyword=""):
        """(before, after): the type's text before and after the declared name."""
        k = t._kind_id
        if k in POINTERS or k == T_MEMBER_POINTER:
            before, after = self.type_parts(t.get_pointee())
            before = _space(before)
            if after:
                before, after = before + "(", ")" + after
            if k == T_MEMBER_POINTER:
                before += self.record_or_type(t.get_class_type()) + "::*"
            else:
                before += POINTERS[k]
            q = self.quals(t)
            if self.lib.clang_isRestrictQualifiedType(t):
                q.append(self.restrict)
            if q:
                before += " ".join(q)
            return before, after
        if k in ARRAYS:
            before, after = self.type_parts(t.element_type)
            size = self.lib.clang_getArraySize(t) if k == T_CONSTANT_ARRAY else -1
            return before, (f"[{size}]" if size >= 0 else "[]") + after
        if k in FUNCTIONS:
            before, after = self.type_parts(t.get_result())
            return before, "(" + self.parameter_types(t) + ")" + self.function_suffix(t) + after
        if k == T_ELABORATED:
            q = self.quals(t)
            if keyword == "":
                spelled = t.spelling
                for word in ("const ", "volatile "):
                    if spelled.startswith(word):
                        spelled = spelled[len(word):]
                    if spelled.startswith(word):
                        spelled = spelled[len(word):]
                first = spelled.split(" ", 1)[0]
                if first in ("struct", "union", "enum", "class"):
                    keyword = first
            before, after = self.type_parts(t.get_named_type(), keyword)
            if q:
                before = " ".join(q) + " " + before
            return before, after
        if k == T_ATTRIBUTED:
            before, after = self.type_parts(self.lib.clang_Type_getModifiedType(t), keyword)
            return _prefix(self.quals(t), before), after
        name = self.leaf_name(t, k, keyword)
        if name is not None:
            return _prefix(self.quals(t), name), ""
        # no structure exposed (decltype, some template specialisations, ...):
        # the canonical type, whose qualifiers are all of them
        canon = t.get_canonical()
        if canon._kind_id not in (k, T_UNEXPOSED, T_INVALID):
            return self.type_parts(canon, keyword)
        return self.canonical_spelling(t), ""

    def record_or_type(self, t):
        decl = t.get_declaration()
        if decl._kind_id in RECORD_DECLS:
            return self.record_name(decl)
        return self.type_string(t)

    def leaf_name(self, t, k, keyword):
        if k == T_TYPEDEF:
            name, desugared = self.typedef_name(t.get_declaration())
            if desugared is not None:
                before, after = desugared
                if after:      # a private typedef of an array or function type
                    raise _Unnameable("uses a class-private typedef of an array or function type")
                return before
            return name
        if k in (T_RECORD, T_ENUM):
            decl = t.get_declaration()
            name = self.record_name(decl)
            if keyword:
                return keyword + " " + name
            if not self.cxx:
                return TAG_KEYWORD.get(decl._kind_id, "struct") + " " + name
            return name
        if k in T_BUILTIN:
            spelled = t.spelling
            if self.quals(t):
                spelled = re.sub(r"\b(?:const|volatile)\s+", "", spelled)
            return spelled
        if k == T_UNEXPOSED and self.cxx:
            n = self.lib.clang_Type_getNumTemplateArguments(t)
            decl = t.get_declaration()
            if n > 0 and decl._kind_id in RECORD_DECLS:
                # a template specialisation as written (`std::vector<size_t>`);
                # an alias template's specialisation names another template
                written = re.sub(r"^(?:(?:const|volatile|struct|class|union)\s+)+", "", t.spelling)
                written = written.split("<", 1)[0].rsplit("::", 1)[-1].strip()
                if written == decl.spelling:
                    self.record_name(decl)        # raises if it cannot be named
                    name = self.template_id(self.scope_prefix(decl) + decl.spelling, t, n)
                    return (keyword + " " + name) if keyword else name
        return None

    def parameter_types(self, t):
        if t._kind_id == T_FUNCTION_NOPROTO:
            return ""
        types = [self.type_string(a) for a in t.argument_types()]
        if self.lib.clang_isFunctionTypeVariadic(t):
            types.append("...")
        if not types and not self.cxx:
            return "void"
        return ", ".join(types)

    def function_suffix(self, t):
        if not self.cxx or t._kind_id != T_FUNCTION_PROTO:
            return ""
        spec = self.lib.clang_getExceptionSpecificationType(t)
        if spec in (EXCEPT_DYNAMIC_NONE, EXCEPT_BASIC_NOEXCEPT, EXCEPT_NOTHROW) or (
                spec == EXCEPT_COMPUTED_NOEXCEPT and "noexcept(false)" not in t.spelling):
            return " noexcept"
        return ""

    def type_string(self, t):
        before, after = self.type_parts(t)
        return _abstract(before, after)

    def declarator(self, t, name="{name}"):
        before, after = self.type_parts(t)
        return _declarator(before, after, name)

    def coarse_kind(self, t, parameter=False):
        canon = t.get_canonical()
        k = canon._kind_id
        if parameter and k in ARRAYS:                # decays to a pointer
            return "string" if canon.element_type._kind_id in (T_CHAR_S, T_CHAR_U) else "pointer"
        if parameter and k in FUNCTIONS:
            return "function_pointer"
        return _coarse(k, canon)

    # -- functions --
    def skip_reason(self, e):
        c = e.cursor
        k = c._kind_id
        lib = self.lib
        if e.hidden:
            return e.hidden
        if k == K_METHOD and self.cxx and self.is_qt_signal(c):
            return ADDRESS_COMPARED + "Qt signal"
        if k in MEMBER_DECLS:
            access = lib.clang_getCXXAccessSpecifier(c)
            if access == ACCESS_PRIVATE and k != K_METHOD:
                return ("private constructor, destructor or conversion (whether inline code "
                        "calls it is not looked for)")
            if access == ACCESS_PRIVATE and not self.called_by_class_code(c):
                return "private member that no inline code of its class calls (the program cannot reach it)"
            if lib.clang_CXXMethod_isDeleted(c):
                return "deleted (= delete)"
            if lib.clang_CXXMethod_isDefaulted(c):
                return "defaulted (= default)"
            if lib.clang_CXXMethod_isPureVirtual(c):
                return "pure virtual"
        if lib.clang_getCursorAvailability(c) == AVAILABILITY_NOT_AVAILABLE:
            return "deleted or unavailable"
        if self.cxx and k == K_FUNCTION and lib.clang_Cursor_getNumTemplateArguments(c) >= 0:
            return "function template specialisation"
        if lib.clang_getCursorLinkage(c) == LINKAGE_INTERNAL:
            return "static (internal linkage)"
        if e.inline:
            return self.inline_reason(c)
        spelling = c.spelling
        if spelling.startswith("operator ") and re.match(r"operator (new|delete)\b", spelling):
            return "operator new/delete"
        if e.friend_only and not self.found_by_adl(c, e.friend_of):
            return ("friend declared only inside a class, with no parameter of that class "
                    "(no call can find it)")
        if lib.clang_isInvalidDeclaration(c):
            return "the declaration has errors"
        return None

    # -- what the program reaches without naming it --
    def body_after(self, offset):
        """(start, end) of the function body `{...}` that follows a declaration
        whose extent (bodies are skipped) ends at offset; None if a `;` comes first."""
        text = self.text
        brace, semicolon = text.find(b"{", offset), text.find(b";", offset)
        if brace < 0 or (0 <= semicolon < brace):
            return None
        depth, i, n = 0, brace, len(text)
        while i < n:
            ch = text[i]
            if ch == 0x7B:
                depth += 1
            elif ch == 0x7D:
                depth -= 1
                if depth == 0:
                    return brace, i + 1
            elif ch in (0x22, 0x27):
                i += 1
                while i < n and text[i] != ch:
                    i += 2 if text[i] == 0x5C else 1
            i += 1
        return None

    def called_by_class_code(self, c):
        """Whether the class's inline code (member bodies in the class and out
        of it, friends defined in it) calls a private member of this name:
        the program's code then calls it through them although it cannot name
        it (QString::toUtf8() calls QString::toUtf8_helper). By name, as
        text: every overload of a called name counts as called."""
        parent = c.semantic_parent
        usr = parent.get_usr()
        calls = self._calls.get(usr)
        if calls is None:
            calls = {}
            for start, end in self.class_code.get(usr, ()):
                for m in re.finditer(rb"\b([A-Za-z_]\w*)\s*\(", self.text[start:end]):
                    word = m.group(1).decode()
                    calls[word] = calls.get(word, 0) + 1
            declared = {}
            for member in parent.get_children():
                if member._kind_id in FUNCTION_DECLS or member._kind_id == K_FUNCTION_TEMPLATE:
                    declared[member.spelling] = declared.get(member.spelling, 0) + 1
            # each declaration in the class is one `name(` of its own
            calls = {w: n - declared.get(w, 0) for w, n in calls.items() if n > declared.get(w, 0)}
            self._calls[usr] = calls
        return c.spelling in calls

    def found_by_adl(self, c, cls):
        """A friend declared only in its class is found by argument-dependent
        lookup when a parameter is (a pointer or reference to) that class:
        `friend bool operator<(const QString &, const QString &)`."""
        if cls is None:
            return False
        target = cls.get_usr()
        for a in c.get_arguments():
            t = a.type.get_canonical()
            while t._kind_id in POINTERS:
                t = t.get_pointee().get_canonical()
            decl = t.get_declaration()
            if decl is not None and decl._kind_id in RECORD_DECLS and decl.get_usr() == target:
                return True
        return False

    def is_qt_signal(self, c):
        """A member of a `signals:` (Q_SIGNALS) section or marked Q_SIGNAL: Qt's
        annotation (the working directory's Makefile preprocesses libwrap.h
        with QT_ANNOTATE_ACCESS_SPECIFIER and QT_ANNOTATE_FUNCTION defined as
        clang's `annotate`, SCAN_CPPFLAGS; Qt defines them empty unless a tool
        defined them first, and clang puts the section's annotation on each
        of its members), or without it
        a parameter of the class's QPrivateSignal type, which only signals
        have. QObject::connect(sender, &Class::signal, ...) finds a signal by
        comparing the caller's address of it with QtCore's own: a wrapper on
        the symbol gives the program another address and the connect fails."""
        for child in c.get_children():
            if child._kind_id == K_ANNOTATE_ATTR and child.spelling == "qt_signal":
                return True
        for a in c.get_arguments():
            decl = a.type.get_canonical().get_declaration()
            if decl.spelling == "QPrivateSignal" and decl._kind_id in RECORD_DECLS:
                return True
        return False

    def inline_reason(self, c):
        """inline, constexpr or consteval: the tokens up to the name tell."""
        try:
            extent = self.ci.SourceRange.from_locations(c.extent.start, c.location)
            words = {tok.spelling for tok in self.tu.get_tokens(extent=extent)}
        except Exception:
            words = set()
        if "consteval" in words:
            return "consteval"
        if "constexpr" in words:
            return "constexpr (implicitly inline)"
        if "inline" in words or "__inline" in words or "__inline__" in words:
            return "inline"
        return "inline (defined in the class body)" if c._kind_id in MEMBER_DECLS else "inline"

    def skipped_name(self, e):
        c = e.cursor
        if e.reason:
            return e.prefix
        if not self.cxx:
            return c.spelling
        if e.prefix is None:            # a friend: named in its namespace
            scope = self.scope_text(c.semantic_parent)
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
        """(procedure fields) for an entry, or raises _Unnameable."""
        c = e.cursor
        lib = self.lib
        k = c._kind_id
        # the latest declaration has every attribute, an assembler label
        # added by a redeclaration too (glibc: scanf -> __isoc99_scanf)
        latest = e.others[-1] if e.others else c
        symbol = (latest.mangled_name or "").lstrip("\x01")
        if not symbol:
            raise _NoSymbol()
        ftype = c.type
        no_prototype = ftype._kind_id == T_FUNCTION_NOPROTO
        variadic = not no_prototype and bool(lib.clang_isFunctionTypeVariadic(ftype))
        cls = None
        this_type = None
        function_kind = "function"
        ref_qualifier = ""
        if k in MEMBER_DECLS:
            parent = c.semantic_parent
            cls = self.record_name(parent)
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
            before, after = self.type_parts(result)
            return_type = _abstract(before, after)
            return_declarator = _declarator(before, after, "{name}")
            return_kind = self.coarse_kind(result)
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
                before, after = self.type_parts(t)
            except _Unnameable as exc:
                raise _Unnameable(f"parameter {position}: {exc}") from None
            parameters.append(Parameter(
                name=name, kind=self.coarse_kind(t, parameter=True), direction="in",
                c_type=_abstract(before, after), c_declarator=_declarator(before, after, "{name}")))
        file, line, _ = self.presumed(c.location)
        source_name = c.spelling
        scope = self.scope_prefix(c) if self.cxx else ""
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
        self.walk()
        built = []
        by_symbol = {}
        skipped, skipped_files = [], []
        used = set()          # patterns of address_compared that name a declared function
        for e in self.order:
            reason = e.reason or self.skip_reason(e)
            if reason is None:
                try:
                    symbol, return_kind, parameters, attributes = self.build(e)
                except _Unnameable as exc:
                    reason = f"cannot be written at global scope: {exc}"
                except _NoSymbol:
                    reason = "no symbol (libclang cannot mangle the declaration)"
            if reason is not None:
                if self.address_compared:      # not wrapped anyway: the pattern is not unknown
                    name = self.skipped_name(e)
                    pattern = self.declared_address_compared(name, {"qualified_name": name.split("(")[0],
                                                                    "symbol": ""})
                    if pattern is not None:
                        used.add(pattern)
                skipped.append((self.skipped_name(e), reason))
                skipped_files.append(self.presumed(e.cursor.location)[0])
                continue
            if symbol in by_symbol:
                skipped_files.append(self.presumed(e.cursor.location)[0])
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


def _space(before):
    """`int` -> `int ` before a `*`; `int *` and `void (` stay."""
    if before and before[-1] not in "*&^( ":
        return before + " "
    return before


def _prefix(quals, text):
    return " ".join(quals + [text]) if quals else text


def _abstract(before, after):
    if after.startswith("["):
        return before.rstrip() + after
    if after.startswith("("):
        return _space(before) + after
    return before + after


def _declarator(before, after, name):
    if after.startswith(")") and before and before[-1] in "*&^(":
        return before + name + after
    return before.rstrip() + " " + name + after


def _coarse(k, canon):
    if k == T_VOID:
        return "void"
    if k == T_BOOL:
        return "bool"
    if k in T_FLOATING:
        return "floating"
    if k in T_BUILTIN:
        return "pointer" if k == T_NULLPTR else "integer"
    if k == T_ENUM:
        return "enum"
    if k in (T_POINTER, T_BLOCK_POINTER):
        pointee = canon.get_pointee()
        pk = pointee._kind_id
        if pk in FUNCTIONS:
            return "function_pointer"
        if pk in (T_CHAR_S, T_CHAR_U):
            return "string"
        return "pointer"
    if k in (T_LREF, T_RREF):
        return "reference"
    if k in ARRAYS:
        return "array"
    if k in FUNCTIONS:
        return "function_pointer"
    # struct/class/union, member pointers, _Complex, vectors, _Atomic: values
    # a task copies but does not look into
    return "record"


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


# ---- when the header does not parse ---------------------------------------------

# (what the messages say, what is wrong, what fixes it); the first that
# matches an error gives the advice, the general one closes the list
_ERROR_ADVICE = [
    (re.compile(r"attribute cannot be applied to types|an attribute list cannot appear here|"
                r"attribute .* (?:cannot|must) (?:appear|be applied)"),
     "an attribute where GCC accepts it and clang does not",
     "define the macro that writes it as empty for the scan only: add -DMACRO= to SCAN_CPPFLAGS "
     "in the Makefile (below the settings block); or preprocess with clang: LIBWRAP_CC = clang++ "
     "(clang++ then also compiles the wrappers)"),
    (re.compile(r"unknown type name|use of undeclared identifier|no type named|no template named|"
                r"no member named .* in namespace|unknown template name|undeclared identifier"),
     "a name the header uses is not declared",
     "a header it needs is not included first (include it before, in libwrap.h), a -D or -I is "
     "missing from LIBWRAP_CPPFLAGS, or it needs a newer language standard: add -std=... to "
     "LIBWRAP_CPPFLAGS (make preprocesses and libclang parses with it)"),
    (re.compile(r"__builtin|builtin"),
     "a compiler builtin of GCC that clang does not know",
     "preprocess with clang: LIBWRAP_CC = clang++ (or clang for C); or define the macro that uses "
     "it for the scan only, with -D... in SCAN_CPPFLAGS in the Makefile"),
]


def _how_to_go_on(errors, language, args):
    """What make does to read the header, and what fixes the errors seen."""
    lines = ["  How to go on: make preprocesses libwrap.h into libwrap.i with $(LIBWRAP_CC) "
             "$(LIBWRAP_CPPFLAGS) $(SCAN_CPPFLAGS), then libclang 16 parses libwrap.i with "
             f"'{' '.join(args)}'."]
    for pattern, what, fix in _ERROR_ADVICE:
        if any(pattern.search(e.split(" error: ", 1)[-1]) for e in errors):
            lines.append(f"  - {what}: {fix}")
    lines.append("  - otherwise: fix LIBWRAP_CPPFLAGS (-I, -D, -std=) or libwrap.h, then run make "
                 "again (README.md, \"Messages\")")
    return "\n".join(lines)


# ---- entry point ---------------------------------------------------------------

def scan_header(path, language="c", clang_args=(), tolerate_system_header_errors=True,
                address_compared=()):
    """Scan a preprocessed header (`libwrap.i`) for wrappable functions.

    language: "c" or "c++"; clang_args: extra compiler flags (-std=..., -D...).
    address_compared: names or shell patterns of functions whose address the
    library compares or stores (LIBWRAP_ADDRESS_COMPARED_SYMBOLS): listed as
    not wrappable, as Qt signals are; a pattern that names nothing is an error.
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
    ci = load_cindex()
    clang_args = list(clang_args)
    args = ["-x", language, "-ferror-limit=0", "-w", *_compat_args(path, language)]
    if language == "c++" and not any(a.startswith(("-std=", "--std")) for a in clang_args):
        args.append("-std=c++17")
    args += clang_args
    with open(path, "rb") as f:
        source, _ = _standard_attributes_first(f.read())
    try:
        tu = ci.Index.create().parse(path, args=args, unsaved_files=[(path, source)],
                                     options=PARSE_SKIP_FUNCTION_BODIES)
    except ci.TranslationUnitLoadError as exc:
        raise HeaderError(f"libclang cannot parse it ({exc}; arguments: {' '.join(args)})",
                          file=path) from None
    c89 = any(re.fullmatch(r"--?std=(c89|c90|gnu89|gnu90|iso9899:1990|iso9899:199409)", a)
              or a == "-ansi" for a in clang_args)
    scanner = _Scanner(ci, tu, language, path, c89=c89, address_compared=address_compared,
                       text=source)
    errors, warnings = [], []
    for d in tu.diagnostics:
        if d.severity < ci.Diagnostic.Error:
            continue
        location = d.location
        if location.file is not None:
            file, line, col = scanner.presumed(location)
            text = f"{file}:{line}:{col}: error: {d.spelling}"
        else:
            text = f"error: {d.spelling}"
        if (tolerate_system_header_errors and location.file is not None
                and scanner.lib.clang_Location_isInSystemHeader(location)):
            warnings.append(text + " (in a system header; tolerated)")
        else:
            errors.append(text)
    if errors:
        shown = errors[:MAX_REPORTED_ERRORS]
        more = len(errors) - len(shown)
        raise HeaderError(
            f"libclang reports {len(errors)} error(s) in the preprocessed {language} header:\n  "
            + "\n  ".join(shown) + (f"\n  ... and {more} more" if more else "")
            + "\n" + _how_to_go_on(errors, language, args), file=path)
    # Q_OBJECT's expansion declares qt_metacall(QMetaObject::Call, ...); the
    # bare name also occurs in qmetatype.h's templates, which classes without
    # signals (QVector2D) include
    if language == "c++" and re.search(rb"\bqt_metacall\s*\(\s*QMetaObject\s*::\s*Call", source) \
            and b'annotate("qt_signal")' not in source:
        raise HeaderError(
            "the header declares Qt classes (Q_OBJECT) but libwrap.i does not show which of their "
            "members are signals: it was preprocessed without the annotation macros that "
            "working directories made now define (the Makefile's SCAN_CPPFLAGS). A wrapped signal "
            "breaks QObject::connect in the measured program. Add to the Makefile, below the "
            "settings block:\n"
            "  SCAN_CPPFLAGS = '-DQT_ANNOTATE_ACCESS_SPECIFIER(x)=__attribute__((annotate(\\#x)))' "
            "'-DQT_ANNOTATE_FUNCTION(x)=__attribute__((annotate(\\#x)))'\n"
            "and $(SCAN_CPPFLAGS) after $(LIBWRAP_CPPFLAGS) in the libwrap.i rule, then run make "
            "again", file=path)
    procedures, skipped, skipped_files, name_warnings = scanner.run()
    return ScanResult(procedures=procedures, skipped=skipped, skipped_files=skipped_files,
                      warnings=warnings + name_warnings,
                      language=language, path=scanner.path)
