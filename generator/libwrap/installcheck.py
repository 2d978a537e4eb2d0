"""`make installcheck`: the example, built against every installed variant of
the wrapper, run, and checked from its experiment: each wrapped function the
example calls was intercepted (visits > 0) in each mode; the example behaves
as the plain build (exit status, stdout, stderr without the measurement's own
[Score-P] lines); each wrapped function whose address it takes still has the
address the library uses; the static mode links what the target's archive
needs."""
import difflib
import json
import os
import pathlib
import re
import shutil
import subprocess

from .library_rules import named_in
from .library_search import LibraryFile
from .static_dependencies import missing_libraries, static_dependencies, undefined_references
from .tool_run import SymbolCheckError
from .installed import wrapper_share
from .workflow import LibwrapError

# mode name -> (scorep options, link the target library statically if it can)
MODES = {
    "linktime shared": (["--libwrap=linktime:{name}"], False),
    "linktime static": (["--libwrap=linktime:{name}", "--static-libwrap"], True),
    "runtime shared": (["--libwrap=runtime:{name}"], False),
    "runtime static": (["--libwrap=runtime:{name}", "--static-libwrap"], False),
}


def referenced_symbols(settings, outdir):
    """The symbols the example's own object file references."""
    suffix = ".cc" if settings.language == "c++" else ".c"
    obj = outdir / "main.o"
    cmd = [settings.cc, *settings.cppflags, "-c", f"main{suffix}", "-o", str(obj)]
    proc = subprocess.run(cmd, cwd=settings.workdir, capture_output=True, text=True)
    if proc.returncode != 0:
        raise LibwrapError(f"the example does not compile:\n{proc.stderr.strip()}")
    nm = subprocess.run(["nm", "-u", str(obj)], capture_output=True, text=True, check=True)
    return {line.split()[-1] for line in nm.stdout.splitlines() if line.strip()}


# An rtld-audit module that writes the symbols the main program binds; its
# calls through the PLT bind lazily, at their first call, so these are the
# functions the program's own code called (inline header code included).
AUDIT_SOURCE = r"""
#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
static FILE* out;
static int objects;
unsigned int la_version(unsigned int version)
{
    (void)version;
    const char* path = getenv("SCOREP_INSTALLCHECK_CALLS");
    out = path ? fopen(path, "w") : NULL;
    return LAV_CURRENT;
}
unsigned int la_objopen(struct link_map* map, Lmid_t lmid, uintptr_t* cookie)
{
    (void)map, (void)lmid;
    *cookie = objects++ == 0;          /* the first object is the program */
    return LA_FLG_BINDFROM | LA_FLG_BINDTO;
}
uintptr_t la_symbind64(Elf64_Sym* sym, unsigned int index, uintptr_t* from, uintptr_t* to,
                       unsigned int* flags, const char* name)
{
    (void)index, (void)to, (void)flags;
    if (out && *from) { fprintf(out, "%s\n", name); fflush(out); }
    return sym->st_value;
}
"""


def called_symbols(settings, outdir, env, say):
    """Of the wrapped functions the example references, those it calls: a
    reference on a path the run does not take (an error branch, an inline
    function of a C++ header) is not a call. Without the audit module, every
    reference counts."""
    referenced = referenced_symbols(settings, outdir)
    audit, calls = outdir / "calls_audit.so", outdir / "calls.txt"
    build = subprocess.run(["gcc", "-shared", "-fPIC", "-x", "c", "-", "-o", str(audit)], input=AUDIT_SOURCE,
                           capture_output=True, text=True)
    if build.returncode == 0:
        run_example([str(settings.workdir / "main")],
                    dict(env, LD_AUDIT=str(audit), SCOREP_INSTALLCHECK_CALLS=str(calls)), settings.workdir)
    if not calls.exists():
        say("  (could not trace which functions the example calls: every one it references is checked)")
        return referenced, []
    bound = set(calls.read_text().split())
    skipped = sorted(referenced - bound)
    return {s for s in referenced if s in bound}, skipped


