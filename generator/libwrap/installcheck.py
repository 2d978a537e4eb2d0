"""`make installcheck`: the example, built against every installed variant of
the wrapper, run, and checked from its experiment: each wrapped function the
example calls was intercepted (visits > 0) in each mode, and the example's
output is what the plain build prints."""
import json
import os
import pathlib
import shutil
import subprocess

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


# the C library's own parts: their static archives are not for mixing into a
# dynamically linked program
C_LIBRARY = {"c", "m", "pthread", "dl", "rt", "resolv", "util", "mvec"}


def static_target_libs(settings, metadata):
    """The link's libraries with each -lNAME that has a static version as that .a."""
    static = {pathlib.Path(p).name: p for p in metadata.get("target_static", [])}
    out = []
    for word in settings.libs:
        if word.startswith("-l") and word[2:] not in C_LIBRARY and f"lib{word[2:]}.a" in static:
            out.append(static[f"lib{word[2:]}.a"])
        else:
            out.append(word)
    return out


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
    suffix = ".cc" if settings.language == "c++" else ".c"
    scorep = str(installation.bindir / "scorep")
    results, failures = {}, []
    for mode, (options, static_target) in MODES.items():
        if mode.startswith("runtime") and not metadata.get("runtime"):
            say(f"  {mode}: skipped (no shared version of the library)")
            continue
        tag = mode.replace(" ", "_")
        exe = outdir / f"main_{tag}"
        libs = static_target_libs(settings, metadata) if static_target else settings.libs
        cmd = [scorep, "--nompi", *[o.format(name=settings.name) for o in options], settings.cc,
               *settings.cppflags, f"main{suffix}", "-o", str(exe), *settings.ldflags, *libs]
        build = subprocess.run(cmd, cwd=settings.workdir, env=env, capture_output=True, text=True)
        if build.returncode != 0:
            failures.append(f"{mode}: the example does not build:\n  {' '.join(cmd)}\n{build.stderr}")
            continue
        results[mode] = run_mode([str(exe)], env, outdir / f"experiment_{tag}", settings, plain,
                                 failures, mode)
    if metadata.get("runtime"):
        exec_cmd = [str(installation.bindir / "scorep-exec"), f"--libwrap={settings.name}", "--",
                    str(settings.workdir / "main")]
        results["scorep-exec"] = run_mode(exec_cmd, env, outdir / "experiment_exec", settings, plain,
                                          failures, "scorep-exec")
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
        f"every mode ({len(modes)})")
    return 0


def run_mode(argv, env, experiment, settings, plain, failures, mode):
    run = run_example(argv, dict(env, SCOREP_EXPERIMENT_DIRECTORY=str(experiment)), settings.workdir)
    if run.returncode != plain.returncode or run.stdout != plain.stdout:
        failures.append(f"{mode}: the example's output or exit status differs from the plain build's\n"
                        f"--- plain (exit {plain.returncode}):\n{plain.stdout}\n--- measured (exit "
                        f"{run.returncode}):\n{run.stdout}\n{run.stderr}")
        return None
    if not (experiment / "profile.json").exists():
        failures.append(f"{mode}: no profile in {experiment}:\n{run.stderr}")
        return None
    return visits_by_region(experiment)
