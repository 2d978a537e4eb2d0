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
import functools
import os
import pathlib
import re
import shlex
import subprocess
import tempfile
import threading

from ..errors import SpecError

# A symbol as the check accepts it: an assembler name, optionally with a version
# (`name@VERSION` a specific version, `name@@VERSION` the default one).
SYMBOL = re.compile(r"^([A-Za-z_.][A-Za-z0-9_.$]*)(?:(@@?)([A-Za-z0-9_.]+))?$")
# What the reference objects are called: how the linker's messages are pinned to them.
STEM = "scorep_libwrap_refs"
# Symbols per reference object.
CHUNK = 2500
LANGUAGES = {"c": ".c", "c++": ".cc", "cxx": ".cc", "cpp": ".cc"}
# Driver options that also select the target when compiling the reference object.
TARGET_OPTIONS = ("-m", "--sysroot", "-target", "--target", "-B", "-isysroot")


class SymbolCheckError(SpecError):
    """A target library that cannot be found, a compiler or flags that cannot
    link a trivial program, a symbol name the check cannot reference."""


@dataclasses.dataclass
class LibraryFile:
    """One target library as the linker finds it.

    name         the library name (`z` for `-lz` and for `/x/libz.a`)
    shared_path  the shared object (`libz.so` or, when that is a GNU ld text
                 script like libc.so, the first shared object the script names)
    static_path  the archive (`libz.a`)
    flag         the `--libs` item as given (`-lz`, `/x/libz.a`)
    linked_path  the file the linker takes for that item (first directory with
                 either file, the shared one preferred; the archive under -static
                 or -Bstatic)
    script       the linker script the shared name turned out to be, if any
    script_inputs  every file that script names (shared objects and archives)
    """
    name: str
    shared_path: str = None
    static_path: str = None
    flag: str = None
    linked_path: str = None
    script: str = None
    script_inputs: tuple = ()

    @property
    def linked_files(self):
        """The files whose symbols the linker sees for this item."""
        if self.linked_path and self.script and self.linked_path == self.shared_path:
            return list(self.script_inputs)
        return [self.linked_path] if self.linked_path else []


@dataclasses.dataclass
class CheckResult:
    missing: list = dataclasses.field(default_factory=list)     # fail to link with the target libraries
    uncertain: list = dataclasses.field(default_factory=list)   # link without them
    links: int = 0                                              # link commands run
    notes: list = dataclasses.field(default_factory=list)
    libraries: list = dataclasses.field(default_factory=list)   # LibraryFile of each target library


# ---------------------------------------------------------------- flags and files

def _words(flags):
    if flags is None:
        return []
    if isinstance(flags, str):
        return shlex.split(flags)
    return [str(f) for f in flags]


def _cc_words(cc):
    words = _words(cc)
    if not words:
        raise SymbolCheckError("no compiler given")
    return words


def _run(argv, **kwargs):
    env = dict(os.environ, LC_ALL="C", LANG="C", LANGUAGE="C")
    try:
        return subprocess.run(argv, capture_output=True, text=True, errors="replace",
                              env=env, **kwargs)
    except FileNotFoundError as exc:
        raise SymbolCheckError(f"compiler or tool '{argv[0]}' not found: {exc}") from None
    except PermissionError as exc:
        raise SymbolCheckError(f"compiler or tool '{argv[0]}' cannot be run: {exc}") from None


def _tail(text, lines=20):
    text = (text or "").strip().splitlines()
    if len(text) > lines:
        text = text[:lines] + [f"... ({len(text) - lines} more lines)"]
    return "\n".join(text)