def static_target_libs(settings, metadata):
    """The link's libraries with each -lNAME that has a static version as that
    .a, followed by what those archives need (an archive does not name its
    dependencies: static_dependencies asks pkg-config, then the
    shared version). Returns (libraries, notes saying where each came from)."""
    static = {pathlib.Path(p).name: p for p in metadata.get("target_static", [])}
    shared = {pathlib.Path(p).name: p for p in metadata.get("target_shared", [])}
    out, extra, notes = [], [], []
    # the C library's own parts stay as they are (library_rules.json says why)
    c_library = set(named_in("c_library_parts", "libraries"))
    for word in settings.libs:
        name = word[2:] if word.startswith("-l") else None
        if name and name not in c_library and f"lib{name}.a" in static:
            out.append(static[f"lib{name}.a"])
            flags, source = static_dependencies(
                LibraryFile(name, shared.get(f"lib{name}.so"), static[f"lib{name}.a"]))
            extra += [f for f in flags if f not in extra]
            notes.append(f"lib{name}.a with {' '.join(flags) or 'nothing else'} ({source})")
        else:
            out.append(word)
    return out + [f for f in extra if f not in out], notes


def explain_static_link(build_output, settings, notes):
    """Why the static link failed, when it is undefined symbols: which ones,
    and which library on this system defines them."""
    undefined = undefined_references(build_output)
    if not undefined:
        return ""
    try:
        defining, unknown = missing_libraries(undefined, settings.ldflags, settings.cc)
    except SymbolCheckError:
        defining, unknown = {}, undefined

    def some(symbols):
        return ", ".join(symbols[:4]) + (f" and {len(symbols) - 4} more" if len(symbols) > 4 else "")
    lines = [f"  the static link leaves {len(undefined)} symbol(s) undefined: a library the static "
             f"archive needs is not linked (linked: {'; '.join(notes)})"]
    for flag, symbols in defining.items():
        lines.append(f"  {flag} defines {some(symbols)}")
    if unknown:
        lines.append(f"  no library in the link's directories defines {some(unknown)}")
    if defining:
        lines.append(f"  add {' '.join(defining)} to LIBWRAP_LIBS (or give the library a pkg-config "
                     f"file whose Libs.private names them), then run make installcheck again")
    return "\n".join(lines) + "\n"


def visits_by_region(experiment):
    profile = json.loads((experiment / "profile.json").read_text())
    regions = {r["id"]: r["name"] for r in profile["regions"]}
    # parameter nodes repeat their region's visits: count the region's own node
    region_of_callpath = {c["id"]: c["region"] for c in profile["callpaths"] if "parameter" not in c}
    visits = {}
    for row in profile["rows"]:
        if row["callpath"] not in region_of_callpath:
            continue
        name = regions[region_of_callpath[row["callpath"]]]
        visits[name] = visits.get(name, 0) + row["visits"]
    return visits


def run_example(argv, env, cwd):
    return subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=600)


# What a program whose stderr is compared prints of the measurement's own:
# its messages start with "[Score-P]" (runtime/util/messages.c).
MEASUREMENT_PREFIX = "[Score-P]"


def split_stderr(text):
    """(the program's own stderr lines, the measurement's [Score-P] lines)."""
    own, measurement = [], []
    for line in text.splitlines(keepends=True):
        (measurement if line.startswith(MEASUREMENT_PREFIX) else own).append(line)
    return "".join(own), "".join(measurement)


def difference(plain, measured, what, limit=20):
    """A unified diff of two outputs, bounded, saying which is which."""
    lines = list(difflib.unified_diff(plain.splitlines(), measured.splitlines(), f"plain {what}",
                                      f"measured {what}", lineterm="", n=1))
    if len(lines) > limit:
        lines = lines[:limit] + [f"... ({len(lines) - limit} more lines)"]
    return "\n".join("    " + line for line in lines)


def unstable_streams(first, second):
    """The outputs that differ between two plain runs (times, addresses):
    those cannot be compared with a measured run."""
    return {name for name, a, b in (("stdout", first.stdout, second.stdout),
                                    ("stderr", first.stderr, second.stderr)) if a != b}


def compare_runs(mode, plain, run, failures, unstable=()):
    """What the measured run changed of the program's behaviour: exit status,
    stdout, and stderr without the measurement's own [Score-P] lines (those
    are shown apart, as notes). Returns the measurement's lines."""
    plain_own, _ = split_stderr(plain.stderr)
    own, measurement = split_stderr(run.stderr)
    changed = []
    if run.returncode != plain.returncode:
        changed.append(f"  exit status: plain {plain.returncode}, measured {run.returncode}")
    if run.stdout != plain.stdout and "stdout" not in unstable:
        changed.append("  stdout differs:\n" + difference(plain.stdout, run.stdout, "stdout"))
    if own != plain_own and "stderr" not in unstable:
        changed.append("  stderr differs (the measurement's own [Score-P] lines set apart):\n"
                       + difference(plain_own, own, "stderr"))
    if changed:
        note = f"\n  the measurement said:\n{measurement.rstrip()}" if measurement.strip() else ""
        failures.append(f"{mode}: the example behaves differently from the plain build:\n"
                        + "\n".join(changed) + note)
    return measurement


