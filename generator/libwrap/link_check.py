"""The symbol check of library wrapping (`make check`, and `make` dropping missing
functions): for the symbols of the functions to wrap, which does the target
library not export ("missing") and which link even without it ("uncertain").

The reference is one compile+link per function of a tiny program referencing it
(check_per_function): with the target libraries it fails -> missing; without
them it succeeds -> uncertain. check_symbols reaches the same verdicts with two
links for all symbols at once:

  - one object (one per 2,500 symbols, compiled at the same time: GNU ld's
    time per undefined reference grows with the symbols of the object) refers
    to every symbol through an asm label (C++ mangled names and asm names like
    `__isoc99_scanf` need no declaration; a versioned name `memcpy@GLIBC_2.2.5`
    becomes a `.symver` reference to that version);
  - it is linked once without and once with the target libraries (both links at
    the same time, LC_ALL=C), `--no-demangle` so the linker names the symbols as
    given; every `undefined reference` the linker reports against that object
    is a symbol that fails. GNU ld 2.40 reports every undefined symbol (it only
    folds repeated references to the same one), gold and mold too, lld after
    `--error-limit=0` (added when it says it stopped);
  - an undefined reference inside an archive member is pinned, through the link
    map (`-Map`, "Archive member included to satisfy reference by file
    (symbol)", followed from member to member), on the symbol of ours that
    pulled the member in; GNU ld's "undefined reference to symbol" (defined only
    by a library the command line does not name) on that symbol. The symbols
    not named are then linked again: a member pulled in for one symbol may be
    needed by another, and ld stops after "DSO missing from command line";
  - an error pinned on no symbol (a conflicting definition, a shared library
    with unresolved symbols of its own, output that cannot be parsed) is
    resolved by bisection: the symbols not named are linked again, in halves
    when none was named, until each failure belongs to one symbol. A trivial
    program is linked first then, so broken flags raise an error instead.

So the verdicts rest on the linker's failures being per symbol: a symbol that
fails alone also fails among others, and one that links alone is named by no
error among others (true for undefined symbols; archive members are re-checked
as above).
The symbol tables of the library files the linker picks (find_libraries,
exported_symbols) serve as a cross-check: disagreements become notes.
"""
import concurrent.futures
import dataclasses
import os
import pathlib
import shlex
import tempfile
import threading

from . import linker_lld
from .library_search import find_libraries
from .link_errors import analyse, read_members
from .reference_objects import (batch_source, compile_options, reported_name, single_source,
                                source_suffix, symbol_parts)
from .symbol_tables import exported_symbols
from .tool_run import SymbolCheckError, cc_words, run, tail, words


# What the reference objects are called: how the linker's messages are pinned to them.
STEM = "scorep_libwrap_refs"


# Symbols per reference object.
CHUNK = 2500


@dataclasses.dataclass
class CheckResult:
    missing: list = dataclasses.field(default_factory=list)     # fail to link with the target libraries
    uncertain: list = dataclasses.field(default_factory=list)   # link without them
    links: int = 0                                              # link commands run
    notes: list = dataclasses.field(default_factory=list)
    libraries: list = dataclasses.field(default_factory=list)   # LibraryFile of each target library


