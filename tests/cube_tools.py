"""CubeLib's own command-line tools, the oracle for every profile.cubex the
tests write: what `cube_dump` reads from a file is what Cube, Scalasca and
scorep-score show a user, whatever our writer or our reader assumed.

The tools come from the public Score-P release kept beside the checkout
(`make cube-tools` builds CubeLib's into <build>/cube-tools/bin), or from the
bin directory $SCOREP_WRAPGEN_CUBE_TOOLS names. Without them bin_dir() is None
and the callers say so.

    bin_dir()                    the directory of cube_dump, or None
    run(tool, *args)             a tool's CompletedProcess (text)
    values(cubex, metrics, z)    {(cnode id, location id): {metric: number}} as
                                 cube_dump reads them (z: stored, incl, excl)
    problems(cubex)              what cube_info and cube_sanity refuse or report
    reference(tool)              the prefix of a full Score-P 8.4 ("scorep") or
                                 Scalasca 2.6 ("scalasca") installation, or None"""
import csv
import io
import os
import pathlib
import re
import subprocess

REPO = pathlib.Path(__file__).resolve().parent.parent


def bin_dir():
    named = os.environ.get("SCOREP_WRAPGEN_CUBE_TOOLS")
    candidates = [pathlib.Path(named)] if named else []
    build = pathlib.Path(os.environ.get("SCOREP_WRAPGEN_BUILD", REPO / "build"))
    candidates.append(build / "cube-tools" / "bin")
    for c in candidates:
        if (c / "cube_dump").is_file() and os.access(c / "cube_dump", os.X_OK):
            return c
    return None


REFERENCE_COMMANDS = {"scorep": ("scorep", "SCOREP_REFERENCE_PREFIX"),
                      "scalasca": ("scout.mpi", "SCALASCA_REFERENCE_PREFIX")}


def reference(tool):
    """Where all of Score-P 8.4 or Scalasca 2.6 is installed: the prefix the
    environment names, else the one `make scorep-reference` builds into
    <build>/scorep-reference, else /opt/<tool>; None if none holds it."""
    command, variable = REFERENCE_COMMANDS[tool]
    build = pathlib.Path(os.environ.get("SCOREP_WRAPGEN_BUILD", REPO / "build"))
    candidates = [pathlib.Path(os.environ[variable])] if os.environ.get(variable) else []
    candidates += [build / "scorep-reference" / tool, pathlib.Path("/opt") / tool]
    return next((prefix for prefix in candidates if (prefix / "bin" / command).exists()), None)


MISSING = ("CubeLib's tools are not built: `make cube-tools` builds them from the Score-P "
           "release in ../shared/reference (or set SCOREP_WRAPGEN_CUBE_TOOLS to their bin directory)")


def run(tool, *args, timeout=120):
    directory = bin_dir()
    if directory is None:
        raise FileNotFoundError(MISSING)
    env = dict(os.environ)
    # the tools are linked against their own libraries in ../lib
    lib = str(directory.parent / "lib")
    env["LD_LIBRARY_PATH"] = lib + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    return subprocess.run([str(directory / tool)] + [str(a) for a in args], capture_output=True,
                          text=True, timeout=timeout, env=env)


def _number(text):
    text = text.strip()
    if text in ("", "-"):
        return None
    try:
        return int(text)
    except ValueError:
        return float(text)


def values(cubex, metrics, z="stored"):
    """Every (cnode, location) cell of the given metrics as cube_dump prints
    them (-s csv2): doubles with 6 significant digits, integers exactly."""
    proc = run("cube_dump", "-m", ",".join(metrics), "-c", "all", "-z", z, "-s", "csv2", cubex)
    if proc.returncode != 0:
        raise RuntimeError(f"cube_dump -z {z} {cubex}: exit {proc.returncode}: {proc.stderr.strip()[-500:]}")
    rows = list(csv.reader(io.StringIO(proc.stdout)))
    header = None
    cells = {}
    for row in rows:
        row = [c.strip() for c in row]
        if not row or not row[0]:
            continue
        if row[0] == "Cnode ID":
            header = row
            continue
        if header is None:
            continue
        key = (int(row[0]), int(row[1]))
        cells[key] = {name: _number(value) for name, value in zip(header[2:], row[2:])}
    if header is None:
        raise RuntimeError(f"cube_dump {cubex}: no table in its output:\n{proc.stdout[:500]}")
    return cells


# cube_sanity's checks that every file of ours must pass. The others (a file
# name and line numbers for every region) fail on Score-P's own files as on
# ours: the program region has no file, MPI regions no lines.
SANITY_CHECKS = ("Name not empty or UNKNOWN", "No negative inclusive metrics", "No negative exclusive metrics")


def problems(cubex, extrema=()):
    """cube_info must open the file; cube_sanity must pass SANITY_CHECKS. Its
    negative-value checks subtract a call path's children for every metric,
    which means nothing for a maximum or minimum: failures of the metrics
    named in extrema do not count."""
    info = run("cube_info", cubex)
    if info.returncode != 0:
        return [f"cube_info refuses it: {(info.stderr or info.stdout).strip()[-400:]}"]
    sanity = run("cube_sanity", cubex)
    text = re.sub(r"\x1b\[[0-9;]*m", "", sanity.stdout)
    found = []
    detail = None
    for check in SANITY_CHECKS:
        match = re.search(re.escape(check) + r" \.\.\. (\d+) / (\d+)", text)
        if match is None:
            found.append(f"cube_sanity did not report '{check}' (exit {sanity.returncode}): "
                         f"{(sanity.stderr or text).strip()[-300:]}")
            continue
        if match.group(1) == match.group(2):
            continue
        if detail is None:
            detail = re.sub(r"\x1b\[[0-9;]*m", "", run("cube_sanity", "-v", "3", cubex).stdout).splitlines()
        failed = [line.strip() for line in detail if line.strip().startswith(check + " :: ") and "FAIL" in line]
        failed = [line for line in failed if line.split(" :: ")[2] not in extrema] if check.startswith("No negative") \
            else failed
        if failed:
            found.append(f"cube_sanity: {check}: {len(failed)} failed: " + "; ".join(failed[:5]))
    return found
