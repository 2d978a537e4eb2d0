"""What the linker output parsers share: finding their undefined-symbol lines."""


def undefined_in(patterns, output):
    """(symbol, version or "") of each line of output that one of patterns
    matches (group 1 the symbol, group 2, where the pattern has one, the version)."""
    found = []
    for line in output.splitlines():
        for pattern in patterns:
            m = pattern.search(line)
            if m:
                found.append((m.group(1), version_of(m)))
                break
    return found


def version_of(match):
    return (match.group(2) or "") if match.re.groups >= 2 else ""
