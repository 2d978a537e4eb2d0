"""The steps of a library-wrapping working directory (scorep-libwrap-init
writes it; its Makefile calls these through `scorep-libwrap <step>`).

generate: libwrap.i -> header front-end -> which functions (the library's
          headers, the user's filter, ellipsis mapping, the symbol check)
          -> wrapper sources of both modes, each compiled once as a check
          (a wrapper that does not compile is left out, with the reason)
check:    which listed functions the library does not export, and which link
          without it
Every file a step writes is written under a temporary name and renamed into
place, so a failed step leaves the previous state, never half a file.
"""
import difflib
import json
import os
import pathlib
import re
import shlex
import subprocess
from dataclasses import dataclass, field

from ..errors import SpecError

LINE_MARKER = re.compile(r'^# (\d+) "((?:[^"\\]|\\.)*)"((?: \d)*)\s*$')


class LibwrapError(SpecError):
    """A step cannot go on: the message says what to fix."""


@dataclass
class Settings:
    name: str
    display_name: str
    language: str                      # "c" or "c++"
    cc: str
    cppflags: list
    ldflags: list
    libs: list
    workdir: pathlib.Path
    filter_tool: str = "scorep-filter"
    ellipsis_mapping: dict = field(default_factory=dict)   # f -> its va_list variant
    variadic_is_void: set = field(default_factory=set)
    dependency_dirs: list = field(default_factory=list)   # whose functions are wrapped too
    address_compared: list = field(default_factory=list)   # never wrapped (header.scan_header)
    header: str = "libwrap.h"

    @property
    def preprocessed(self):
        return self.workdir / "libwrap.i"

    def path(self, suffix):
        return self.workdir / f"{self.name}{suffix}"


def write_atomically(path, text):
    path = pathlib.Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def parse_mapping(words, what="LIBWRAP_ELLIPSIS_MAPPING_SYMBOLS"):
    """`printf:vprintf QString::asprintf:QString::vasprintf` -> dict: the
    single colon separates, a double colon belongs to a C++ name."""
    mapping = {}
    for word in words:
        parts = re.split(r"(?<!:):(?!:)", word)
        if len(parts) != 2 or not all(parts) or any(p.startswith(":") or p.endswith(":") for p in parts):
            raise LibwrapError(f"{what}: '{word}' is not of the form function:va_list_function "
                               f"(e.g. printf:vprintf, or for C++ QString::asprintf:QString::vasprintf)")
        mapping[parts[0]] = parts[1]
    return mapping


# ---- which headers are the library's ----------------------------------------

def include_tree(preprocessed, header_name):
    """The files the header includes directly, and every file seen, from the
    line markers `# N "file" flags` (flag 1: entering a file, 2: back in it)."""
    direct, seen, stack = [], set(), []
    with open(preprocessed, errors="replace") as f:
        for line in f:
            if not line.startswith("# "):
                continue
            m = LINE_MARKER.match(line)
            if not m:
                continue
            name = bytes(m.group(2), "utf-8").decode("unicode_escape")
            flags = m.group(3).split()
            if "1" in flags:
                parent = stack[-1] if stack else None
                if parent is not None and os.path.basename(parent) == header_name \
                        and len(stack) == 1 and name not in direct:
                    direct.append(name)
                stack.append(name)
            elif "2" in flags:
                while len(stack) > 1 and stack[-1] != name:
                    stack.pop()
                stack[-1:] = [name]
            elif not stack:
                stack.append(name)
            elif len(stack) == 1:
                stack[0] = name        # <built-in>, <command-line>, then the header itself
            seen.add(name)
    return [os.path.realpath(d) for d in direct], seen


def system_include_dirs(cc, language):
    """The compiler's own search list (`cc -E -v`): headers there are not the
    library's unless libwrap.h includes them by name."""
    proc = subprocess.run([cc, "-x", language, "-E", "-v", "-"], input="", capture_output=True,
                          text=True)
    dirs, inside = [], False
    for line in proc.stderr.splitlines():
        if line.startswith("#include <...> search starts here") or \
                line.startswith('#include "..." search starts here'):
            inside = True
            continue
        if line.startswith("End of search list"):
            break
        if inside and line.startswith(" "):
            dirs.append(os.path.realpath(line.split(" (")[0].strip()))
    return dirs


