"""System adapters (POSIX and ISO C I/O, ...): the C library's own headers
through the library header front-end (generator/libwrap/header.py) -> Procedure
objects, a system catalogue (tasks/posix_io.json, tasks/isoc_io.json, snippets
tasks/io_*.c.j2) and the one library wrapper skeleton
(generator/libwrap/backend.py) -> generated/<output>/, the way
generator/caf_backend.py makes the CAF adapter from libcaf.h.

    generated/io/posix/wrap_linktime.c  __wrap_<symbol> (ld --wrap): `scorep --io=posix`
    generated/io/posix/wrap_runtime.c   the symbols themselves, LD_PRELOAD-able:
                                        `scorep-exec --io=posix`
    generated/io/posix/wrap.flags       the linker options, one -Wl,--wrap=SYMBOL a line
    generated/io/posix/wrapped.txt      the wrapped symbols
    generated/io/isoc/...               the same for --io=isoc

A system header declares far more than a catalogue measures: the catalogue's
`functions` name the ones wrapped (each must be declared, each must match a
rule). What the header does not say the way a wrapper needs it is corrected by
data in the catalogue, not by code: `parameters` (readable names for glibc's
reserved `__fd`, `__buf`, ...; their number is checked), `ellipsis` (the one
argument an ellipsis carries, for functions without a va_list variant, such as
open's mode) and `fortified` (the checking variants a program built with
_FORTIFY_SOURCE calls, __read_chk for read, which the headers declare only
under the flags given there: each is wrapped under its own symbol, its region
named after the function the program's source calls) and `va_list` (the
va_list variant an ellipsis function forwards to: fprintf through vfprintf).
The catalogue names symbols (what a program's call reaches: __isoc99_fscanf
for fscanf under glibc's headers); the regions are named after the declared
function.

A library outside the compiler's include path (Open MPI's shmem.h,
tasks/shmem.json) is found through the header's `search` directories or the
variable its `env` names; a library with hundreds of typed variants names its
functions by a pattern (`functions_match`: every declared function whose
name matches, less the catalogue's `exclude` entries, written with their
reason to excluded.txt).
"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import tempfile
from dataclasses import replace

from .errors import SpecError
from .model import Parameter
from .tasks import TASKS_DIR

# the system catalogues regenerate renders, in order
CATALOGUES = (TASKS_DIR / "posix_io.json", TASKS_DIR / "isoc_io.json", TASKS_DIR / "pthread.json",
              TASKS_DIR / "memory.json", TASKS_DIR / "omp.json", TASKS_DIR / "shmem.json")
# the hand-written header the wrappers include; a catalogue names its own
# with "support_header" (tasks/pthread.json: scorep_thread_adapter.h)
SUPPORT_HEADER = "scorep_io_adapter.h"


def load_catalogue(path):
    try:
        return json.loads(pathlib.Path(path).read_text())
    except json.JSONDecodeError as e:
        raise SpecError(f"not valid JSON: {e.msg} at line {e.lineno}", file=path)
    except OSError as e:
        raise SpecError(f"cannot read it: {e.strerror}", file=path)


def compiler():
    cc = shutil.which("gcc") or shutil.which("cc")
    if not cc:
        raise SpecError("no C compiler (gcc) to preprocess the system headers")
    return cc


def include_dirs(cc):
    """The compiler's system include directories, longest first (so that the
    multiarch directory is stripped before /usr/include)."""
    proc = subprocess.run([cc, "-xc", "-E", "-v", "-"], input="", capture_output=True, text=True)
    dirs, inside = [], False
    for line in proc.stderr.splitlines():
        if line.startswith("#include <...> search starts here"):
            inside = True
        elif line.startswith("End of search list"):
            break
        elif inside:
            dirs.append(str(pathlib.Path(line.strip()).resolve()))
    return sorted(dirs, key=len, reverse=True)


def header_name(file, dirs):
    """A declaring file as a program includes it (`sys/uio.h`, not
    /usr/include/x86_64-linux-gnu/sys/uio.h): the output does not depend on
    where this machine keeps its headers."""
    path = str(pathlib.Path(file).resolve())
    for d in dirs:
        if path.startswith(d + "/"):
            return path[len(d) + 1:]
    return pathlib.Path(file).name


def ellipsis_parameter(template, declaration, where, catalogue_path):
    """The named parameter an `ellipsis` entry gives ("mode_t mode"), shaped
    like the function's last named one."""
    m = re.fullmatch(r"\s*(.*?[\w*])\s*\b(\w+)\s*", declaration)
    if not m or not m.group(1).strip():
        raise SpecError(f"'parameter' must be a C declaration 'TYPE NAME', not '{declaration}'",
                        file=catalogue_path, entry=where)
    c_type, name = m.group(1).strip(), m.group(2)
    kind = "pointer" if c_type.endswith("*") else "integer"
    return Parameter(name=name, kind=kind, c_type=c_type, c_declarator=f"{c_type} {{name}}",
                     direction=getattr(template, "direction", "in"))