# ---- function addresses --------------------------------------------------------------
# A program that takes the address of a wrapped function gets the wrapper's
# (link time: --wrap makes every reference __wrap_F; run time: the wrapper
# library defines F first). Where the library compares that address with its
# own (a callback it registered itself, Qt's QObject::connect with
# &Class::signal), the program behaves differently. For each wrapped function
# the example takes the address of, a probe built like the example (plainly
# and in every mode) prints whether the program's address is the one the
# library uses; a verdict that changes under measurement fails installcheck.

# relocation types of a call (the others against a function take its address)
CALL_RELOCATIONS = {"R_X86_64_PLT32", "R_X86_64_PC32", "R_AARCH64_CALL26", "R_AARCH64_JUMP26",
                    "R_386_PLT32", "R_386_PC32", "R_PPC64_REL24", "R_RISCV_CALL", "R_RISCV_CALL_PLT"}


def readelf(*args):
    return subprocess.run(["readelf", "-W", *[str(a) for a in args]], capture_output=True, text=True,
                          env=dict(os.environ, LC_ALL="C")).stdout


def relocations(path):
    """(section the relocation patches, offset, type, symbol) of each relocation
    of an object or shared library."""
    out, section = [], None
    for line in readelf("-r", path).splitlines():
        header = re.match(r"^Relocation section '\.rela?(\S*)'", line)
        if header:
            section = header.group(1)
            continue
        fields = line.split()
        if len(fields) >= 5 and fields[2].startswith("R_"):
            out.append((section, int(fields[0], 16), fields[2], fields[4]))
    return out


def vtable_ranges(obj):
    """{section: [(start, end)]} of the virtual tables an object defines: the
    entries of a class the program derives from a library class point at the
    library's functions without the program taking their address."""
    names = {m.group(1): m.group(2) for m in
             re.finditer(r"^\s*\[\s*(\d+)\]\s+(\S+)", readelf("-S", obj), re.M)}
    ranges = {}
    for line in readelf("-s", obj).splitlines():
        fields = line.split()
        if len(fields) >= 8 and fields[7].startswith("_ZTV") and fields[6] in names:
            start = int(fields[1], 16)
            ranges.setdefault(names[fields[6]], []).append((start, start + int(fields[2], 0)))
    return ranges


def address_taken(obj, wrapped):
    """The wrapped functions whose address the object takes (not only calls)."""
    vtables = vtable_ranges(obj)
    return sorted({symbol for section, offset, kind, symbol in relocations(obj)
                   if symbol in wrapped and kind not in CALL_RELOCATIONS
                   and not any(a <= offset < b for a, b in vtables.get(section, ()))})


def bound_through_symbol_table(shared_paths, symbols):
    """The symbols the target libraries refer to through a dynamic relocation
    (GOT, data) other than a call's: the library uses whatever definition
    comes first (under run-time wrapping the wrapper, as the program does).
    The others it binds to itself (-Bsymbolic, protected, hidden aliases)."""
    wanted, found = set(symbols), set()
    for path in shared_paths:
        found |= {s.split("@")[0] for _, _, kind, s in relocations(path)
                  if not kind.endswith("JUMP_SLOT")} & wanted
    return found


ADDRESS_PROBE = r"""/* make installcheck: is the program's address of each function the one its
 * library uses? (written by scorep-libwrap installcheck) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
{declarations}
static const char* const sonames[] = {{ {sonames} }};

/* The function's own definition: in the target library as loaded; with a
 * static target, the __real_ name link-time wrapping points at it (absent
 * otherwise); else in the target library as a run-time wrapper loads it. */
static void* in_library(const char* symbol, int mode)
{{
    for (unsigned i = 0; i < sizeof sonames / sizeof *sonames; i++) {{
        if (!sonames[i]) continue;          /* (none known) */
        void* handle = dlopen(sonames[i], mode);
        void* p = handle ? dlsym(handle, symbol) : NULL;
        if (p) return p;
    }}
    return NULL;
}}

static void* own(const char* symbol, void* real)
{{
    void* p = in_library(symbol, RTLD_LAZY | RTLD_NOLOAD);
    if (!p) p = real;
    if (!p) p = in_library(symbol, RTLD_LAZY);
    return p;
}}

static void check(const char* symbol, void* program, void* real, int global)
{{
    /* the library's view: the first definition in the global scope when it
     * refers to the function through its symbol table, else its own */
    void* library = global ? dlsym(RTLD_DEFAULT, symbol) : NULL;
    if (!library) library = own(symbol, real);
    if (!library) library = program;
    printf("%s %s\n", symbol, program == library ? "same" : "differs");
}}

int main(void)
{{
{checks}
    return 0;
}}
"""


