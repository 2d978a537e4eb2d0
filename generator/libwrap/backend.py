"""Library back-end: wrappers for library functions (Procedure objects from the
header front-end) from the one skeleton templates/libwrap/wrappers.c.j2 and
the task snippets of a library catalogue (tasks/libwrap.json).

Two forms of the same skeleton:
  linktime  __wrap_<symbol>, used with `-Wl,--wrap=<symbol>`; the original is
            `__real_<symbol>` in a static link (-DSCOREP_LIBWRAP_STATIC) and the
            symbol itself from a shared wrapper library (--wrap renames only
            the references of the program's own link)
  runtime   a definition of <symbol> itself (an assembler alias, which also
            serves C++ mangled names), LD_PRELOAD-able; the original comes from
            scorep_libwrap_resolve (dlsym RTLD_NEXT, or the target library)
"""
from ..c_backend import render_hooks
from ..render import environment
from ..snippets import task_loader
from ..tasks import TASKS_DIR, Catalogue

CATALOGUE = TASKS_DIR / "libwrap.json"
MODES = ("linktime", "runtime")


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
        "line": attrs.get("line") or 0,
        "void": void,
        "wrap_prototype": ret.format(name=f"{wrap_name}({parameter_list(proc)})"),
        "real_prototype": ret.format(name=f"scorep_real_{index}({real_params})"),
        "real_pointer": ret.format(name=f"(*scorep_real_{index})({real_params})"),
        "result_decl": "" if void else ret.format(name="scorep_result"),
        "call_args": call_arguments(proc, language),
        "va_symbol": va_symbol,
        "va_last": named[-1] if named else None,
        "hooks": render_hooks(env, plan),
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
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r} (modes: {', '.join(MODES)})")
    va_symbols = va_symbols or {}
    catalogue, plans = plan_wrappers(procedures, extra_rules, catalogue_path)
    env = library_environment()
    env_tasks = env.overlay(loader=task_loader(env, catalogue))
    records = [wrapper_record(env_tasks, i, plan, mode, language,
                              va_symbols.get(plan.proc.attributes["symbol"]))
               for i, plan in enumerate(plans)]
    return env.get_template("libwrap/wrappers.c.j2").render(
        wrappers=records, library=library, language=language, mode=mode, header=header,
        paradigm=catalogue.paradigm)