def _library_dirs(words, what):
    """The -L directories of a flag list, in order; a missing one is an error."""
    dirs = []
    i = 0
    while i < len(words):
        word = words[i]
        found = []
        if word == "-L" and i + 1 < len(words):
            found, i = [words[i + 1]], i + 1
        elif word.startswith("-L"):
            found = [word[2:]]
        elif word.startswith("-Wl,"):
            parts = word[4:].split(",")
            for j, part in enumerate(parts):
                if part.startswith("-L") and len(part) > 2:
                    found.append(part[2:])
                elif part in ("-L", "--library-path") and j + 1 < len(parts):
                    found.append(parts[j + 1])
                elif part.startswith("--library-path="):
                    found.append(part.split("=", 1)[1])
        for d in found:
            if not os.path.isdir(d):
                problem = "does not exist" if not os.path.exists(d) else "is not a directory"
                raise SymbolCheckError(f"{what}: '-L{d}': the library directory {problem}")
            dirs.append(d)
        i += 1
    return dirs


@functools.lru_cache(maxsize=None)
def _compiler_dirs(cc):
    """The compiler's own library search path, then the linker's default one."""
    cc = list(cc)
    proc = _run(cc + ["-print-search-dirs"])
    if proc.returncode != 0:
        raise SymbolCheckError(f"compiler '{shlex.join(cc)}' fails on -print-search-dirs "
                               f"(exit {proc.returncode}):\n{_tail(proc.stderr + proc.stdout)}")
    dirs = []
    for line in proc.stdout.splitlines():
        if line.startswith("libraries:"):
            dirs += [d for d in line.split(":", 1)[1].strip().lstrip("=").split(":") if d]
    ld = _run(cc + ["-print-prog-name=ld"]).stdout.strip() or "ld"
    try:
        script = subprocess.run([ld, "--verbose"], capture_output=True, text=True,
                                errors="replace").stdout
    except OSError:
        script = ""
    dirs += [d.lstrip("=") for d in re.findall(r'SEARCH_DIR\("([^"]*)"\)', script)]
    seen, ordered = set(), []
    for d in dirs:
        if not os.path.isdir(d):
            continue
        short = os.path.normpath(d)     # '/usr/lib/gcc/x/12/../../../y' -> '/usr/lib/y'
        if short != d and os.path.isdir(short) and os.path.samefile(short, d):
            d = short
        key = os.path.realpath(d)
        if key not in seen:
            seen.add(key)
            ordered.append(d)
    return tuple(ordered)


def _kind(path):
    """'elf', 'archive', 'script' (text) or None (unreadable)."""
    try:
        with open(path, "rb") as f:
            head = f.read(8)
    except OSError:
        return None
    if head.startswith(b"\x7fELF"):
        return "elf"
    if head.startswith(b"!<arch>") or head.startswith(b"!<thin>"):
        return "archive"
    return "script"


def _script_inputs(path, dirs):
    """The files a GNU ld text script (INPUT/GROUP, with AS_NEEDED) names."""
    try:
        text = pathlib.Path(path).read_text(errors="replace")
    except OSError:
        return []
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    tokens = re.findall(r"[()]|[^\s(),]+", text)
    inputs, depth, inside = [], 0, False
    for i, tok in enumerate(tokens):
        if tok in ("GROUP", "INPUT") and i + 1 < len(tokens) and tokens[i + 1] == "(" and depth == 0:
            inside = True
            continue
        if not inside:
            continue
        if tok == "(":
            depth += 1
        elif tok == ")":
            depth -= 1
            if depth == 0:
                inside = False
        elif tok != "AS_NEEDED":
            inputs.append(tok)
    here = os.path.dirname(path)
    found = []
    for item in inputs:
        if item.startswith("-l"):
            lib = _search(item[2:], dirs, static=False)[0]
            if lib:
                found.append(lib)
        elif os.path.isabs(item.lstrip("=")):
            if os.path.exists(item.lstrip("=")):
                found.append(item.lstrip("="))
        else:
            for d in [here] + list(dirs):
                if os.path.exists(os.path.join(d, item)):
                    found.append(os.path.join(d, item))
                    break
    return found