def address_probe_source(symbols, sonames, global_symbols):
    declarations, checks = [], []
    for i, symbol in enumerate(symbols):
        declarations.append(f'extern void f{i}(void) __asm__("{symbol}");\n'
                            f'extern void r{i}(void) __asm__("__real_{symbol}") __attribute__((weak));')
        checks.append(f'    check("{symbol}", (void*)&f{i}, (void*)&r{i}, {int(symbol in global_symbols)});')
    return ADDRESS_PROBE.format(declarations="\n".join(declarations),
                                sonames=", ".join(json.dumps(s) for s in sonames) or "0",
                                checks="\n".join(checks))


def verdicts(run):
    return dict(line.split(" ", 1) for line in run.stdout.splitlines() if " " in line)


def installcheck(settings, prefix, installation, say=print):
    share = wrapper_share(prefix)
    description = share / f"{settings.name}.libwrap.json"
    if not description.exists():
        raise LibwrapError(f"{description}: missing (run make install first)")
    metadata = json.loads(description.read_text())
    wrapped = dict(line.split("\t", 1) for line in
                   (share / metadata["function_list"]).read_text().splitlines() if line.strip())
    outdir = settings.workdir / "installcheck"
    shutil.rmtree(outdir, ignore_errors=True)
    outdir.mkdir()
    env = dict(os.environ, SCOREP_LIBWRAP_PATH=str(share) + (
        ":" + os.environ["SCOREP_LIBWRAP_PATH"] if os.environ.get("SCOREP_LIBWRAP_PATH") else ""),
        SCOREP_ENABLE_PROFILING="true", SCOREP_ENABLE_TRACING="false")
    env.pop("SCOREP_FILTERING_FILE", None)
    called, not_called = called_symbols(settings, outdir, env, say)
    called = sorted(s for s in called if s in wrapped)
    not_called = [wrapped[s] for s in not_called if s in wrapped]
    if not_called:
        say(f"  not checked: {len(not_called)} wrapped function(s) the example references but did not "
            f"call in this run: {', '.join(not_called[:5])}{' ...' if len(not_called) > 5 else ''}")
    if not called:
        raise LibwrapError("the example (main) calls none of the wrapped functions: call some in "
                           "main so that installcheck can see them measured")
    plain = run_example([str(settings.workdir / "main")], env, settings.workdir)
    unstable = unstable_streams(plain, run_example([str(settings.workdir / "main")], env, settings.workdir))
    if unstable:
        say(f"  the example's {' and '.join(sorted(unstable))} differ(s) between two plain runs: not "
            f"compared (print nothing that changes from run to run, such as times or addresses)")
    suffix = ".cc" if settings.language == "c++" else ".c"
    scorep = str(installation.bindir / "scorep")
    # the wrapped functions the example takes the address of, and the probe of them
    addresses = address_taken(outdir / "main.o", wrapped)
    probe = None
    if not addresses:
        say(f"  addresses: the example takes the address of no wrapped function (where the library "
            f"compares addresses it is given, take them in main{suffix} as your programs do)")
    else:
        probe = outdir / f"addresses{suffix}"
        probe.write_text(address_probe_source(
            addresses, metadata.get("sonames", []),
            bound_through_symbol_table(metadata.get("target_shared", []), addresses)))
        plain_probe = build_and_run([settings.cc, str(probe), "-o", str(outdir / "addresses_plain"),
                                     *settings.ldflags, *settings.libs, "-ldl"], env, settings.workdir)
        plain_verdicts = verdicts(plain_probe) if plain_probe.returncode == 0 else {}
        if plain_probe.returncode != 0:
            say(f"  (the address probe does not build or run plainly: addresses not compared)\n"
                f"{plain_probe.stderr.strip()}")
            probe = None
    results, failures = {}, []
    for mode, (options, static_target) in MODES.items():
        if mode.startswith("runtime") and not metadata.get("runtime"):
            say(f"  {mode}: skipped (no shared version of the library)")
            continue
        tag = mode.replace(" ", "_")
        exe = outdir / f"main_{tag}"
        libs, notes = static_target_libs(settings, metadata) if static_target else (settings.libs, [])
        if notes:
            say(f"  {mode}: links {'; '.join(notes)}")
        link = [scorep, "--nompi", *[o.format(name=settings.name) for o in options], settings.cc]
        cmd = [*link, *settings.cppflags, f"main{suffix}", "-o", str(exe), *settings.ldflags, *libs]
        build = subprocess.run(cmd, cwd=settings.workdir, env=env, capture_output=True, text=True)
        if build.returncode != 0:
            failures.append(f"{mode}: the example does not build:\n  {' '.join(cmd)}\n{build.stderr}"
                            + (explain_static_link(build.stderr, settings, notes) if static_target else ""))
            continue
        results[mode] = run_mode([str(exe)], env, outdir / f"experiment_{tag}", settings, plain,
                                 failures, mode, unstable)
        if probe:
            run = build_and_run([*link, str(probe), "-o", str(outdir / f"addresses_{tag}"),
                                 *settings.ldflags, *libs, "-ldl"], env, settings.workdir,
                                dict(SCOREP_EXPERIMENT_DIRECTORY=str(outdir / f"addresses_{tag}.exp")))
            compare_addresses(mode, plain_verdicts, run, wrapped, settings, failures)
    if metadata.get("runtime"):
        exec_cmd = [str(installation.bindir / "scorep-exec"), f"--libwrap={settings.name}", "--"]
        results["scorep-exec"] = run_mode([*exec_cmd, str(settings.workdir / "main")], env,
                                          outdir / "experiment_exec", settings, plain, failures,
                                          "scorep-exec", unstable)
        if probe:
            run = run_example([*exec_cmd, str(outdir / "addresses_plain")],
                              dict(env, SCOREP_EXPERIMENT_DIRECTORY=str(outdir / "addresses_exec.exp")),
                              settings.workdir)
            compare_addresses("scorep-exec", plain_verdicts, run, wrapped, settings, failures)
    modes = [m for m in results]
    width = max(len(wrapped[s]) for s in called)
    say(f"{'function':{width}s}  " + "  ".join(f"{m:>15s}" for m in modes))
    for symbol in called:
        region = wrapped[symbol]
        row = [results[m].get(region, 0) if results[m] is not None else "-" for m in modes]
        say(f"{region:{width}s}  " + "  ".join(f"{str(v):>15s}" for v in row))
        for m, v in zip(modes, row):
            if results[m] is not None and not v:
                failures.append(f"{m}: {region} was called by the example but not measured")
    if failures:
        for f in failures:
            say(f"installcheck FAILED: {f}")
        return 1
    say(f"installcheck: every wrapped function the example calls ({len(called)}) was measured in "
        f"every mode ({len(modes)})" + (f"; the {len(addresses)} whose address it takes keep it"
                                       if addresses else ""))
    return 0


