"""mold's output: it reports an undefined symbol in lld's words,
"undefined symbol: NAME" followed by ">>> referenced by" lines, so lld's
parser reads it."""
from . import linker_lld

UNDEFINED = linker_lld.UNDEFINED
undefined_symbols = linker_lld.undefined_symbols
