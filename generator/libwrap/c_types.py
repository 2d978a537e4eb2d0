"""Types are printed by this module from libclang's type tree, not taken from
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
import re

from .clang_kinds import (ACCESS_PRIVATE, ACCESS_PROTECTED, ARRAYS, EXCEPT_BASIC_NOEXCEPT,
                          EXCEPT_COMPUTED_NOEXCEPT, EXCEPT_DYNAMIC_NONE, EXCEPT_NOTHROW,
                          FUNCTIONS, K_ENUM, K_LINKAGE_SPEC, K_NAMESPACE, K_TRANSLATION_UNIT,
                          K_UNEXPOSED_DECL, POINTERS, RECORD_DECLS, TAG_KEYWORD, T_ATTRIBUTED,
                          T_BLOCK_POINTER, T_BOOL, T_BUILTIN, T_CHAR_S, T_CHAR_U,
                          T_CONSTANT_ARRAY, T_ELABORATED, T_ENUM, T_FLOATING, T_FUNCTION_NOPROTO,
                          T_FUNCTION_PROTO, T_INVALID, T_LREF, T_MEMBER_POINTER, T_NULLPTR,
                          T_POINTER, T_RECORD, T_RREF, T_TYPEDEF, T_UNEXPOSED, T_VOID)


def _space(before):
    """`int` -> `int ` before a `*`; `int *` and `void (` stay."""
    if before and before[-1] not in "*&^( ":
        return before + " "
    return before


def _prefix(quals, text):
    return " ".join(quals + [text]) if quals else text


def abstract_text(before, after):
    if after.startswith("["):
        return before.rstrip() + after
    if after.startswith("("):
        return _space(before) + after
    return before + after


def declarator_text(before, after, name):
    if after.startswith(")") and before and before[-1] in "*&^(":
        return before + name + after
    return before.rstrip() + " " + name + after


def coarse_kind_of(k, canon):
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


class Unnameable(Exception):
    """A type that cannot be written at global scope (a private nested type,
    an unnamed struct, a type local to a function)."""


def scope_text(c):
    """The enclosing namespaces and classes of c, and c, as written (`ns::Cls::f`)."""
    parts = []
    while c is not None and c._kind_id != K_TRANSLATION_UNIT:
        if c._kind_id not in (K_LINKAGE_SPEC, K_UNEXPOSED_DECL):
            parts.append(c.spelling or "(anonymous namespace)")
        c = c.semantic_parent
    return "::".join(reversed(parts))


class TypePrinter:
    """C and C++ types printed from libclang's type tree as they are written at
    global scope; one per translation unit (it caches the names of scopes,
    records and typedefs)."""

    def __init__(self, lib, cxx, restrict):
        self.lib = lib
        self.cxx = cxx
        self.restrict = restrict
        self._scope_cache = {}
        self._record_cache = {}
        self._typedef_cache = {}

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
            raise Unnameable(f"'{decl.spelling}' is declared inside a function or template")
        self._scope_cache[key] = text
        return text

    def check_access(self, decl, what):
        if self.cxx and self.lib.clang_getCXXAccessSpecifier(decl) in (ACCESS_PROTECTED, ACCESS_PRIVATE):
            raise Unnameable(f"uses the {what} '{scope_text(decl)}', "
                              "which is not accessible outside its class")

    def record_name(self, decl):
        """Qualified name of a struct/class/union/enum, with template arguments."""
        key = decl.hash
        cached = self._record_cache.get(key)
        if cached is not None:
            return cached
        name = decl.spelling
        if not name or name.startswith("(") or "(unnamed" in name or "(anonymous" in name:
            raise Unnameable(f"uses an unnamed {TAG_KEYWORD.get(decl._kind_id, 'type')}")
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
            raise Unnameable(f"uses the type '{text}'")
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
                    raise Unnameable("uses a class-private typedef of an array or function type")
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
        return abstract_text(before, after)

    def declarator(self, t, name="{name}"):
        before, after = self.type_parts(t)
        return declarator_text(before, after, name)

    def coarse_kind(self, t, parameter=False):
        canon = t.get_canonical()
        k = canon._kind_id
        if parameter and k in ARRAYS:                # decays to a pointer
            return "string" if canon.element_type._kind_id in (T_CHAR_S, T_CHAR_U) else "pointer"
        if parameter and k in FUNCTIONS:
            return "function_pointer"
        return coarse_kind_of(k, canon)
