"""lld's output: "undefined symbol: NAME" with ">>>" lines below that say
where, an error limit, and the --why-extract file that says why each archive
member was pulled in (its -Map does not)."""
import re

from .linker_format import undefined_in

UNDEFINED_SYMBOL = re.compile(r"undefined symbol: (\S+)")
UNDEFINED = [UNDEFINED_SYMBOL]
CONTEXT_PREFIX = ">>>"
ERROR_LIMIT = "too many errors emitted"
NAMES_ITSELF = "ld.lld: "
# ">>>   m.o:(f) in archive /x/libfoo.a"
_MEMBER = re.compile(r"(\S+):\([^()]*\) in archive (\S+)")


def options(out):
    """The link options for an output path `out`: no error limit, and why each
    archive member is pulled in (written to out.why)."""
    return ["-Wl,--error-limit=0", f"-Wl,--why-extract={out}.why"]


def undefined_symbols(output):
    return undefined_in(UNDEFINED, output)


def stopped_at_error_limit(output):
    return ERROR_LIMIT in output


def members_named(text):
    """The archive members ("archive(member)") a message's >>> lines name."""
    return [f"{archive}({member})" for member, archive in _MEMBER.findall(text)]


def why_extract(text):
    """member -> (referring file, symbol) from a --why-extract file."""
    members = {}
    for line in text.splitlines()[1:]:
        fields = line.split("\t")
        if len(fields) == 3:
            members.setdefault(fields[1], (fields[0], fields[2]))
    return members
