"""Why a function the headers declare is not wrapped."""
import re

from .clang_kinds import (ACCESS_PRIVATE, AVAILABILITY_NOT_AVAILABLE, FUNCTION_DECLS,
                          K_ANNOTATE_ATTR, K_FUNCTION, K_FUNCTION_TEMPLATE, K_METHOD,
                          LINKAGE_INTERNAL, MEMBER_DECLS, POINTERS, RECORD_DECLS)
from .library_rules import rules_of


# Why a function whose address the library compares or stores is not wrapped:
# a wrapper gives the program another address for it than the library has.
ADDRESS_COMPARED = "address compared by the library: "


class SkipReasons:
    """Why a declared function is not wrapped, or None: what the program cannot
    reach or call by name, what has no symbol of its own, and what the
    library rules (library_rules.json) say is not to be wrapped."""

    def __init__(self, ci, tu, cxx, text, class_code, rules=None):
        self.ci = ci
        self.lib = ci.conf.lib
        self.tu = tu
        self.cxx = cxx
        self.text = text
        self.class_code = class_code    # DeclarationWalk.class_code
        self._calls = {}                # class USR -> {name: occurrences of `name(`}
        self.address_compared_members = rules_of("address_compared_members", rules)

    def reason(self, e):
        """Why the entry's function is not wrapped, or None."""
        c = e.cursor
        k = c._kind_id
        lib = self.lib
        if e.hidden:
            return e.hidden
        if k == K_METHOD and self.cxx:
            rule = self.address_compared_rule(c)
            if rule is not None:
                return ADDRESS_COMPARED + rule["skip_reason"]
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

    def address_compared_rule(self, c):
        """The address_compared_members rule that marks this member, or None: by
        the annotation clang puts on it (Qt: a member of a `signals:` section
        or marked Q_SIGNAL, when libwrap.i was preprocessed with Qt's
        annotation macros defined as clang's `annotate`), or by a parameter of
        the rule's marker type (Qt: QPrivateSignal, which only signals have)."""
        for rule in self.address_compared_members:
            for child in c.get_children():
                if child._kind_id == K_ANNOTATE_ATTR and child.spelling == rule["annotation"]:
                    return rule
            marker = rule.get("marker_parameter_type")
            for a in c.get_arguments() if marker else ():
                decl = a.type.get_canonical().get_declaration()
                if decl.spelling == marker and decl._kind_id in RECORD_DECLS:
                    return rule
        return None

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
