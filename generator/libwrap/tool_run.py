"""Running the compiler and binutils for the symbol check: flag lists as
words, one locale (the linkers' messages are parsed), failures as SymbolCheckError."""
import os
import shlex
import subprocess

from ..errors import SpecError


class SymbolCheckError(SpecError):
    """A target library that cannot be found, a compiler or flags that cannot
    link a trivial program, a symbol name the check cannot reference."""


def words(flags):
    if flags is None:
        return []
    if isinstance(flags, str):
        return shlex.split(flags)
    return [str(f) for f in flags]


def cc_words(cc):
    given = words(cc)
    if not given:
        raise SymbolCheckError("no compiler given")
    return given


def run(argv, **kwargs):
    env = dict(os.environ, LC_ALL="C", LANG="C", LANGUAGE="C")
    try:
        return subprocess.run(argv, capture_output=True, text=True, errors="replace",
                              env=env, **kwargs)
    except FileNotFoundError as exc:
        raise SymbolCheckError(f"compiler or tool '{argv[0]}' not found: {exc}") from None
    except PermissionError as exc:
        raise SymbolCheckError(f"compiler or tool '{argv[0]}' cannot be run: {exc}") from None


def tail(text, lines=20):
    text = (text or "").strip().splitlines()
    if len(text) > lines:
        text = text[:lines] + [f"... ({len(text) - lines} more lines)"]
    return "\n".join(text)