def _search(name, dirs, static):
    """(linked, shared, static) paths for -lNAME (-l:FILE when name starts with ':')."""
    if name.startswith(":"):
        for d in dirs:
            p = os.path.join(d, name[1:])
            if os.path.isfile(p):
                shared = p if not p.endswith(".a") else None
                return p, shared, (p if shared is None else None)
        return None, None, None
    linked = shared = archive = None
    for d in dirs:
        so, a = os.path.join(d, f"lib{name}.so"), os.path.join(d, f"lib{name}.a")
        so_ok, a_ok = os.path.isfile(so), os.path.isfile(a)
        if so_ok and shared is None:
            shared = so
        if a_ok and archive is None:
            archive = a
        if linked is None:
            if static and a_ok:
                linked = a
            elif not static and (so_ok or a_ok):
                linked = so if so_ok else a
    return linked, shared, archive


def _library_name(path):
    base = os.path.basename(path)
    m = re.match(r"^(?:lib)?(.+?)(?:\.so(?:\.[0-9.]+)?|\.a)?$", base)
    return m.group(1) if m else base


def _resolve_script(lib, dirs):
    """When the shared file is a linker script, follow it."""
    if lib.shared_path and _kind(lib.shared_path) == "script":
        script = lib.shared_path
        inputs = _script_inputs(script, dirs)
        shared = [p for p in inputs if _kind(p) == "elf"]
        lib.script = script
        lib.script_inputs = tuple(inputs)
        lib.shared_path = shared[0] if shared else None
        if lib.linked_path == script:
            lib.linked_path = lib.shared_path
    return lib


def _linker_mode(word, static):
    """Whether -l finds archives only after `word`: the linker's -Bstatic /
    -Bdynamic (and their aliases) passed with -Wl, switch it."""
    if word.startswith("-Wl,"):
        for part in word[4:].split(","):
            if part in ("-Bstatic", "-dn", "-non_shared", "-static"):
                static = True
            elif part in ("-Bdynamic", "-dy", "-call_shared"):
                static = False
    return static


def find_libraries(libs, ldflags, cc):
    """Resolve each `-lNAME` of libs as the linker would (the -L directories of
    ldflags and libs, then the compiler's search directories, then the linker's
    defaults) and each literal library path; a library found nowhere, a -L
    directory that does not exist or a missing path raises SymbolCheckError."""
    lib_words, flag_words = _words(libs), _words(ldflags)
    dirs = _library_dirs(flag_words, "--ldflags") + _library_dirs(lib_words, "--libs")
    all_dirs = None
    static = any(w in ("-static", "--static") for w in flag_words + lib_words)
    found = []
    for word in flag_words:
        static = _linker_mode(word, static)
    i = 0
    while i < len(lib_words):
        word = lib_words[i]
        static = _linker_mode(word, static)
        name = None
        if word == "-l" and i + 1 < len(lib_words):
            name, flag = lib_words[i + 1], f"-l{lib_words[i + 1]}"
            i += 1
        elif word.startswith("-l") and len(word) > 2:
            name, flag = word[2:], word
        elif not word.startswith("-") and ("/" in word or re.search(r"\.(a|so(\.[0-9.]+)?)$", word)):
            if not os.path.isfile(word):
                raise SymbolCheckError(f"--libs: '{word}': no such library file")
            kind = _kind(word)
            lib = LibraryFile(_library_name(word), flag=word, linked_path=word)
            if kind == "archive":
                lib.static_path = word
            elif kind == "script" or ".so" in os.path.basename(word):
                lib.shared_path = word          # (an object file is neither)
            if all_dirs is None:
                all_dirs = tuple(dirs) + _compiler_dirs(tuple(_cc_words(cc)))
            found.append(_resolve_script(lib, all_dirs))
        if name is not None:
            if all_dirs is None:
                all_dirs = tuple(dirs) + _compiler_dirs(tuple(_cc_words(cc)))
            linked, shared, archive = _search(name, all_dirs, static)
            if linked is None:
                wanted = name[1:] if name.startswith(":") else (
                    f"lib{name}.a" if static else f"lib{name}.so or lib{name}.a")
                where = ", ".join(dirs) if dirs else "no -L directory given"
                raise SymbolCheckError(
                    f"--libs: '{flag}': library not found: no {wanted} in the -L directories "
                    f"({where}) nor in the compiler's and linker's search path")
            lib = LibraryFile(name.lstrip(":") if name.startswith(":") else name, shared, archive,
                              flag=flag, linked_path=linked)
            if name.startswith(":"):
                lib.name = _library_name(name[1:])
            found.append(_resolve_script(lib, all_dirs))
        i += 1
    return found


