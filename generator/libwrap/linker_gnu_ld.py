"""GNU ld (ld.bfd)'s output: its undefined-reference messages and the archive
members of its link map (-Map)."""
import re

from .linker_format import undefined_in

# "FILE:(.data.rel.ro+0x8): undefined reference to `name'"; gold's message has
# the same words with straight quotes
UNDEFINED_REFERENCE = re.compile(r"undefined reference to [`']([^'`]+)'")
# defined only in a shared object the command line does not name (a dependency
# of a target library); ld stops after this one ("DSO missing from command line")
UNDEFINED_TO_SYMBOL = re.compile(r"undefined reference to symbol [`']([^'`]+)'")
UNDEFINED = [UNDEFINED_REFERENCE, UNDEFINED_TO_SYMBOL]
# "ld: FILE(member.o): in function `f':" precedes the lines it locates
IN_FUNCTION = re.compile(r": in function [`']")
BENIGN = [
    re.compile(r"^collect2: error: ld returned \d+ exit status"),
    re.compile(r"more undefined references to "),
    IN_FUNCTION,
]
# an error line that names the linker itself carries its own location
NAMES_LINKER = re.compile(r"^\S*ld\S*: ")

_MAP_MEMBER = re.compile(r"^(\S+\))(?:\s+(\S.*?) \(([^()]+)\))?\s*$")
_MAP_REFERRER = re.compile(r"^\s+(\S.*?) \(([^()]+)\)\s*$")


def undefined_symbols(output):
    return undefined_in(UNDEFINED, output)


def archive_members(map_text):
    """member -> (referring file, symbol) from the 'Archive member included ...'
    section of a link map: which reference pulled each member in. A member
    name too long for its column puts the referrer on the next line."""
    members, inside, pending = {}, False, None
    for line in map_text.splitlines():
        if line.startswith("Archive member included"):
            inside = True
            continue
        if not inside:
            continue
        if not line.strip():
            if members:
                break
            continue
        if pending is not None:
            m = _MAP_REFERRER.match(line)
            if m:
                members[pending] = (m.group(1), m.group(2))
            pending = None
            continue
        m = _MAP_MEMBER.match(line)
        if not m:
            break                            # the next section
        if m.group(2):
            members[m.group(1)] = (m.group(2), m.group(3))
        else:
            pending = m.group(1)
    return members
