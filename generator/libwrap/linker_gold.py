"""gold's output: GNU ld's messages with straight quotes, a versioned reference
with ", version 'V'" added; its link map has GNU ld's archive-member section
("Archive member included because of file (symbol)")."""
import re

from . import linker_gnu_ld
from .linker_format import undefined_in

UNDEFINED_VERSIONED = re.compile(r"undefined reference to '([^']+)', version '([^']+)'")
# the versioned form first: GNU ld's pattern would match it without the version
UNDEFINED = [UNDEFINED_VERSIONED, linker_gnu_ld.UNDEFINED_REFERENCE]
archive_members = linker_gnu_ld.archive_members


def undefined_symbols(output):
    return undefined_in(UNDEFINED, output)