# ---------------------------------------------------------------- symbol tables

# nm letters of defined global symbols (lower case: i ifunc, u unique global).
_GLOBAL_DEFINED = set("ABCDGRSTVWiu")


def exported_symbols(path):
    """Defined global and weak symbols (any type) of a shared object's dynamic
    symbol table, of every member of an archive, or of every file a GNU ld text
    script names; version suffixes (@V, @@V) stripped. One nm per file."""
    path = str(path)
    kind = _kind(path)
    if kind is None:
        raise SymbolCheckError(f"'{path}': cannot read the library file")
    if kind == "script":
        symbols = set()
        for item in _script_inputs(path, ()):
            if _kind(item) != "script":
                symbols |= exported_symbols(item)
        return symbols
    argv = ["nm", "-D", "--defined-only", path] if kind == "elf" else \
        ["nm", "-g", "--defined-only", path]
    proc = _run(argv)
    if proc.returncode != 0 and not proc.stdout:
        raise SymbolCheckError(f"'{path}': nm cannot read the symbol table:\n{_tail(proc.stderr)}")
    symbols = set()
    for line in proc.stdout.splitlines():
        fields = line.split()
        if len(fields) >= 2 and len(fields[-2]) == 1 and fields[-2] in _GLOBAL_DEFINED:
            symbols.add(fields[-1].split("@", 1)[0])
    return symbols


# ---------------------------------------------------------------- the reference objects

def _symbol_parts(symbol):
    m = SYMBOL.match(symbol)
    if not m:
        raise SymbolCheckError(f"symbol '{symbol}': not a name the check can reference "
                               "(letters, digits, _ . $, optionally @VERSION or @@VERSION)",
                               entry=symbol)
    return m.group(1), m.group(3)


def _reported_name(symbol):
    """How the linker names the reference: name@VERSION (a default-version request
    `@@` is a reference to that version)."""
    base, version = _symbol_parts(symbol)
    return f"{base}@{version}" if version else base


def _declaration(index, symbol, as_function):
    base, version = _symbol_parts(symbol)
    local = f"scorep_libwrap_sym_{index}"
    decl = f"extern void {local}(void)" if as_function else f"extern char {local}[]"
    if version is None:
        return [f'{decl} __asm__("{base}");']
    label = f"scorep_libwrap_versioned_{index}"
    return [f'{decl} __asm__("{label}");',
            f'__asm__(".symver {label}, {base}@{version}");']


def _batch_source(symbols, part=0):
    """A translation unit referencing the symbols: an array of their addresses
    (and main in part 0)."""
    lines = ["/* generated by generator/libwrap/symbols.py: references the symbols to check */"]
    for i, s in enumerate(symbols):
        lines += _declaration(i, s, as_function=False)
    lines.append(f"void *const __scorep_libwrap_check_refs_{part}[] __attribute__((used)) = {{")
    lines += [f"    (void *)scorep_libwrap_sym_{i}," for i in range(len(symbols))]
    lines += ["    0", "};"]
    if part == 0:
        lines.append("int main(void) { return 0; }")
    return "\n".join(lines) + "\n"


def _single_source(symbol):
    """The reference method's tiny program: a call of the one function."""
    lines = _declaration(0, symbol, as_function=True)
    lines += ["int main(void) { scorep_libwrap_sym_0(); return 0; }", ""]
    return "\n".join(lines)


