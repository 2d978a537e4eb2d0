"""Library back-end: wrappers for library functions (Procedure objects from the
header front-end) from the one skeleton templates/libwrap/wrappers.c.j2 and
the task snippets of a library catalogue (tasks/libwrap.json).

Two forms of the same skeleton:
  linktime  __wrap_<symbol>, used with `-Wl,--wrap=<symbol>`; the original is
            `__real_<symbol>` with -DSCOREP_LIBWRAP_STATIC (resolved by the
            --wrap of the program's link, and of the shared wrapper library's
            own link in a libwrap working directory, so that one object serves
            both) and the symbol itself without (the CAF adapter's shared
            library, linked without --wrap)
  runtime   a definition of <symbol> itself (an assembler alias, which also
            serves C++ mangled names), LD_PRELOAD-able; the original comes from
            scorep_libwrap_resolve (dlsym RTLD_NEXT, or the target library)
"""
import os
import pathlib

from ..c_backend import render_hooks
from ..errors import SpecError
from ..render import environment
from ..snippets import task_loader
from ..tasks import HOOKS, TASKS_DIR, Catalogue

CATALOGUE = TASKS_DIR / "libwrap.json"
MODES = ("linktime", "runtime")
# Wrappers per generated source file, so that `make -j` has several files to
# compile at once. Each file costs a parse of the library's headers (QtCore:
# about 1.7 s of CPU) on top of about 5 ms per wrapper, so the files are not
# made smaller than this (QtCore's 4,119 wrappers: two files per mode).
WRAPPERS_PER_FILE = 2500


def wrappers_per_file():
    """WRAPPERS_PER_FILE, or the Makefile's LIBWRAP_WRAPPERS_PER_FILE (which
    reaches generate as SCOREP_LIBWRAP_WRAPPERS_PER_FILE)."""
    value = os.environ.get("SCOREP_LIBWRAP_WRAPPERS_PER_FILE", "").strip()
    if not value:
        return WRAPPERS_PER_FILE
    if not value.isdigit() or int(value) < 1:
        raise SpecError(f"LIBWRAP_WRAPPERS_PER_FILE: '{value}' is not a positive whole number "
                        f"(wrappers per generated source file; the default is {WRAPPERS_PER_FILE})")
    return int(value)


def cstring(text):
    """Text as the inside of a C string literal."""
    return (str(text).replace("\\", "\\\\").replace('"', '\\"')
            .replace("\n", "\\n").replace("??", "?\\?"))


def library_environment():
    env = environment()
    env.filters["cstring"] = cstring
    return env


def parameter_list(proc, named_only=False, extra=()):
    """The declaration list of the wrapper: `this` first for members."""
    decls = []
    this_type = proc.attributes.get("this_type")
    if this_type:
        decls.append(f"{this_type} *scorep_this")
    decls += [p.c_declarator.format(name=p.name) for p in proc.parameters]
    decls += list(extra)
    if proc.attributes.get("variadic") and not named_only:
        decls.append("...")
    return ", ".join(decls) if decls else "void"


def argument_names(proc):
    names = ["scorep_this"] if proc.attributes.get("this_type") else []
    return names + [p.name for p in proc.parameters]


def call_arguments(proc, language):
    names = argument_names(proc)
    if language == "c++":
        # forwards each argument as it came: by-value objects are moved, not
        # copied again, and rvalue references stay rvalues
        return ", ".join(f"static_cast<decltype({n})&&>({n})" for n in names)
    return ", ".join(names)


def wrapper_record(env, index, plan, mode, language, va_symbol=None):
    proc = plan.proc
    attrs = proc.attributes
    ret = attrs.get("return_declarator") or "{name}"
    void = proc.return_kind == "void"
    real_params = parameter_list(proc, named_only=True,
                                 extra=["va_list scorep_ap"] if va_symbol else ())
    wrap_name = f"__wrap_{attrs['symbol']}" if mode == "linktime" else f"scorep_libwrap_rt_{index}"
    named = [p.name for p in proc.parameters]
    return {
        "index": index,
        "symbol": attrs["symbol"],
        "region": proc.name,
        "file": attrs.get("file") or "",
        # the region's source file: the declaring header, or the paradigm's name
        # a system adapter's catalogue gives (Score-P's convention: POSIX_IO, ...)
        "region_file": attrs.get("region_file") or attrs.get("file") or "",
        # the original, named (a system catalogue's real_functions) rather than looked up
        "real_function": attrs.get("real_function"),
        # the symbol the region is known by: a fortified variant's is its function's (one region)
        "region_symbol": attrs.get("region_symbol") or attrs["symbol"],
        "line": attrs.get("line") or 0,
        "void": void,
        "wrap_prototype": ret.format(name=f"{wrap_name}({parameter_list(proc)})"),
        "real_prototype": ret.format(name=f"scorep_real_{index}({real_params})"),
        "real_pointer": ret.format(name=f"(*scorep_real_{index})({real_params})"),
        "wrap_name": wrap_name,
        "record_prototype": ret.format(
            name=f"scorep_libwrap_record_{index}({parameter_list(proc, extra=['scorep_region scorep_r'])})"),
        "record_args": ", ".join(argument_names(proc) + ["scorep_r"]),
        "first_prototype": ret.format(name=f"scorep_libwrap_first_{index}({parameter_list(proc)})"),
        "first_args": ", ".join(argument_names(proc)),
        "result_decl": "" if void else ret.format(name="scorep_result"),
        "call_args": call_arguments(proc, language),
        "va_symbol": va_symbol,
        "va_last": named[-1] if named else None,
        # "begin" / "end": a task's own enter / exit of the region, instead of
        # the skeleton's (the I/O adapters' enter carries the operation's
        # begin, their exit the bytes done); C only
        "hooks": render_hooks(env, plan, names=HOOKS + ("begin", "end")),
        "tasks": [u.name for u in plan.tasks],
        "role": plan.role,
    }


