"""What a static archive needs linked after it.

A static archive does not say which libraries it needs (a shared library names
them in DT_NEEDED): linking libxml2.a alone leaves zlib, lzma and ICU undefined.
make installcheck's static mode asks, in this order: the pkg-config package
that provides the library (`pkg-config --static --libs`), then the shared
version's DT_NEEDED entries; a link that still fails is explained by
missing_libraries (which undefined symbols, which library defines them)."""
import concurrent.futures
import os
import pathlib
import re
import shlex

from . import linker_gnu_ld, linker_lld
from .library_rules import named_in
from .library_search import LibraryFile, compiler_dirs, file_kind, library_dirs
from .symbol_tables import GLOBAL_DEFINED, exported_symbols
from .tool_run import SymbolCheckError, cc_words, run, tail, words


def _pc_dirs():
    """pkg-config's search path: PKG_CONFIG_PATH, then PKG_CONFIG_LIBDIR or its default."""
    dirs = [d for d in os.environ.get("PKG_CONFIG_PATH", "").split(":") if d]
    libdir = os.environ.get("PKG_CONFIG_LIBDIR")
    if libdir is None:
        proc = run(["pkg-config", "--variable", "pc_path", "pkg-config"])
        libdir = proc.stdout.strip() if proc.returncode == 0 else ""
    return dirs + [d for d in libdir.split(":") if d]


def _names_library(pc_file, name):
    """Whether a .pc file's own Libs: line links -lNAME (its Requires do not count:
    Qt5Gui's package pulls in -lQt5Core but does not provide it)."""
    try:
        text = pathlib.Path(pc_file).read_text(errors="replace")
    except OSError:
        return False
    for line in text.splitlines():
        if line.startswith("Libs:"):
            words = line[5:].split()
            if f"-l{name}" in words or any(w == "-l" and nxt == name for w, nxt in zip(words, words[1:])):
                return True
    return False


def pkg_config_package(name, library_path):
    """The pkg-config package that provides -lNAME as the file library_path (its
    libdir holds that file), or None (no pkg-config, no such package)."""
    try:
        seen = set()
        for d in _pc_dirs():
            for pc in sorted(pathlib.Path(d).glob("*.pc")) if os.path.isdir(d) else ():
                package = pc.name[:-3]
                if package in seen or not _names_library(pc, name):
                    continue
                seen.add(package)
                libdir = run(["pkg-config", "--variable=libdir", package]).stdout.strip()
                if libdir and library_path and not _same_file(
                        os.path.join(libdir, os.path.basename(library_path)), library_path):
                    continue        # another installation of the same library
                return package
    except SymbolCheckError:        # no pkg-config
        pass
    return None


def _same_file(a, b):
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def needed_libraries(shared_path):
    """The DT_NEEDED sonames of a shared library, those the compiler driver
    links itself left out (library_rules.json, kind driver_linked_sonames)."""
    proc = run(["readelf", "-dW", str(shared_path)])
    names = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", proc.stdout)
    driver_linked = tuple(named_in("driver_linked_sonames", "soname_prefixes"))
    return [n for n in names if not n.startswith(driver_linked)]


def static_dependencies(lib, shared_path=None):
    """What to link after the archive of `lib` (a LibraryFile, or its name)
    for its own undefined symbols: (flags, where they come from)."""
    name = lib.name if isinstance(lib, LibraryFile) else lib
    static = lib.static_path if isinstance(lib, LibraryFile) else None
    shared = (lib.shared_path if isinstance(lib, LibraryFile) else None) or shared_path
    package = pkg_config_package(name, static or shared)
    problem = None
    if package:
        proc = run(["pkg-config", "--static", "--libs", package])
        if proc.returncode == 0:
            flags = [w for w in shlex.split(proc.stdout) if w != f"-l{name}"]
            return flags, f"pkg-config --static --libs {package}"
        problem = f"pkg-config --static --libs {package} failed: {tail(proc.stderr, 3)}"
    if shared:
        needed = needed_libraries(shared)
        source = f"the libraries {os.path.basename(shared)} needs (DT_NEEDED)"
        return [f"-l:{n}" for n in needed], source + (f"; {problem}" if problem else "")
    return [], problem or "no pkg-config package and no shared version name its dependencies"


def undefined_references(link_output):
    """The symbols a failed link names as undefined (GNU ld, gold, mold, lld)."""
    found = linker_gnu_ld.UNDEFINED_REFERENCE.findall(link_output)
    found += linker_lld.UNDEFINED_SYMBOL.findall(link_output)
    return list(dict.fromkeys(s.split("@")[0] for s in found))


def missing_libraries(symbols, ldflags, cc, jobs=2):
    """Which linkable library (a lib*.so the link's -L and default directories
    hold, so -lNAME finds it) defines each symbol: ({'-lNAME': [symbols]},
    [symbols no library defines]). Reads the smallest symbol tables first and
    stops when every symbol has a library."""
    wanted = set(symbols)
    dirs = list(library_dirs(words(ldflags), "--ldflags")) + list(compiler_dirs(tuple(cc_words(cc))))
    candidates, names = [], set()
    for d in dirs:
        for path in sorted(pathlib.Path(d).glob("lib*.so")):
            lib_name = path.name[3:-3]
            if lib_name not in names and file_kind(str(path)) in ("elf", "script"):
                names.add(lib_name)
                candidates.append(path)
    candidates.sort(key=lambda p: p.stat().st_size)
    found = {}

    def tables(batch):
        """{path: exported symbols}: one nm for a batch of shared objects (the
        process start, not the reading, is what costs), scripts one by one."""
        out = {p: set() for p in batch}
        elves = [p for p in batch if file_kind(str(p)) == "elf"]
        for p in batch:
            if p not in elves:
                out[p] = exported_symbols(p)
        if elves:
            listing = run(["nm", "-D", "--defined-only", "-A", *map(str, elves)]).stdout
            by_name = {str(p): p for p in elves}
            for m in re.finditer(r"^(.*):[0-9a-fA-F]*\s+(\S)\s+(\S+)$", listing, re.M):
                path = by_name.get(m.group(1))
                if path and m.group(2) in GLOBAL_DEFINED:
                    out[path].add(m.group(3).split("@", 1)[0])
        return out

    size = 32
    batches = [candidates[i:i + size] for i in range(0, len(candidates), size)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for start in range(0, len(batches), jobs):
            for result in pool.map(tables, batches[start:start + jobs]):
                for path, table in result.items():
                    hits = sorted(wanted & table)
                    if hits:
                        found[f"-l{path.name[3:-3]}"] = hits
                        wanted -= set(hits)
            if not wanted:
                break
    return found, sorted(wanted)