def _suffix(language):
    try:
        return LANGUAGES[language.lower()]
    except (KeyError, AttributeError):
        raise SymbolCheckError(f"language '{language}': not one of c, c++") from None


def _compile_options(flag_words):
    """Options of the link flags that select the target (-m32, --sysroot, ...)."""
    return [w for w in flag_words if w.startswith(TARGET_OPTIONS) and not w.startswith("-Wl,")]


# ---------------------------------------------------------------- linker output

_UNDEFINED = [
    # GNU ld; gold (adds ", version 'V'" for a versioned reference)
    re.compile(r"undefined reference to [`']([^'`]+)'(?:, version '([^']+)')?"),
    # GNU ld: defined only in a shared object the command line does not name (a
    # dependency of a target library); ld stops after this one ("DSO missing")
    re.compile(r"undefined reference to symbol [`']([^'`]+)'()"),
    re.compile(r"undefined symbol: (\S+)()"),                 # lld, mold
]
_BENIGN = [
    re.compile(r"^collect2: error: ld returned \d+ exit status"),
    re.compile(r"(clang|clang\+\+|gcc|g\+\+|cc|c\+\+)[^:]*: error: linker command failed"),
    re.compile(r"more undefined references to "),
    re.compile(r": in function [`']"),
    re.compile(r"(^|: )warning: "),
    re.compile(r"^\s*$"),
]


_MAP_MEMBER = re.compile(r"^(\S+\))(?:\s+(\S.*?) \(([^()]+)\))?\s*$")
_MAP_REFERRER = re.compile(r"^\s+(\S.*?) \(([^()]+)\)\s*$")
_ARCHIVE_MEMBER = re.compile(r"[^\s:()`']+\([^()\s]+\)")     # /x/libfoo.a(m.o)
_LLD_MEMBER = re.compile(r"(\S+):\([^()]*\) in archive (\S+)")  # lld: m.o:(f) in archive /x/libfoo.a


def _archive_members(map_path):
    """member -> (referring file, symbol) from the 'Archive member included ...'
    section of a GNU ld or gold link map: which reference pulled each member in."""
    try:
        with open(map_path, errors="replace") as f:
            lines = f.read(1 << 24).splitlines()
    except (OSError, TypeError):
        return {}
    members, inside, pending = {}, False, None
    for line in lines:
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


def _why_extract(path):
    """member -> (referring file, symbol) from lld's --why-extract file."""
    try:
        with open(path, errors="replace") as f:
            lines = f.read(1 << 24).splitlines()
    except (OSError, TypeError):
        return {}
    members = {}
    for line in lines[1:]:
        fields = line.split("\t")
        if len(fields) == 3:
            members.setdefault(fields[1], (fields[0], fields[2]))
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


class _LinkOutcome:
    def __init__(self, ok, failed=(), via_members=(), unattributed=(), output="",
                 error_limit=False):
        self.ok = ok                          # the link succeeded
        self.failed = set(failed)             # our symbols that fail
        self.via_members = set(via_members)   # ... of them because of an archive member they pull in
        self.unattributed = list(unattributed)  # error lines pinned to none of our symbols
        self.output = output
        self.error_limit = error_limit        # lld stopped after its error limit


