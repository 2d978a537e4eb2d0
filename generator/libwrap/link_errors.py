"""Reading a failed link: which of our references the linker names undefined
(GNU ld, gold, lld and mold, each parsed by its own module), which archive
member's undefined reference goes back to which of them, and which error
lines name none."""
import re

from . import linker_gnu_ld, linker_gold, linker_lld, linker_mold
from .linker_format import version_of

# the first pattern that matches a line names its symbol: gold's versioned
# form before GNU ld's plain one, which would match it without the version
UNDEFINED = list(dict.fromkeys(linker_gold.UNDEFINED + linker_gnu_ld.UNDEFINED
                               + linker_lld.UNDEFINED + linker_mold.UNDEFINED))
BENIGN = linker_gnu_ld.BENIGN + [
    re.compile(r"(clang|clang\+\+|gcc|g\+\+|cc|c\+\+)[^:]*: error: linker command failed"),
    re.compile(r"(^|: )warning: "),
    re.compile(r"^\s*$"),
]
ARCHIVE_MEMBER = re.compile(r"[^\s:()`']+\([^()\s]+\)")     # /x/libfoo.a(m.o)
MAX_READ = 1 << 24


def _read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read(MAX_READ)
    except (OSError, TypeError):
        return ""


def read_members(out):
    """member -> (referring file, symbol) for the link that wrote out: from its
    map (GNU ld, gold) and lld's --why-extract file, the map first."""
    members = linker_gnu_ld.archive_members(_read(f"{out}.map"))
    for member, why in linker_lld.why_extract(_read(f"{out}.why")).items():
        members.setdefault(member, why)
    return members


def _root_symbol(member, members, stem):
    """The symbol of ours whose reference (directly or through other members)
    pulled this archive member in, or None."""
    seen = set()
    while member in members and member not in seen:
        seen.add(member)
        referrer, symbol = members[member]
        if stem in referrer:
            return symbol
        member = referrer
    return None


class LinkOutcome:
    def __init__(self, ok, failed=(), via_members=(), unattributed=(), output="",
                 error_limit=False):
        self.ok = ok                          # the link succeeded
        self.failed = set(failed)             # our symbols that fail
        self.via_members = set(via_members)   # ... of them because of an archive member they pull in
        self.unattributed = list(unattributed)  # error lines pinned to none of our symbols
        self.output = output
        self.error_limit = error_limit        # lld stopped after its error limit


def analyse(proc, names, stem, members=None):
    """Which of our references the failed link names undefined, and which error
    lines name none of them. names maps the linker's spelling to our symbols;
    members is the link map's archive members (an undefined reference inside a
    member counts against the symbol of ours that pulled the member in)."""
    output = (proc.stderr or "") + (proc.stdout or "")
    if proc.returncode == 0:
        return LinkOutcome(True, output=output)
    members = members or {}
    lines = output.splitlines()
    failed, via_members, unattributed = set(), set(), []
    error_limit = linker_lld.stopped_at_error_limit(output)
    header = ""       # GNU ld: "ld: FILE: in function `f':" precedes the lines it locates
    i = 0
    while i < len(lines):
        line = lines[i]
        context = [line]
        j = i + 1
        while j < len(lines) and lines[j].lstrip().startswith(linker_lld.CONTEXT_PREFIX):
            context.append(lines[j])
            j += 1
        i = j
        if linker_gnu_ld.IN_FUNCTION.search(line):
            header = line
            continue
        for pattern in UNDEFINED:
            m = pattern.search(line)
            if m:
                break
        if not m:
            if not line.lstrip().startswith(linker_lld.CONTEXT_PREFIX) \
                    and not any(b.search(line) for b in BENIGN):
                unattributed.append(line)
            continue
        where = line[:m.start()] + " ".join(context[1:])
        if not linker_gnu_ld.NAMES_LINKER.match(line) and not ARCHIVE_MEMBER.search(where):
            where = header + " " + where      # "src.c:(.text+0x11): undefined reference ..."
        version = version_of(m)
        named = f"{m.group(1)}@{version}" if version else m.group(1)
        ours = names.get(named)
        if not ours and m.re is linker_gnu_ld.UNDEFINED_TO_SYMBOL:   # names the definition's version
            ours = names.get(named.split("@", 1)[0])
        if ours and stem in where:
            failed.update(ours)
            continue
        found = ARCHIVE_MEMBER.findall(where) + linker_lld.members_named(where)
        roots = {_root_symbol(member, members, stem) for member in found}
        pinned = [s for root in roots if root is not None for s in names.get(root, [])]
        if pinned:
            failed.update(pinned)
            via_members.update(pinned)
        else:
            unattributed.append("\n".join(context))
    if not failed and not unattributed:
        unattributed.append(f"the link failed (exit {proc.returncode}) without naming an error")
    return LinkOutcome(False, failed, via_members, unattributed, output, error_limit)