def declared_functions(cc, includes, flags, catalogue_path, extra=""):
    """{symbol: Procedure} of what the system headers declare under flags
    (and the C declarations extra, after them)."""
    from .libwrap.header import scan_header
    with tempfile.TemporaryDirectory(prefix="scorep-sysio-") as tmp:
        source = pathlib.Path(tmp) / "system.h"
        source.write_text("".join(f"#include <{h}>\n" for h in includes) + extra)
        out = pathlib.Path(tmp) / "system.i"
        proc = subprocess.run([cc, "-E", *flags, str(source), "-o", str(out)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise SpecError(f"the preprocessor fails on {', '.join(includes)} ({' '.join(flags)}): "
                            f"{proc.stderr.strip()}", file=catalogue_path)
        result = scan_header(out, language="c")
    return {p.attributes["symbol"]: p for p in result.procedures}


def check_declared(wanted, declared, includes, flags, catalogue_path):
    missing = [f for f in wanted if f not in declared]
    if missing:
        raise SpecError(f"{', '.join(missing)}: not declared by {', '.join(includes)} with "
                        f"{' '.join(flags) or 'no flags'}; drop the name or add the header that "
                        f"declares it", file=catalogue_path)


def by_symbol(raw, cc, includes, flags, catalogue_path):
    """The catalogue's `by_symbol` functions: ones no C header declares (C++'s
    operator new, _Znwm), each given by its linker symbol, a C declaration of
    it and its region name. [(symbol, region, declaration)]; the declared
    file is the entry's `header`."""
    spec = raw.get("by_symbol")
    if not spec:
        return []
    if not spec.get("why") or not spec.get("header") or not spec.get("functions"):
        raise SpecError("'by_symbol' needs 'header', 'functions' and 'why'", file=catalogue_path)
    for symbol, entry in spec["functions"].items():
        if not entry.get("region") or not entry.get("declaration"):
            raise SpecError("a by_symbol entry needs 'region' and 'declaration'", file=catalogue_path,
                            entry=symbol)
    extra = "".join(f"{entry['declaration']};\n" for entry in spec["functions"].values())
    declared = declared_functions(cc, includes, flags, catalogue_path, extra)
    result = []
    for symbol, entry in spec["functions"].items():
        if symbol not in declared:
            raise SpecError(f"its declaration '{entry['declaration']}' declares no function '{symbol}'",
                            file=catalogue_path, entry=symbol)
        p = declared[symbol]
        result.append((symbol, entry["region"],
                       replace(p, attributes=dict(p.attributes, file=spec["header"]))))
    return result


def header_dir(spec, catalogue_path):
    """The directory of a header outside the compiler's include path: the
    file the variable `env` names, else the first `search` directory that
    has the header; None for a catalogue without `search`."""
    if not spec.get("search"):
        return None
    first = spec["includes"][0]
    env = spec.get("env")
    if env and os.environ.get(env):
        path = pathlib.Path(os.environ[env])
        if not path.is_file():
            raise SpecError(f"{env} names {path}, which does not exist", file=catalogue_path)
        return str(path.resolve().parent)
    for d in spec["search"]:
        if (pathlib.Path(d) / first).is_file():
            return str(pathlib.Path(d).resolve())
    raise SpecError(f"{first} not found (looked in {', '.join(spec['search'])}): "
                    f"{spec.get('missing', 'install the library that provides it')}"
                    + (f", or name it with {env}=/path/to/{first}" if env else ""), file=catalogue_path)


def matching_functions(raw, declared, catalogue_path):
    """`functions_match`: the declared functions whose name matches, in the
    header's order, less the `exclude` entries; (names, [(name, why)])."""
    try:
        pattern = re.compile(raw["functions_match"] + "$")
    except re.error as e:
        raise SpecError(f"bad 'functions_match': {e}", file=catalogue_path)
    exclusions = []
    for entry in raw.get("exclude", []):
        if not entry.get("why"):
            raise SpecError("an exclusion needs a 'why'", file=catalogue_path, entry=entry.get("match"))
        exclusions.append((re.compile(entry["match"] + "$"), entry["why"]))
    wrapped, excluded = [], []
    for name in declared:
        if not pattern.match(name):
            continue
        why = next((w for r, w in exclusions if r.match(name)), None)
        (excluded.append((name, why)) if why else wrapped.append(name))
    return wrapped, excluded


def scan_system(raw, catalogue_path):
    """The catalogue's functions as Procedures, in the catalogue's order
    (then its fortified variants), with its parameter names and ellipsis
    parameters."""
    spec = raw.get("header", {})
    includes = spec.get("includes") or []
    if not includes:
        raise SpecError("'header' needs 'includes' (the system headers to scan)", file=catalogue_path)
    cc = compiler()
    dirs = include_dirs(cc)
    flags = [f"-D{d}" for d in spec.get("defines", [])]
    extra_dir = header_dir(spec, catalogue_path)
    if extra_dir:
        flags.append(f"-I{extra_dir}")
        dirs = sorted(dirs + [extra_dir], key=len, reverse=True)
    declared = declared_functions(cc, includes, flags, catalogue_path)
    if raw.get("functions_match"):
        if raw.get("functions"):
            raise SpecError("both 'functions' and 'functions_match': name them one way",
                            file=catalogue_path)
        functions, raw["_excluded"] = matching_functions(raw, declared, catalogue_path)
    else:
        functions = raw.get("functions") or []
    if not functions:
        raise SpecError("'functions' names no function to wrap", file=catalogue_path)
    check_declared(functions, declared, includes, flags, catalogue_path)
    # (symbol, region name, declaration): the region is named after the
    # function the source calls (fscanf, which glibc's headers redirect to
    # the symbol __isoc99_fscanf)
    wrapped = [(f, declared[f].name, declared[f]) for f in functions]
    fortified = raw.get("fortified")
    if fortified:
        if not fortified.get("why") or not fortified.get("flags") or not fortified.get("functions"):
            raise SpecError("'fortified' needs 'flags', 'functions' and 'why'", file=catalogue_path)
        fortified_flags = flags + list(fortified["flags"])
        variants = declared_functions(cc, includes, fortified_flags, catalogue_path)
        check_declared(fortified["functions"], variants, includes, fortified_flags, catalogue_path)
        for symbol, region in fortified["functions"].items():
            if region not in {name for _, name, _ in wrapped}:
                raise SpecError(f"fortified variant of '{region}', which 'functions' does not name",
                                file=catalogue_path, entry=symbol)
            # one region with the function's: the same name, file and symbol
            wrapped.append((symbol, region, replace(variants[symbol], attributes=dict(
                variants[symbol].attributes, region_symbol=region))))
    wrapped += by_symbol(raw, cc, includes, flags, catalogue_path)
    names = raw.get("parameters", {})
    unknown = sorted(set(names) - {symbol for symbol, _, _ in wrapped})
    if unknown:
        raise SpecError(f"parameter names for function(s) not wrapped: {', '.join(unknown)}",
                        file=catalogue_path)
    va_lists = va_list_variants(raw, wrapped, cc, includes, flags, (fortified or {}).get("flags", []),
                                catalogue_path)
    ellipses = []
    for pattern, entry in raw.get("ellipsis", {}).items():
        if not entry.get("why") or not entry.get("parameter"):
            raise SpecError("an ellipsis entry needs 'parameter' and 'why'", file=catalogue_path,
                            entry=pattern)
        ellipses.append((re.compile(pattern + "$"), pattern, entry))
    procedures = []
    for name, region, p in wrapped:
        if name in va_lists and not p.attributes.get("variadic"):
            raise SpecError(f"in 'va_list', but declared without an ellipsis", file=catalogue_path, entry=name)
        params = p.parameters
        if name in names:
            wanted = names[name]
            if len(wanted) != len(params):
                raise SpecError(f"{len(wanted)} parameter names for {len(params)} parameters "
                                f"({', '.join(q.c_type for q in params)})",
                                file=catalogue_path, entry=name)
            params = tuple(replace(q, name=n) for q, n in zip(params, wanted))
        attributes = dict(p.attributes, file=header_name(p.attributes.get("file") or "", dirs))
        ellipsis = next(((pat, e) for r, pat, e in ellipses if r.match(name)), None)
        if attributes.get("variadic") and name in va_lists:
            if ellipsis is not None:
                raise SpecError(f"both in 'va_list' and matched by ellipsis entry '{ellipsis[0]}'",
                                file=catalogue_path, entry=name)
        elif attributes.get("variadic"):
            if ellipsis is None:
                raise SpecError("declared with an ellipsis: name its va_list variant in 'va_list', "
                                "or say in 'ellipsis' what it carries (or leave the function out)",
                                file=catalogue_path, entry=name)
            params = params + (ellipsis_parameter(params[-1] if params else None, ellipsis[1]["parameter"],
                                                  ellipsis[0], catalogue_path),)
            attributes["variadic"] = False
        elif ellipsis is not None:
            raise SpecError(f"matched by ellipsis entry '{ellipsis[0]}', but declared without an "
                            f"ellipsis", file=catalogue_path, entry=name)
        if raw.get("region_file"):
            attributes["region_file"] = raw["region_file"]
        real = raw.get("real_functions", {}).get(name)
        if real:
            attributes["real_function"] = real
        procedures.append(replace(p, name=region, parameters=params, attributes=attributes,
                                  origin=attributes["file"]))
    return procedures, va_lists


def va_list_variants(raw, wrapped, cc, includes, flags, fortified_flags, catalogue_path):
    """{symbol: its va_list variant's symbol} of the catalogue's `va_list`
    entry: an ellipsis function the wrapper forwards through the variant
    (fprintf through vfprintf). Each variant must be declared, under the
    catalogue's flags (vfprintf, which the fortified flags turn into an
    inline definition) or its fortified ones (__vfprintf_chk)."""
    entry = raw.get("va_list")
    if not entry:
        return {}
    if not entry.get("why") or not entry.get("functions"):
        raise SpecError("'va_list' needs 'functions' and 'why'", file=catalogue_path)
    symbols = {symbol for symbol, _, _ in wrapped}
    unknown = sorted(set(entry["functions"]) - symbols)
    if unknown:
        raise SpecError(f"'va_list' names function(s) not wrapped: {', '.join(unknown)}", file=catalogue_path)
    declared = declared_functions(cc, includes, flags, catalogue_path)
    if fortified_flags:
        declared = dict(declared_functions(cc, includes, flags + list(fortified_flags), catalogue_path),
                        **declared)
    check_declared(list(entry["functions"].values()), declared, includes, flags, catalogue_path)
    return dict(entry["functions"])


def render_system_adapter(output, write, catalogue_path):
    """Writes one system adapter's files under output/<catalogue output>
    through write(path, text); returns the wrapped symbols."""
    from .libwrap.backend import render_wrappers
    raw = load_catalogue(catalogue_path)
    for key in ("output", "library", "paradigm"):
        if key not in raw:
            raise SpecError(f"missing top-level field '{key}'", file=catalogue_path)
    library = dict(raw["library"], written_by="`make regenerate`")
    procedures, va_symbols = scan_system(raw, catalogue_path)
    out = pathlib.Path(output) / raw["output"]
    # the by_symbol functions in files of their own: a link-time wrapper
    # object is pulled from the static library only when the program calls
    # one of its functions, and a C program has no operator new to call
    # (the wrapper's __real__Znwm would need libstdc++ in its link)
    special = set(raw.get("by_symbol", {}).get("functions", {}))
    files = (("", [p for p in procedures if p.attributes["symbol"] not in special]),
             ("_by_symbol", [p for p in procedures if p.attributes["symbol"] in special]))
    for suffix, group in files:
        for mode in ("linktime", "runtime"):
            if group:
                write(out / f"wrap_{mode}{suffix}.c",
                      render_wrappers(group, library, "c", mode,
                                      header=raw.get("support_header", SUPPORT_HEADER),
                                      va_symbols=va_symbols, catalogue_path=catalogue_path))
    symbols = [p.attributes["symbol"] for p in procedures]
    write(out / "wrapped.txt", "".join(f"{s}\n" for s in symbols))
    write(out / "wrap.flags", "".join(f"-Wl,--wrap={s}\n" for s in symbols))
    if raw.get("functions_match"):
        write(out / "excluded.txt", "".join(f"{name}: {why}\n" for name, why in raw["_excluded"]))
    return symbols


def render_system_adapters(output, write, catalogues=CATALOGUES):
    """Every system adapter; returns {catalogue file name: wrapped symbols}."""
    return {pathlib.Path(c).name: render_system_adapter(output, write, c) for c in catalogues}