def _analyse(proc, names, stem, members=None):
    """Which of our references the failed link names undefined, and which error
    lines name none of them. names maps the linker's spelling to our symbols;
    members is the link map's archive members (an undefined reference inside a
    member counts against the symbol of ours that pulled the member in)."""
    output = (proc.stderr or "") + (proc.stdout or "")
    if proc.returncode == 0:
        return _LinkOutcome(True, output=output)
    members = members or {}
    lines = output.splitlines()
    failed, via_members, unattributed = set(), set(), []
    error_limit = any("too many errors emitted" in line for line in lines)
    header = ""       # GNU ld: "ld: FILE: in function `f':" precedes the lines it locates
    i = 0
    while i < len(lines):
        line = lines[i]
        context = [line]
        j = i + 1
        while j < len(lines) and lines[j].lstrip().startswith(">>>"):
            context.append(lines[j])
            j += 1
        i = j
        if re.search(r": in function [`']", line):
            header = line
            continue
        for pattern in _UNDEFINED:
            m = pattern.search(line)
            if m:
                break
        if not m:
            if not line.lstrip().startswith(">>>") and not any(b.search(line) for b in _BENIGN):
                unattributed.append(line)
            continue
        where = line[:m.start()] + " ".join(context[1:])
        if not re.match(r"^\S*ld\S*: ", line) and not _ARCHIVE_MEMBER.search(where):
            where = header + " " + where      # "src.c:(.text+0x11): undefined reference ..."
        named = f"{m.group(1)}@{m.group(2)}" if m.group(2) else m.group(1)
        ours = names.get(named)
        if not ours and "to symbol" in m.group(0):      # names the definition's version
            ours = names.get(named.split("@", 1)[0])
        if ours and stem in where:
            failed.update(ours)
            continue
        found = _ARCHIVE_MEMBER.findall(where)
        found += [f"{archive}({member})" for member, archive in _LLD_MEMBER.findall(where)]
        roots = {_root_symbol(member, members, stem) for member in found}
        pinned = [s for root in roots if root is not None for s in names.get(root, [])]
        if pinned:
            failed.update(pinned)
            via_members.update(pinned)
        else:
            unattributed.append("\n".join(context))
    if not failed and not unattributed:
        unattributed.append(f"the link failed (exit {proc.returncode}) without naming an error")
    return _LinkOutcome(False, failed, via_members, unattributed, output, error_limit)


# ---------------------------------------------------------------- check_symbols

class _Linker:
    """Compiles reference objects and links them, counting links."""

    def __init__(self, cc, ldflags, libs, workdir, language):
        self.cc = _cc_words(cc)
        self.ldflags = _words(ldflags)
        self.libs = _words(libs)
        self.workdir = pathlib.Path(workdir)
        self.suffix = _suffix(language)
        self.compile_options = _compile_options(self.ldflags + self.libs)
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
            source.write_text(_batch_source(chunks[part], part))
            proc = _run(self.cc + self.compile_options + ["-c", str(source), "-o", str(obj)])
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
                    f"{source}:\n{_tail(proc.stderr + proc.stdout)}")
        return [obj for obj, _, _ in done]

    def _check_trivial_compile(self):
        source = self._path("trivial", self.suffix)
        source.write_text("int main(void) { return 0; }\n")
        proc = _run(self.cc + self.compile_options + ["-c", str(source), "-o",
                                                      str(source.with_suffix(".o"))])
        if proc.returncode != 0:
            raise SymbolCheckError(f"compiler '{shlex.join(self.cc)}' cannot compile a trivial "
                                   f"program (exit {proc.returncode}):\n"
                                   f"{_tail(proc.stderr + proc.stdout)}")

    def link_command(self, obj, with_libs, out, lld):
        extra = self.extra + [f"-Wl,-Map={out}.map"]
        if lld:
            extra += ["-Wl,--error-limit=0", f"-Wl,--why-extract={out}.why"]
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
        return _run(self.link_command(obj, with_libs, out, lld)), str(out), lld, obj

    def check_trivial(self, with_libs):
        """Raise when even a program referencing nothing does not link."""
        if with_libs in self.trivial_checked:
            return
        source = self._path("trivial", self.suffix)
        source.write_text("int main(void) { return 0; }\n")
        obj = source.with_suffix(".o")
        proc = _run(self.cc + self.compile_options + ["-c", str(source), "-o", str(obj)])
        if proc.returncode != 0:
            raise SymbolCheckError(f"compiler '{shlex.join(self.cc)}' cannot compile a trivial "
                                   f"program (exit {proc.returncode}):\n"
                                   f"{_tail(proc.stderr + proc.stdout)}")
        proc = self.link(obj, with_libs)[0]
        if proc.returncode != 0:
            flags = shlex.join(self.ldflags + (self.libs if with_libs else []))
            raise SymbolCheckError(
                f"compiler '{shlex.join(self.cc)}' cannot link a trivial program with the flags "
                f"'{flags}' (exit {proc.returncode}); the linker says:\n"
                f"{_tail(proc.stderr + proc.stdout)}")
        self.trivial_checked.add(with_libs)