class _Linker:
    """Compiles reference objects and links them, counting links."""

    def __init__(self, cc, ldflags, libs, workdir, language):
        self.cc = cc_words(cc)
        self.ldflags = words(ldflags)
        self.libs = words(libs)
        self.workdir = pathlib.Path(workdir)
        self.suffix = source_suffix(language)
        self.compile_options = compile_options(self.ldflags + self.libs)
        self.extra = ["-Wl,--no-demangle"]
        self.lld = False          # lld: no error limit, and say why archive members are pulled in
        self.links = 0
        self._lock = threading.Lock()
        self.counter = 0
        self.trivial_checked = set()

    def _path(self, tag, suffix):
        with self._lock:
            self.counter += 1
            return self.workdir / f"{STEM}_{self.counter}_{tag}{suffix}"

    def compile(self, symbols):
        """The reference objects for these symbols: one per CHUNK symbols (GNU ld
        spends time per undefined reference proportional to the symbols of its
        object), compiled at the same time."""
        tag = self._path("src", "").name
        chunks = [symbols[i:i + CHUNK] for i in range(0, len(symbols), CHUNK)] or [[]]

        def one(part):
            source = self.workdir / f"{tag}_{part}{self.suffix}"
            obj = source.with_suffix(".o")
            source.write_text(batch_source(chunks[part], part))
            proc = run(self.cc + self.compile_options + ["-c", str(source), "-o", str(obj)])
            return obj, source, proc

        workers = min(len(chunks), os.cpu_count() or 1)
        if workers > 1:
            with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
                done = list(pool.map(one, range(len(chunks))))
        else:
            done = [one(part) for part in range(len(chunks))]
        for obj, source, proc in done:
            if proc.returncode != 0:
                self._check_trivial_compile()
                raise SymbolCheckError(
                    f"compiler '{shlex.join(self.cc)}' cannot compile the reference object "
                    f"{source}:\n{tail(proc.stderr + proc.stdout)}")
        return [obj for obj, _, _ in done]

    def _check_trivial_compile(self):
        source = self._path("trivial", self.suffix)
        source.write_text("int main(void) { return 0; }\n")
        proc = run(self.cc + self.compile_options + ["-c", str(source), "-o",
                                                      str(source.with_suffix(".o"))])
        if proc.returncode != 0:
            raise SymbolCheckError(f"compiler '{shlex.join(self.cc)}' cannot compile a trivial "
                                   f"program (exit {proc.returncode}):\n"
                                   f"{tail(proc.stderr + proc.stdout)}")

    def link_command(self, obj, with_libs, out, lld):
        extra = self.extra + [f"-Wl,-Map={out}.map"]
        if lld:
            extra += linker_lld.options(out)
        objects = [str(o) for o in obj] if isinstance(obj, list) else [str(obj)]
        return (self.cc + extra + self.ldflags + objects
                + (self.libs if with_libs else []) + ["-o", str(out)])

    def link(self, obj, with_libs):
        """(completed process, output path (+.map, +.why), whether lld's options were
        used, the object linked)."""
        first = obj[0] if isinstance(obj, list) else obj
        out = first.with_name(first.stem + ("_with" if with_libs else "_without") + ".out")
        with self._lock:
            self.links += 1
            lld = self.lld
        return run(self.link_command(obj, with_libs, out, lld)), str(out), lld, obj

    def check_trivial(self, with_libs):
        """Raise when even a program referencing nothing does not link."""
        if with_libs in self.trivial_checked:
            return
        source = self._path("trivial", self.suffix)
        source.write_text("int main(void) { return 0; }\n")
        obj = source.with_suffix(".o")
        proc = run(self.cc + self.compile_options + ["-c", str(source), "-o", str(obj)])
        if proc.returncode != 0:
            raise SymbolCheckError(f"compiler '{shlex.join(self.cc)}' cannot compile a trivial "
                                   f"program (exit {proc.returncode}):\n"
                                   f"{tail(proc.stderr + proc.stdout)}")
        proc = self.link(obj, with_libs)[0]
        if proc.returncode != 0:
            flags = shlex.join(self.ldflags + (self.libs if with_libs else []))
            raise SymbolCheckError(
                f"compiler '{shlex.join(self.cc)}' cannot link a trivial program with the flags "
                f"'{flags}' (exit {proc.returncode}); the linker says:\n"
                f"{tail(proc.stderr + proc.stdout)}")
        self.trivial_checked.add(with_libs)


def _outcome(linked, symbols):
    proc, out = linked[:2]
    names = {}
    for s in symbols:
        names.setdefault(reported_name(s), []).append(s)
    members = read_members(out) if proc.returncode != 0 else {}
    return analyse(proc, names, STEM, members)


def _failing(linker, symbols, with_libs, first=None, notes=None):
    """The symbols whose own link fails. Those the linker names undefined fail;
    so do those whose archive member needs something undefined, and then the
    others are linked again (a member pulled in for one symbol may be what
    another one needs too). An error pinned to no symbol: the ones not named
    are linked again, in halves when none was named.
    first: the link already run for these symbols; notes: where the top level
    says what happened (the deeper levels say nothing)."""
    if not symbols:
        return set()
    linked = first if first is not None else linker.link(linker.compile(symbols), with_libs)
    outcome = _outcome(linked, symbols)
    lld = outcome.error_limit or linker_lld.NAMES_ITSELF in outcome.output
    if lld and not linked[2] and (outcome.error_limit or outcome.unattributed):
        # lld stops after 20 errors, and its map does not say why an archive
        # member was pulled in: link again with options for both
        with linker._lock:
            linker.lld = True
        again = linker.link(linked[3], with_libs)
        return _failing(linker, symbols, with_libs, first=again, notes=notes)
    if outcome.ok:
        return set()
    if not outcome.unattributed and not outcome.via_members:
        return outcome.failed
    case = "with" if with_libs else "without"
    if outcome.unattributed:
        linker.check_trivial(with_libs)
        if len(symbols) == 1:
            return set(symbols)
        if notes is not None:
            notes.append(f"the link {case} the target libraries reported errors tied to no "
                         f"symbol; linking the others again (bisection where needed). First of "
                         f"them:\n{tail(chr(10).join(outcome.unattributed), 6)}")
    elif notes is not None:
        via = sorted(outcome.via_members)
        notes.append(f"the link {case} the target libraries: {len(via)} symbol(s) pull in an "
                     f"archive member that does not link: " + ", ".join(via[:10])
                     + (" ..." if len(via) > 10 else ""))
    rest = [s for s in symbols if s not in outcome.failed]
    if len(rest) < len(symbols):
        return outcome.failed | _failing(linker, rest, with_libs)
    half = len(symbols) // 2
    return _failing(linker, symbols[:half], with_libs) | _failing(linker, symbols[half:], with_libs)


def _unique(symbols):
    seen, ordered = set(), []
    for s in symbols:
        s = str(s).strip()
        if s and s not in seen:
            symbol_parts(s)
            seen.add(s)
            ordered.append(s)
    return ordered