def build_and_run(cmd, env, cwd, extra_env=None):
    """Build a program (the last -o names it) and run it; a failed build is
    returned as the result."""
    build = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if build.returncode != 0:
        return build
    exe = cmd[cmd.index("-o") + 1]
    return run_example([exe], dict(env, **(extra_env or {})), cwd)


def compare_addresses(mode, plain_verdicts, run, wrapped, settings, failures):
    if run.returncode != 0:
        failures.append(f"{mode}: the address probe ({settings.workdir / 'installcheck'}) does not "
                        f"build or run:\n{run.stderr.strip()}")
        return
    for symbol, verdict in verdicts(run).items():
        plain = plain_verdicts.get(symbol, verdict)
        if verdict != plain and plain != "same":
            failures.append(f"{mode}: the example takes the address of {wrapped[symbol]}: whether it "
                            f"is the one the library uses changed under measurement ({plain} from "
                            f"the library's plainly, {verdict} measured)")
        elif verdict != plain:
            failures.append(
                f"{mode}: the example takes the address of {wrapped[symbol]}: plainly it is the one "
                f"the library uses, measured it is the wrapper's. Where the library compares it (a "
                f"callback it registered itself, a Qt signal in QObject::connect) the program "
                f"behaves differently: leave {wrapped[symbol]} out in {settings.name}.filter "
                f"(EXCLUDE MANGLED {symbol})")


def run_mode(argv, env, experiment, settings, plain, failures, mode, unstable=()):
    run = run_example(argv, dict(env, SCOREP_EXPERIMENT_DIRECTORY=str(experiment)), settings.workdir)
    measurement = compare_runs(mode, plain, run, failures, unstable)
    if not (experiment / "profile.json").exists():
        failures.append(f"{mode}: no profile in {experiment}:\n{measurement or run.stderr}")
        return None
    return visits_by_region(experiment)