def under(path, directory):
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def library_header_rule(settings, direct, system):
    """Which declaring files count as the library's: the headers libwrap.h
    includes and those beside or below them, unless they sit directly in a
    system include directory (/usr/include), where the neighbours are other
    libraries'; and the headers under LIBWRAP_DEPENDENCY_DIRS. Not every
    header under the -I directories: one -I directory often holds a
    dependency's headers too (Qt's holds QtCore beside QtGui, an MPI
    library's beside HDF5's), and a dependency's functions are wrapped only
    when the user asks for them."""
    homes = sorted({os.path.dirname(d) for d in direct if os.path.dirname(d) not in system})
    extra = [os.path.realpath(settings.workdir / d) for d in settings.dependency_dirs]
    for given, path in zip(settings.dependency_dirs, extra):
        if not os.path.exists(path):
            raise LibwrapError(f"LIBWRAP_DEPENDENCY_DIRS: '{given}' does not exist (name the directory "
                               f"of the dependency's headers, e.g. one make lists under 'other headers')")

    def rule(f):
        return f in direct or any(under(f, h) for h in homes + extra)
    text = "the headers libwrap.h includes" + (
        f" and those beside them in {' '.join(homes)}" if homes else "")
    if extra:
        text += f", and the headers under LIBWRAP_DEPENDENCY_DIRS {' '.join(extra)}"
    return rule, text


# ---- the user's filter and parameters ---------------------------------------