def _symbol_tables(libraries):
    """(files, exported symbols of all of them) of the files the linker takes."""
    files = [f for lib in libraries for f in lib.linked_files]
    exported = set()
    for f in files:
        try:
            exported |= exported_symbols(f)
        except SymbolCheckError as exc:
            return files, None, str(exc)
    return files, exported, None


def _cross_check(result, symbols, tables):
    """Notes where the library files' symbol tables disagree with the links."""
    files, exported, problem = tables
    if problem:
        result.notes.append(f"no cross-check with the symbol tables: {problem}")
    if not files or exported is None:
        return
    missing, uncertain = set(result.missing), set(result.uncertain)
    unexpected = [s for s in symbols if s in missing and symbol_parts(s)[1] is None
                  and s in exported]
    if unexpected:
        result.notes.append(
            f"{len(unexpected)} symbol(s) in the symbol table of {', '.join(files)} do not link "
            f"with it (hidden version, or a definition that needs something else): "
            + ", ".join(unexpected[:10]) + (" ..." if len(unexpected) > 10 else ""))
    elsewhere = [s for s in symbols if s not in missing and s not in uncertain
                 and symbol_parts(s)[0] not in exported]
    if elsewhere:
        result.notes.append(
            f"{len(elsewhere)} symbol(s) link only with the target libraries but are not in "
            f"the symbol tables of {', '.join(files)} (another library of --libs or one they "
            f"bring in): " + ", ".join(elsewhere[:10]) + (" ..." if len(elsewhere) > 10 else ""))


def _library_notes(result, libraries):
    for lib in libraries:
        if lib.shared_path is None and lib.static_path:
            result.notes.append(f"{lib.flag}: only a static library ({lib.static_path}); "
                                "the verdicts hold for linking it, run-time (LD_PRELOAD) "
                                "wrapping needs a shared one")
        elif lib.linked_path and lib.linked_path == lib.static_path and lib.shared_path:
            result.notes.append(f"{lib.flag}: the linker takes the static library "
                                f"{lib.static_path} here, not {lib.shared_path}")


def check_symbols(symbols, cc, ldflags, libs, workdir, language="c"):
    """The verdicts of check_per_function for all symbols at once: two links
    (without and with the target libraries, run at the same time), bisection
    only where the linker's messages do not name the failing symbols."""
    symbols = _unique(symbols)
    libraries = find_libraries(libs, ldflags, cc)
    result = CheckResult(libraries=libraries)
    _library_notes(result, libraries)
    pathlib.Path(workdir).mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=workdir, prefix="symbol-check-") as tmp:
        linker = _Linker(cc, ldflags, libs, tmp, language)
        if not symbols:
            linker.check_trivial(True)
            result.links = linker.links
            return result
        obj = linker.compile(symbols)
        cases = [False, True] if words(libs) else [False]
        # both links (and any further ones each needs) and the symbol-table reads
        # at the same time
        with concurrent.futures.ThreadPoolExecutor(max_workers=len(cases) + 1) as pool:
            tables = pool.submit(_symbol_tables, libraries)
            notes = {w: [] for w in cases}
            failing = dict(zip(cases, pool.map(
                lambda w: _failing(linker, symbols, w, first=linker.link(obj, w), notes=notes[w]),
                cases)))
            tables = tables.result()
        for w in cases:
            result.notes += notes[w]
        if True not in failing:
            failing[True] = failing[False]
        result.uncertain = [s for s in symbols if s not in failing[False]]
        result.missing = [s for s in symbols if s in failing[True]]
        result.links = linker.links
    _cross_check(result, symbols, tables)
    return result


def check_per_function(symbols, cc, ldflags, libs, workdir, language="c", jobs=1):
    """The slow reference: for each symbol a tiny program calling it, compiled
    once and linked with the target libraries (fails -> missing) and without
    them (succeeds -> uncertain). jobs: how many symbols at a time."""
    symbols = _unique(symbols)
    compiler, flag_words, lib_words = cc_words(cc), words(ldflags), words(libs)
    suffix = source_suffix(language)
    options = compile_options(flag_words + lib_words)
    pathlib.Path(workdir).mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=workdir, prefix="per-function-") as tmp:
        def verdicts(index, symbol):
            source = pathlib.Path(tmp) / f"ref_{index}{suffix}"
            source.write_text(single_source(symbol))
            obj = source.with_suffix(".o")
            if run(compiler + options + ["-c", str(source), "-o", str(obj)]).returncode != 0:
                return False, False
            links = []
            for with_libs in (True, False):
                argv = (compiler + flag_words + [str(obj)] + (lib_words if with_libs else [])
                        + ["-o", str(source.with_suffix(f".{int(with_libs)}.out"))])
                links.append(run(argv).returncode == 0)
            return tuple(links)

        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            outcomes = list(pool.map(lambda t: verdicts(*t), enumerate(symbols)))
    return CheckResult(missing=[s for s, (with_ok, _) in zip(symbols, outcomes) if not with_ok],
                       uncertain=[s for s, (_, without_ok) in zip(symbols, outcomes) if without_ok],
                       links=2 * len(symbols))
