"""What a library file exports, read from its symbol table with nm."""
from .library_search import file_kind, script_inputs
from .tool_run import SymbolCheckError, run, tail


# nm letters of defined global symbols (lower case: i ifunc, u unique global).
GLOBAL_DEFINED = set("ABCDGRSTVWiu")


def exported_symbols(path):
    """Defined global and weak symbols (any type) of a shared object's dynamic
    symbol table, of every member of an archive, or of every file a GNU ld text
    script names; version suffixes (@V, @@V) stripped. One nm per file."""
    path = str(path)
    kind = file_kind(path)
    if kind is None:
        raise SymbolCheckError(f"'{path}': cannot read the library file")
    if kind == "script":
        symbols = set()
        for item in script_inputs(path, ()):
            if file_kind(item) != "script":
                symbols |= exported_symbols(item)
        return symbols
    argv = ["nm", "-D", "--defined-only", path] if kind == "elf" else \
        ["nm", "-g", "--defined-only", path]
    proc = run(argv)
    if proc.returncode != 0 and not proc.stdout:
        raise SymbolCheckError(f"'{path}': nm cannot read the symbol table:\n{tail(proc.stderr)}")
    symbols = set()
    for line in proc.stdout.splitlines():
        fields = line.split()
        if len(fields) >= 2 and len(fields[-2]) == 1 and fields[-2] in GLOBAL_DEFINED:
            symbols.add(fields[-1].split("@", 1)[0])
    return symbols
