"""Walking a translation unit's declarations into Entry objects: one per
function (its later declarations, inline and friend status gathered), and
the templates seen, already with their reason to be skipped."""
from dataclasses import dataclass, field

from .c_types import scope_text
from .clang_kinds import (ACCESS_PRIVATE, FUNCTION_DECLS, K_FRIEND, K_FUNCTION,
                          K_FUNCTION_TEMPLATE, K_LINKAGE_SPEC, K_NAMESPACE, K_UNEXPOSED_DECL,
                          RECORD_DECLS, TEMPLATE_DECLS)


@dataclass
class Entry:
    """One function the walk found, under its first declaration."""
    cursor: object
    prefix: str                 # enclosing namespaces/classes as written, for `skipped`
    hidden: str = ""            # why every function in this context is skipped
    inline: bool = False        # any declaration of it is inline
    friend_only: bool = False   # declared only as a friend inside a class
    friend_of: object = None    # the (first) class that declares it a friend
    others: list = field(default_factory=list)   # later declarations of it
    reason: str = ""            # known to be skipped while walking (templates)


class DeclarationWalk:
    """Every function declaration of a translation unit once (by USR), in
    declaration order, never looking into function bodies; also where each
    class's inline code is, for SkipReasons.called_by_class_code."""

    def __init__(self, lib, tu, cxx, text):
        self.lib = lib
        self.tu = tu
        self.cxx = cxx
        self.text = text                # what libclang parsed (offsets index it)
        self.entries = {}
        self.order = []
        self.class_code = {}            # class USR -> [(start, end)] of its code

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
            e = Entry(c, name, reason=reason)
            self.entries[usr] = e
            self.order.append(e)

    def add_out_of_class(self, c):
        """A member defined outside its class: a redeclaration of the member
        seen in the class (or of a class template's member)."""
        parent = c.semantic_parent
        ancestor = parent
        while ancestor is not None and ancestor._kind_id in RECORD_DECLS + TEMPLATE_DECLS:
            if ancestor._kind_id in TEMPLATE_DECLS:
                self.skip_once(c, scope_text(parent) + "::" + c.displayname,
                               "member of a class template")
                return
            ancestor = ancestor.semantic_parent
        if parent is not None and parent._kind_id in RECORD_DECLS:
            body = self.body_after(c.extent.end.offset)
            if body is not None:
                self.class_code.setdefault(parent.get_usr(), []).append(body)
        self.add(c, scope_text(parent) + "::" if parent is not None else "", "")

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
        e = Entry(c, prefix, hidden, inline, friend is not None, friend)
        self.entries[usr] = e
        self.order.append(e)

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