def _outcome(linked, symbols):
    proc, out = linked[:2]
    names = {}
    for s in symbols:
        names.setdefault(_reported_name(s), []).append(s)
    members = {}
    if proc.returncode != 0:
        members = _archive_members(f"{out}.map")
        for member, why in _why_extract(f"{out}.why").items():
            members.setdefault(member, why)
    return _analyse(proc, names, STEM, members)


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
    lld = outcome.error_limit or "ld.lld: " in outcome.output
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
                         f"them:\n{_tail(chr(10).join(outcome.unattributed), 6)}")
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
            _symbol_parts(s)
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
    unexpected = [s for s in symbols if s in missing and _symbol_parts(s)[1] is None
                  and s in exported]
    if unexpected:
        result.notes.append(
            f"{len(unexpected)} symbol(s) in the symbol table of {', '.join(files)} do not link "
            f"with it (hidden version, or a definition that needs something else): "
            + ", ".join(unexpected[:10]) + (" ..." if len(unexpected) > 10 else ""))
    elsewhere = [s for s in symbols if s not in missing and s not in uncertain
                 and _symbol_parts(s)[0] not in exported]
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
        cases = [False, True] if _words(libs) else [False]
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


# ---------------------------------------------------------------- the reference method

def check_per_function(symbols, cc, ldflags, libs, workdir, language="c", jobs=1):
    """The slow reference: for each symbol a tiny program calling it, compiled
    once and linked with the target libraries (fails -> missing) and without
    them (succeeds -> uncertain). jobs: how many symbols at a time."""
    symbols = _unique(symbols)
    cc_words, flag_words, lib_words = _cc_words(cc), _words(ldflags), _words(libs)
    suffix = _suffix(language)
    options = _compile_options(flag_words + lib_words)
    pathlib.Path(workdir).mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=workdir, prefix="per-function-") as tmp:
        def verdicts(index, symbol):
            source = pathlib.Path(tmp) / f"ref_{index}{suffix}"
            source.write_text(_single_source(symbol))
            obj = source.with_suffix(".o")
            if _run(cc_words + options + ["-c", str(source), "-o", str(obj)]).returncode != 0:
                return False, False
            links = []
            for with_libs in (True, False):
                argv = (cc_words + flag_words + [str(obj)] + (lib_words if with_libs else [])
                        + ["-o", str(source.with_suffix(f".{int(with_libs)}.out"))])
                links.append(_run(argv).returncode == 0)
            return tuple(links)

        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            outcomes = list(pool.map(lambda t: verdicts(*t), enumerate(symbols)))
    return CheckResult(missing=[s for s, (with_ok, _) in zip(symbols, outcomes) if not with_ok],
                       uncertain=[s for s, (_, without_ok) in zip(symbols, outcomes) if without_ok],
                       links=2 * len(symbols))


# ---------------------------------------------------------------- static dependencies
# A static archive does not say which libraries it needs (a shared library names
# them in DT_NEEDED): linking libxml2.a alone leaves zlib, lzma and ICU undefined.
# make installcheck's static mode asks, in this order: the pkg-config package
# that provides the library (`pkg-config --static --libs`), then the shared
# version's DT_NEEDED entries; a link that still fails is explained by
# missing_libraries (which undefined symbols, which library defines them).