def apply_filter(settings, procedures, filter_path):
    """The user's Score-P filter file, applied by the core's own parser
    (scorep-filter), so generation and run time agree."""
    if not filter_path.exists() or not procedures:
        return procedures, []
    lines = "".join(f"{p.name}\t{p.attributes.get('file') or ''}\t{p.attributes['symbol']}\n"
                    for p in procedures)
    proc = subprocess.run([settings.filter_tool, str(filter_path)], input=lines,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise LibwrapError((proc.stderr.strip() or f"scorep-filter failed ({proc.returncode})")
                           + "\n  (fix the filter file and run make again)")
    verdicts = proc.stdout.splitlines()
    if len(verdicts) != len(procedures):
        raise LibwrapError(f"scorep-filter answered {len(verdicts)} lines for {len(procedures)}")
    kept = [p for p, v in zip(procedures, verdicts) if v.startswith("+")]
    dropped = [p for p, v in zip(procedures, verdicts) if not v.startswith("+")]
    return kept, dropped


PARAM_TASKS = {"integer": "param_int", "enum": "param_int", "bool": "param_int",
               "floating": "param_float", "string": "param_string"}


def parameter_rules(params_path, procedures):
    """N.params: `function: arg[, arg ...]` per line ('#' comments). A C++
    function may be named with its full region name or its qualified name
    without the parameter list (all overloads). Returns catalogue rules."""
    if not params_path.exists():
        return []
    rules = []
    for number, raw in enumerate(params_path.read_text().splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        where = f"{params_path.name}: line {number}"
        function, sep, args = line.rpartition(":")
        function = function.strip()
        if not sep or not function or not args.strip():
            raise LibwrapError(f"{where}: expected 'function: argument[, argument ...]', got '{raw}'")
        matches = [p for p in procedures if p.name == function
                   or p.name.startswith(function + "(")]
        if not matches:
            raise LibwrapError(f"{where}: unknown function '{function}' (not among the wrapped "
                               f"functions; see {params_path.stem}.wrap)")
        for p in matches:
            uses = []
            for arg in (a.strip() for a in args.split(",")):
                param = p.parameter(arg)
                if param is None:
                    known = ", ".join(q.name for q in p.parameters) or "none"
                    raise LibwrapError(f"{where}: function '{p.name}' has no argument '{arg}' "
                                       f"(its arguments: {known})")
                task = PARAM_TASKS.get(param.kind)
                if task is None:
                    raise LibwrapError(f"{where}: argument '{arg}' of '{p.name}' has type "
                                       f"'{param.c_type}' ({param.kind}); only integer, "
                                       f"enum, bool, floating and string arguments can be recorded")
                uses.append({"task": task, "args": {"value": arg}})
            rules.append({"match": re.escape(p.name), "group": "LIBWRAP", "tasks": uses})
    return rules


# ---- ellipsis and `()` -------------------------------------------------------

def qualified_name(proc):
    """A function's name with its namespaces and classes (QString::asprintf);
    a C function's plain name."""
    return (proc.attributes.get("qualified_name") or proc.attributes.get("source_name")
            or proc.name)


def va_list_names(name):
    """The names a va_list variant of `name` goes by: a `v` or `V` inserted
    (vprintf, gzvprintf, sqlite3_vmprintf, xmlStrVPrintf, QString::vasprintf)
    or `_v`/`_va`/`_valist` appended."""
    names = [name[:i] + v + name[i:] for i in range(len(name) + 1) for v in ("v", "V")]
    return names + [name + suffix for suffix in ("_v", "_va", "_valist")]


class VariadicPairing:
    """Which va_list function each ellipsis function f(fmt, ...) is forwarded
    to. Functions are named with their scope (QString::asprintf) and a
    partner is looked for in the function's own scope: a plain `vasprintf`
    from a QString member means QString::vasprintf, never glibc's. Found by
    name, a partner must be declared in the library's own headers, take the
    same parameters plus one va_list and return the same type; named in
    LIBWRAP_ELLIPSIS_MAPPING_SYMBOLS (qualified or not), it must be declared
    in the library's headers too (forwarding to another library's function
    would skip the library's own code)."""
    WHAT = "LIBWRAP_ELLIPSIS_MAPPING_SYMBOLS"

    def __init__(self, procedures, is_library_header, mapping):
        self.by_qualified = {}
        for p in procedures:
            self.by_qualified.setdefault(qualified_name(p), []).append(p)
        self.is_library_header = is_library_header
        self.mapping = mapping
        self.check_names(procedures)

    def check_names(self, procedures):
        known = set(self.by_qualified) | {p.attributes.get("source_name") or p.name for p in procedures}
        for name, target in self.mapping.items():
            for word in (name, target):
                if word not in known:
                    close = difflib.get_close_matches(word, sorted(known), n=3)
                    hint = f" (did you mean {' or '.join(close)}?)" if close else ""
                    raise LibwrapError(f"{self.WHAT}: '{word}' (in '{name}:{target}') is not a "
                                       f"function the headers declare{hint}")

    @staticmethod
    def fits(proc, v):
        named = [p.c_type for p in proc.parameters]
        types = [p.c_type for p in v.parameters]
        return (len(types) == len(named) + 1 and types[:-1] == named
                and "va_list" in types[-1].replace("__gnuc_va_list", "va_list")
                and v.attributes.get("return_type") == proc.attributes.get("return_type")
                and v.attributes.get("this_type") == proc.attributes.get("this_type")
                and not v.attributes.get("variadic"))

    def ours(self, v):
        file = v.attributes.get("file")
        return bool(file) and self.is_library_header(os.path.realpath(file))

    def partner(self, proc):
        """(the va_list variant, None) or (None, why not)."""
        source = proc.attributes.get("source_name") or proc.name
        full = qualified_name(proc)
        scope = full[:len(full) - len(source)] if full.endswith(source) else ""
        named = self.mapping.get(full, self.mapping.get(source))
        if named is not None:
            looked = [scope + named, named] if scope and "::" not in named else [named]
            found = next((self.by_qualified[n] for n in looked if n in self.by_qualified), [])
            fitting = [v for v in found if self.fits(proc, v)]
            if not fitting:
                return None, (f"{self.WHAT}: '{named}' does not fit: a va_list variant takes the "
                              f"function's own parameters plus one va_list and returns the same type "
                              f"(looked for {' and '.join(looked)})")
            own = [v for v in fitting if self.ours(v)]
            if not own:
                # forwarding to another library's function would skip the
                # library's own code: the program would not do the same
                return None, (f"{self.WHAT}: '{named}' is declared in {fitting[0].attributes.get('file')}, "
                              f"not in the library's headers: a va_list variant must be the library's own")
            return own[0], None
        if not proc.parameters:
            return None, "ellipsis without a named parameter"
        candidates = {}
        for name in va_list_names(source):
            for v in self.by_qualified.get(scope + name, []):
                if self.fits(proc, v) and self.ours(v):
                    candidates.setdefault(v.attributes["symbol"], v)
        if len(candidates) == 1:
            return next(iter(candidates.values())), None
        if candidates:
            return None, (f"variable arguments and several va_list variants fit: "
                          f"{', '.join(qualified_name(v) for v in candidates.values())} (name one in "
                          f"{self.WHAT} as {full}:va_list_function)")
        return None, (f"variable arguments and no va_list variant found (name one in "
                      f"{self.WHAT} as {full}:va_list_function)")


def check_void_names(names, procedures):
    declared = {p.attributes.get("source_name") or p.name for p in procedures}
    unknown = sorted(set(names) - declared)
    if unknown:
        raise LibwrapError(f"LIBWRAP_VARIADIC_IS_VOID_SYMBOLS: {', '.join(unknown)}: not a function "
                           f"the headers declare")


# ---- the account of what became of each declared function ----------------------

def reason_kind(reason):
    """The kind of a not-wrappable reason, for counting: the reason up to its
    details ("cannot be written at global scope: parameter 1: ..." -> "cannot
    be written at global scope")."""
    if reason.startswith("its symbol "):
        return "its symbol is another function's"
    return reason.split(":", 1)[0].split(" (", 1)[0].strip()


@dataclass
class Tally:
    """What became of each function the library's headers declare. Every
    number the tool reports comes from here, so they add up: declared =
    wrapped + not wrappable (by reason) + not exported + filtered + not
    compiling."""
    name: str
    rule_text: str
    declared: int = 0
    wrapped: int = 0
    not_wrappable: dict = field(default_factory=dict)   # reason kind -> count
    not_exported: int = 0
    filtered: int = 0
    not_compiling: int = 0
    other_dirs: dict = field(default_factory=dict)      # directory -> functions declared there

    def count_not_wrappable(self, reason):
        kind = reason_kind(reason)
        self.not_wrappable[kind] = self.not_wrappable.get(kind, 0) + 1

    def accounted(self):
        return (self.wrapped + sum(self.not_wrappable.values()) + self.not_exported
                + self.filtered + self.not_compiling)

    def parts(self):
        nw = sum(self.not_wrappable.values())
        kinds = "; ".join(f"{n} {kind}" for kind, n in
                          sorted(self.not_wrappable.items(), key=lambda item: (-item[1], item[0])))
        return [f"{self.wrapped} wrapped ({self.name}.wrap)",
                f"{nw} not wrappable" + (f" ({kinds}; not_wrappable.txt)" if nw else ""),
                f"{self.not_exported} not exported by the library (missing.filter)",
                f"{self.filtered} excluded by {self.name}.filter",
                f"{self.not_compiling} do not compile (not_compiled.txt)"]

    def line(self):
        return f"{self.declared} functions declared in {self.rule_text}: " + ", ".join(self.parts())

    def others_line(self):
        """The functions of other headers libwrap.h reaches, by directory
        (the C library's, and a dependency's, which the user may want too)."""
        if not self.other_dirs:
            return None
        named = sorted(((n, d) for d, n in self.other_dirs.items()), key=lambda item: (-item[0], item[1]))
        shown = [f"{n} in {d}" for n, d in named[:4]]
        if len(named) > 4:
            shown.append(f"{sum(n for n, _ in named[4:])} in {len(named) - 4} more directories")
        return (f"{sum(self.other_dirs.values())} more functions are declared in other headers "
                f"libwrap.h includes (not the library's, not counted): {', '.join(shown)}; to wrap "
                f"a dependency's functions too, name its directory in LIBWRAP_DEPENDENCY_DIRS "
                f"(Makefile) or include its headers from libwrap.h")

    def nothing_wrapped(self, settings, direct):
        """The error when no function is left: the account and, for each
        cause, how to go on."""
        lines = [f"no function to wrap: {self.line()}"]
        if not direct:
            lines.append(f"{settings.header} includes no header: include the library's headers there")
        elif not self.declared:
            lines.append(f"the headers {settings.header} includes declare no function of their own "
                         f"({' '.join(direct)}): include the library's own headers there, or name "
                         f"the directory of the headers to wrap in LIBWRAP_DEPENDENCY_DIRS")
        if self.not_exported:
            lines.append(f"{self.not_exported} not exported: the libraries in LIBWRAP_LIBS "
                         f"({' '.join(settings.libs)}) do not define them (missing.filter lists them): "
                         f"name the library these headers belong to in LIBWRAP_LIBS")
        if self.not_wrappable:
            hints = ["not_wrappable.txt gives each one's reason; inline, static and template "
                     "functions are compiled into the calling program: there is no library symbol "
                     "to wrap"]
            if any("variable arguments" in kind for kind in self.not_wrappable):
                hints.append("an ellipsis function needs its va_list variant: name it in "
                             "LIBWRAP_ELLIPSIS_MAPPING_SYMBOLS")
            if any("prototype" in kind for kind in self.not_wrappable):
                hints.append("a C `f()` that takes no arguments goes into LIBWRAP_VARIADIC_IS_VOID_SYMBOLS")
            lines.append(f"{sum(self.not_wrappable.values())} not wrappable: " + "; ".join(hints))
        if self.filtered:
            lines.append(f"{self.filtered} excluded by {settings.name}.filter: check its rules")
        if self.not_compiling:
            lines.append(f"{self.not_compiling} do not compile: not_compiled.txt gives the compiler's reasons")
        others = self.others_line()
        if others:
            lines.append(others)
        return "\n  ".join(lines)


# ---- generate ------------------------------------------------------------------

def sonames(library_files):
    """SONAMEs of the target libraries' shared files, for run-time resolution."""
    names = []
    for lib in library_files:
        path = getattr(lib, "shared_path", None)
        if not path:
            continue
        proc = subprocess.run(["readelf", "-d", str(path)], capture_output=True, text=True)
        m = re.search(r"\(SONAME\)\s+Library soname: \[([^\]]+)\]", proc.stdout)
        names.append(m.group(1) if m else os.path.basename(str(path)))
    return names


def source_suffix(settings):
    return ".cc" if settings.language == "c++" else ".c"


WRAPPER_MARK = re.compile(r"^/\* wrapper (\d+): ")
ERROR_LINE = re.compile(r"^[^:\s]+:(\d+):(?:\d+:)? (?:fatal )?error: (.*)$")


def compile_errors(settings, sources, scorep_include):
    """Checks the generated sources of one mode, compiled together as one
    translation unit (the front end only: the Makefile compiles them for
    real); returns [(source, line, message)] of their errors. Sources that
    passed with the same command, texts and headers are not checked again
    (.scorep_check/checked_*: a change of LIBWRAP_LIBS reruns generate)."""
    import hashlib
    unit = "".join(f'#include "{source.name}"\n' for source in sources)
    cmd = [settings.cc, "-x", settings.language, "-fsyntax-only", "-fPIC",
           f"-I{scorep_include}", *settings.cppflags, "-"]
    key = hashlib.sha256("\0".join([shlex.join(cmd), unit, *(s.read_text() for s in sources)]).encode())
    for path in (settings.preprocessed, pathlib.Path(scorep_include) / "scorep_wrapgen" / "libwrap.h"):
        key.update(path.read_bytes() if path.exists() else b"-")
    stamp = settings.workdir / ".scorep_check" / f"checked_{sources[0].stem}"
    if stamp.exists() and stamp.read_text() == key.hexdigest():
        return []
    stamp.unlink(missing_ok=True)
    proc = subprocess.run(cmd, cwd=settings.workdir, input=unit, capture_output=True, text=True)
    by_name = {source.name: source for source in sources}
    errors = []
    for line in proc.stderr.splitlines():
        m = ERROR_LINE.match(line)
        source = by_name.get(line.split(":", 1)[0])
        if m and source is not None:
            errors.append((source, int(m.group(1)), m.group(2)))
    if proc.returncode != 0 and not errors:
        raise LibwrapError(f"compiling {', '.join(by_name)} failed:\n{proc.stderr.strip()}\n  command: "
                           f"{shlex.join(cmd)} (input: {unit.strip()})")
    if proc.returncode == 0:
        stamp.parent.mkdir(exist_ok=True)
        stamp.write_text(key.hexdigest())
    return errors


def wrapper_of_line(text, line):
    current = None
    for number, content in enumerate(text.splitlines(), 1):
        if number > line:
            break
        m = WRAPPER_MARK.match(content)
        if m:
            current = int(m.group(1))
    return current


def render_compiling(settings, procedures, library, va_symbols, rules, scorep_include, say):
    """Both modes' sources; wrappers that do not compile are left out (with
    the compiler's reason) and the rest rendered again, until all compile."""
    from .backend import MODES, render_wrapper_parts, wrappers_per_file, write_sources
    per_file = wrappers_per_file()
    left_out = {}
    for attempt in range(8):
        texts, bad = {}, {}
        for mode in MODES:
            texts[mode] = render_wrapper_parts(procedures, library, settings.language, mode,
                                               header=settings.header, va_symbols=va_symbols,
                                               extra_rules=rules, per_file=per_file)
        sources = write_sources(settings.workdir, settings.name, source_suffix(settings), texts)
        for mode in MODES:
            for source, line, message in compile_errors(settings, sources[mode], scorep_include):
                index = wrapper_of_line(source.read_text(), line)
                if index is None:
                    raise LibwrapError(f"{source.name}:{line}: {message}\n  (an error outside any "
                                       f"wrapper: does {settings.header} compile with the flags?)")
                bad.setdefault(index, f"{mode}: {message}")
        if not bad:
            return procedures, texts, left_out
        for index, reason in bad.items():
            left_out[procedures[index].name] = reason
        procedures = [p for i, p in enumerate(procedures) if i not in bad]
        say(f"scorep-libwrap: {len(bad)} wrapper(s) do not compile and are left out "
            f"(not_compiled.txt says why)")
    raise LibwrapError("wrappers still do not compile after 8 rounds; see not_compiled.txt")


def filter_file(title, symbols):
    body = "".join(f"  EXCLUDE MANGLED {s}\n" for s in symbols)
    return (f"# {title}\nSCOREP_REGION_NAMES_BEGIN\n{body}SCOREP_REGION_NAMES_END\n")


def scan_once(settings, clang_args):
    """scan_header's result, kept in .scorep_check/scan.pickle with a digest of
    what it depends on (libwrap.i, the language, the flags, the functions
    declared address-compared, the sources and rules of libwrap's modules, the front-end's
    among them): generate runs again when LIBWRAP_LIBS or the filter change,
    which the scan does not read, and then does not scan again."""
    import hashlib
    import pickle
    from . import header
    package = pathlib.Path(header.__file__).parent
    own = [p.read_bytes() for p in sorted(package.glob("*.py")) + sorted(package.glob("*.json"))]
    digest = hashlib.sha256()
    for part in (settings.preprocessed.read_bytes(), settings.language.encode(),
                 "\0".join(clang_args).encode(), "\0".join(settings.address_compared).encode(),
                 *own):
        digest.update(hashlib.sha256(part).digest())
    cache = settings.workdir / ".scorep_check" / "scan.pickle"
    try:
        with open(cache, "rb") as f:
            key, scan = pickle.load(f)
        if key == digest.hexdigest():
            return scan
    except Exception:          # no cache, or one an older generator wrote: scan
        pass
    scan = header.scan_header(settings.preprocessed, language=settings.language, clang_args=clang_args,
                              address_compared=settings.address_compared)
    cache.parent.mkdir(exist_ok=True)
    tmp = cache.with_name(cache.name + ".tmp")
    with open(tmp, "wb") as f:
        pickle.dump((digest.hexdigest(), scan), f)
    os.replace(tmp, cache)
    return scan


def nothing_wrapped(settings, tally, direct):
    """No function left: an error (a wrapper of nothing is never what the
    user meant), with the account of why; no stale function list stays."""
    settings.path(".wrap").unlink(missing_ok=True)
    raise LibwrapError(tally.nothing_wrapped(settings, direct))


def generate(settings, scorep_include, say=print):
    from . import link_check
    from .library_search import find_libraries
    from .backend import write_if_changed
    if not settings.preprocessed.exists():
        raise LibwrapError(f"{settings.preprocessed}: missing (make creates it from {settings.header})")
    std = [w for w in settings.cppflags if w.startswith("-std=")]
    scan = scan_once(settings, std)
    everything = scan.procedures
    if scan.warnings:
        write_atomically(settings.workdir / "scan_warnings.txt", "".join(f"{w}\n" for w in scan.warnings))
        say(f"scorep-libwrap: libclang: {len(scan.warnings)} warning(s) outside the library's "
            f"declarations (scan_warnings.txt)")
    check_void_names(settings.variadic_is_void, everything)
    direct, _ = include_tree(settings.preprocessed, settings.header)
    system = system_include_dirs(settings.cc, settings.language)
    is_library_header, rule_text = library_header_rule(settings, direct, system)
    tally = Tally(settings.name, rule_text)

    def ours(file):
        if file and is_library_header(os.path.realpath(file)):
            return True
        where = os.path.dirname(os.path.realpath(file)) if file else "(no file)"
        tally.other_dirs[where] = tally.other_dirs.get(where, 0) + 1
        return False
    candidates = [p for p in everything if ours(p.attributes.get("file"))]
    # what the library's own headers declare but cannot be wrapped (the rest of
    # libwrap.i, libc's or libstdc++'s, is not the user's concern)
    not_wrappable = [(name, reason) for (name, reason), file in zip(scan.skipped, scan.skipped_files)
                     if ours(file)]
    tally.declared = len(candidates) + len(not_wrappable)
    pairing = VariadicPairing(everything, is_library_header, settings.ellipsis_mapping)
    va_symbols, wrappable = {}, []
    for p in candidates:
        source = p.attributes.get("source_name") or p.name
        if p.attributes.get("variadic"):
            target, why = pairing.partner(p)
            if target is None:
                not_wrappable.append((p.name, why))
                continue
            va_symbols[p.attributes["symbol"]] = target.attributes["symbol"]
        elif p.attributes.get("no_prototype") and source not in settings.variadic_is_void:
            not_wrappable.append((p.name, "declared without a prototype, `f()`: if it takes no "
                                  "arguments, add it to LIBWRAP_VARIADIC_IS_VOID_SYMBOLS"))
            continue
        wrappable.append(p)
    kept, filtered = apply_filter(settings, wrappable, settings.path(".filter"))
    tally.filtered = len(filtered)
    check_dir = settings.workdir / ".scorep_check"
    check_dir.mkdir(exist_ok=True)
    wanted = sorted({p.attributes["symbol"] for p in kept} | set(va_symbols.values()))
    result = link_check.check_symbols(wanted, settings.cc, settings.ldflags, settings.libs,
                                        check_dir, language=settings.language)
    missing = set(result.missing)
    final = []
    for p in kept:
        symbol = p.attributes["symbol"]
        if symbol in missing:
            continue
        if va_symbols.get(symbol) in missing:
            not_wrappable.append((p.name, f"va_list variant not exported: {va_symbols[symbol]}"))
            continue
        final.append(p)
    missing_listed = sorted(p.attributes["symbol"] for p in kept if p.attributes["symbol"] in missing)
    tally.not_exported = len(missing_listed)
    for _, reason in not_wrappable:
        tally.count_not_wrappable(reason)
    write_atomically(settings.workdir / "missing.filter", filter_file(
        "functions the headers declare but the library does not export (left out by make)",
        missing_listed))
    write_atomically(settings.workdir / "not_wrappable.txt", "".join(
        f"{name}: {reason}\n" for name, reason in not_wrappable))
    if not final:
        nothing_wrapped(settings, tally, direct)
    rules = parameter_rules(settings.path(".params"), final)
    library_files = find_libraries(settings.libs, settings.ldflags, settings.cc)
    library = {"name": settings.name, "display_name": settings.display_name,
               "sonames": sonames(library_files)}
    final, texts, left_out = render_compiling(settings, final, library, va_symbols, rules,
                                              scorep_include, say)
    write_atomically(settings.workdir / "not_compiled.txt", "".join(
        f"{name}: {reason}\n" for name, reason in sorted(left_out.items())))
    tally.not_compiling, tally.wrapped = len(left_out), len(final)
    if tally.accounted() != tally.declared:        # a function lost or counted twice: a bug here
        raise LibwrapError(f"internal error: the account does not add up ({tally.accounted()} of "
                           f"{tally.declared}): {tally.line()}")
    if not final:
        nothing_wrapped(settings, tally, direct)
    write_atomically(settings.path(".wrap"), "".join(
        f"{p.attributes['symbol']}\t{p.name}\n" for p in final))
    write_if_changed(settings.path(".linktime.flags"), "".join(
        f"-Wl,--wrap={p.attributes['symbol']}\n" for p in final))
    shared = [lib.shared_path for lib in library_files if lib.shared_path]
    static = [lib.static_path for lib in library_files if lib.static_path]
    metadata = {
        "format": "scorep-wrapgen-libwrap", "version": 1,
        "name": settings.name, "display_name": settings.display_name, "language": settings.language,
        "cppflags": settings.cppflags, "ldflags": settings.ldflags, "libs": settings.libs,
        "sonames": library["sonames"], "functions": len(final),
        # what became of each function the library's headers declare (make's summary)
        "account": {"declared": tally.declared, "wrapped": tally.wrapped,
                    "not_wrappable": dict(sorted(tally.not_wrappable.items())),
                    "not_exported": tally.not_exported, "filtered": tally.filtered,
                    "not_compiling": tally.not_compiling},
        "target_shared": [str(s) for s in shared], "target_static": [str(s) for s in static],
        # run-time wrappers need the library's shared version to find the originals
        "runtime": bool(shared),
    }
    write_atomically(settings.path(".libwrap.json"), json.dumps(metadata, indent=2) + "\n")
    # what the shared wrapper libraries link: the target library, so that it
    # is loaded wherever a wrapper is (a static-only one cannot go into a .so)
    target_libs = shlex.join(["-Wl,--no-as-needed", *settings.ldflags, *settings.libs]) if shared else ""
    write_if_changed(settings.path(".target-libs"), target_libs + "\n")
    say(f"scorep-libwrap: {tally.line()}")
    others = tally.others_line()
    if others:
        say(f"scorep-libwrap: {others}")
    return final


# ---- check -------------------------------------------------------------------------

def check(settings, say=print):
    """`make check`: the listed functions the library does not export
    (missing.filter) and those that link without it (uncertain.filter)."""
    from . import link_check
    wrap_list = settings.path(".wrap")
    if not wrap_list.exists():
        raise LibwrapError(f"{wrap_list.name}: missing (run make first)")
    wrapped = [line.split("\t")[0] for line in wrap_list.read_text().splitlines() if line.strip()]
    # what make already left out as missing is checked again too
    previous = settings.workdir / "missing.filter"
    left_out = []
    if previous.exists():
        left_out = [line.split()[-1] for line in previous.read_text().splitlines()
                    if line.strip().startswith("EXCLUDE MANGLED")]
    listed = wrapped + left_out
    listed = sorted(set(listed))
    check_dir = settings.workdir / ".scorep_check"
    check_dir.mkdir(exist_ok=True)
    result = link_check.check_symbols(listed, settings.cc, settings.ldflags, settings.libs,
                                        check_dir, language=settings.language)
    write_atomically(settings.workdir / "missing.filter", filter_file(
        "functions the headers declare but the library does not export", sorted(result.missing)))
    write_atomically(settings.workdir / "uncertain.filter", filter_file(
        "functions that link without the library (libc or another library provides them): "
        "their wrappers may measure someone else's calls", sorted(result.uncertain)))
    say(f"scorep-libwrap check: {len(listed)} functions checked ({len(set(wrapped))} wrapped, "
        f"{len(set(left_out) - set(wrapped))} more in missing.filter) with {result.links} link(s): "
        f"{len(result.missing)} not exported by the library (missing.filter), "
        f"{len(result.uncertain)} link without it (uncertain.filter)")
    for title, names in (("missing", result.missing), ("uncertain", result.uncertain)):
        for name in sorted(names)[:20]:
            say(f"  {title}: {name}")
        if len(names) > 20:
            say(f"  ... {len(names) - 20} more {title} (see {title}.filter)")
    return result
