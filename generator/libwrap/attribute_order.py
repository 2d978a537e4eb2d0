"""Reading GCC-preprocessed text the way clang accepts it: in every run of
attribute specifiers in which a standard `[[...]]` list follows a GNU
`__attribute__((...))`, the standard lists first (library_rules.json,
rule standard-attributes-first, says why)."""
import re


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


def standard_attributes_first(text):
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