def _pc_dirs():
    """pkg-config's search path: PKG_CONFIG_PATH, then PKG_CONFIG_LIBDIR or its default."""
    dirs = [d for d in os.environ.get("PKG_CONFIG_PATH", "").split(":") if d]
    libdir = os.environ.get("PKG_CONFIG_LIBDIR")
    if libdir is None:
        proc = _run(["pkg-config", "--variable", "pc_path", "pkg-config"])
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
                libdir = _run(["pkg-config", "--variable=libdir", package]).stdout.strip()
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
    """The DT_NEEDED sonames of a shared library, the C library's own left out
    (the compiler driver links those)."""
    proc = _run(["readelf", "-dW", str(shared_path)])
    names = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", proc.stdout)
    return [n for n in names if not re.match(r"^(libc\.so|ld-linux|ld64\.so|libgcc_s\.so)", n)]


def static_dependencies(lib, shared_path=None):
    """What to link after the archive of `lib` (a LibraryFile, or its name)
    for its own undefined symbols: (flags, where they come from)."""
    name = lib.name if isinstance(lib, LibraryFile) else lib
    static = lib.static_path if isinstance(lib, LibraryFile) else None
    shared = (lib.shared_path if isinstance(lib, LibraryFile) else None) or shared_path
    package = pkg_config_package(name, static or shared)
    problem = None
    if package:
        proc = _run(["pkg-config", "--static", "--libs", package])
        if proc.returncode == 0:
            flags = [w for w in shlex.split(proc.stdout) if w != f"-l{name}"]
            return flags, f"pkg-config --static --libs {package}"
        problem = f"pkg-config --static --libs {package} failed: {_tail(proc.stderr, 3)}"
    if shared:
        needed = needed_libraries(shared)
        source = f"the libraries {os.path.basename(shared)} needs (DT_NEEDED)"
        return [f"-l:{n}" for n in needed], source + (f"; {problem}" if problem else "")
    return [], problem or "no pkg-config package and no shared version name its dependencies"


def undefined_references(link_output):
    """The symbols a failed link names as undefined (GNU ld, gold, mold, lld)."""
    found = re.findall(r"undefined reference to [`']([^'`]+)'", link_output)
    found += re.findall(r"undefined symbol: (\S+)", link_output)
    return list(dict.fromkeys(s.split("@")[0] for s in found))


def missing_libraries(symbols, ldflags, cc, jobs=2):
    """Which linkable library (a lib*.so the link's -L and default directories
    hold, so -lNAME finds it) defines each symbol: ({'-lNAME': [symbols]},
    [symbols no library defines]). Reads the smallest symbol tables first and
    stops when every symbol has a library."""
    wanted = set(symbols)
    dirs = list(_library_dirs(_words(ldflags), "--ldflags")) + list(_compiler_dirs(tuple(_cc_words(cc))))
    candidates, names = [], set()
    for d in dirs:
        for path in sorted(pathlib.Path(d).glob("lib*.so")):
            lib_name = path.name[3:-3]
            if lib_name not in names and _kind(str(path)) in ("elf", "script"):
                names.add(lib_name)
                candidates.append(path)
    candidates.sort(key=lambda p: p.stat().st_size)
    found = {}

    def tables(batch):
        """{path: exported symbols}: one nm for a batch of shared objects (the
        process start, not the reading, is what costs), scripts one by one."""
        out = {p: set() for p in batch}
        elves = [p for p in batch if _kind(str(p)) == "elf"]
        for p in batch:
            if p not in elves:
                out[p] = exported_symbols(p)
        if elves:
            listing = _run(["nm", "-D", "--defined-only", "-A", *map(str, elves)]).stdout
            by_name = {str(p): p for p in elves}
            for m in re.finditer(r"^(.*):[0-9a-fA-F]*\s+(\S)\s+(\S+)$", listing, re.M):
                path = by_name.get(m.group(1))
                if path and m.group(2) in _GLOBAL_DEFINED:
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