def plan_wrappers(procedures, extra_rules=(), catalogue_path=CATALOGUE):
    catalogue = Catalogue(catalogue_path, extra_rules=extra_rules)
    return catalogue, [catalogue.plan(proc, "c") for proc in procedures]


def render_wrappers(procedures, library, language, mode, header="libwrap.h",
                    va_symbols=None, extra_rules=(), catalogue_path=CATALOGUE):
    """The wrapper source of one mode. library: dict name, display_name,
    sonames. va_symbols: symbol -> its va_list variant's symbol, for the
    ellipsis functions the caller decided to wrap. catalogue_path: another
    task catalogue (tasks/caf.json); the catalogue's `paradigm` and each
    rule's role are the regions'."""
    return render_wrapper_parts(procedures, library, language, mode, header, va_symbols,
                                extra_rules, catalogue_path, per_file=None)[0]


def render_wrapper_parts(procedures, library, language, mode, header="libwrap.h",
                         va_symbols=None, extra_rules=(), catalogue_path=CATALOGUE,
                         per_file=WRAPPERS_PER_FILE):
    """The wrapper sources of one mode as a list of texts, at most per_file
    wrappers each (None: one text), split evenly. Each text is a translation
    unit of its own, and the texts of one mode also compile together as one
    (their common definitions are guarded), which is how generate checks
    them; a wrapper keeps its index (`/* wrapper N: */`) across the parts."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r} (modes: {', '.join(MODES)})")
    va_symbols = va_symbols or {}
    catalogue, plans = plan_wrappers(procedures, extra_rules, catalogue_path)
    env = library_environment()
    env_tasks = env.overlay(loader=task_loader(env, catalogue))
    records = [wrapper_record(env_tasks, i, plan, mode, language,
                              va_symbols.get(plan.proc.attributes["symbol"]))
               for i, plan in enumerate(plans)]
    # an ellipsis wrapper calls its va_list variant through the variant's own
    # wrapper when that is wrapped too, as the library's f calling vf would:
    # in nested mode vf is then a region inside f, as in the unmeasured
    # program (link time gets this from --wrap, run time from the symbol)
    wrapped = {r["symbol"] for r in records}
    for r in records:
        r["va_wrapped"] = bool(r["va_symbol"]) and r["va_symbol"] in wrapped
    count = 1 if not per_file else max(1, -(-len(records) // per_file))
    size = -(-len(records) // count) if records else 0
    template = env.get_template("libwrap/wrappers.c.j2")
    return [template.render(wrappers=records[k * size:(k + 1) * size], total=len(records),
                            part=k + 1, parts=count, library=library, language=language,
                            mode=mode, header=header, paradigm=catalogue.paradigm)
            for k in range(count)]


def source_names(name, mode, parts, suffix):
    """The file names of a mode's parts: scorep_libwrap_NAME_MODE.c for one,
    scorep_libwrap_NAME_MODE_1.c ... for more."""
    stem = f"scorep_libwrap_{name}_{mode}"
    if parts == 1:
        return [stem + suffix]
    return [f"{stem}_{k}{suffix}" for k in range(1, parts + 1)]


def write_if_changed(path, text):
    """Writes text to path unless path holds it already: an unchanged file
    keeps its time, so make does not rebuild what depends on it."""
    path = pathlib.Path(path)
    try:
        if path.read_text() == text:
            return False
    except (OSError, UnicodeDecodeError):
        pass
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)
    return True


def write_sources(workdir, name, suffix, parts_by_mode):
    """Writes each mode's parts (only those that changed) and NAME.sources.mk,
    which tells the Makefile the file names; removes parts of an earlier run
    that no longer exist. Returns {mode: [paths]}."""
    workdir = pathlib.Path(workdir)
    written, listing = {}, []
    for mode, texts in parts_by_mode.items():
        names = source_names(name, mode, len(texts), suffix)
        for file_name, text in zip(names, texts):
            write_if_changed(workdir / file_name, text)
        stem = f"scorep_libwrap_{name}_{mode}"
        for old in workdir.glob(f"{stem}*{suffix}"):
            rest = old.name[len(stem):-len(suffix)]
            if old.name not in names and (rest == "" or rest[1:].isdigit() and rest[0] == "_"):
                old.unlink()
        written[mode] = [workdir / n for n in names]
        listing.append(f"{mode.upper()}_SOURCES = {' '.join(names)}\n")
    text = ("# written by `make` (scorep-libwrap generate): the generated wrapper sources\n"
            + "".join(listing))
    tmp = workdir / f"{name}.sources.mk.tmp"
    tmp.write_text(text)
    os.replace(tmp, workdir / f"{name}.sources.mk")
    return written
