"""The Coarray Fortran adapter: OpenCoarrays' libcaf.h through the library
header front-end (generator/libwrap/header.py) -> Procedure objects, the CAF
task catalogue (tasks/caf.json, snippets tasks/caf_*.c.j2) and the one library
wrapper skeleton (generator/libwrap/backend.py) -> generated/caf/.

    generated/caf/wrap_linktime.c   __wrap__gfortran_caf_* (ld --wrap), the main path:
                                    Debian's `caf` links libcaf_mpi statically
    generated/caf/wrap_runtime.c    _gfortran_caf_* themselves, LD_PRELOAD-able
                                    (programs linking the shared libcaf_openmpi.so)
    generated/caf/wrap.flags        the linker options, one -Wl,--wrap=SYMBOL a line
                                    (a compiler response file: `gfortran @wrap.flags`)
    generated/caf/wrapped.txt       the wrapped symbols
    generated/caf/excluded.txt      symbols not wrapped, with the reason

The header is OpenCoarrays' own; what it gets wrong is corrected by data in
the catalogue, not by code: `renames` (declared name -> the symbol the
library exports and gfortran calls), `parameters` (names for the header's
unnamed parameters, from gfortran's ABI; their number is checked).
"""
import json
import os
import pathlib
import shutil
import subprocess
import tempfile
from dataclasses import replace

from .errors import SpecError
from .tasks import TASKS_DIR

CATALOGUE = TASKS_DIR / "caf.json"
HEADER_ENV = "SCOREP_CAF_HEADER"
LIBRARY = {"name": "caf", "display_name": "OpenCoarrays libcaf_mpi",
           "sonames": ["libcaf_openmpi.so.3", "libcaf_mpich.so.3", "libcaf_mpi.so.3"],
           "written_by": "`make regenerate`"}
SUPPORT_HEADER = "scorep_caf_adapter.h"


def find_header(name="libcaf.h"):
    """libcaf.h: $SCOREP_CAF_HEADER, else the multiarch and plain include dirs."""
    env = os.environ.get(HEADER_ENV)
    if env:
        if not os.path.isfile(env):
            raise SpecError(f"{HEADER_ENV} names {env}, which does not exist")
        return pathlib.Path(env)
    dirs = []
    gcc = shutil.which("gcc")
    if gcc:
        arch = subprocess.run([gcc, "-print-multiarch"], capture_output=True, text=True).stdout.strip()
        if arch:
            dirs.append(f"/usr/include/{arch}")
    dirs += ["/usr/include", "/usr/local/include"]
    for d in dirs:
        path = pathlib.Path(d) / name
        if path.is_file():
            return path
    raise SpecError(
        f"OpenCoarrays' {name} not found (looked in {', '.join(dirs)}): the CAF adapter "
        f"(generated/caf/) is generated from it. Install it (Debian/Ubuntu: apt-get install "
        f"libcoarrays-dev) or name it with {HEADER_ENV}=/path/to/{name}")


def load_catalogue(path=CATALOGUE):
    try:
        return json.loads(pathlib.Path(path).read_text())
    except json.JSONDecodeError as e:
        raise SpecError(f"not valid JSON: {e.msg} at line {e.lineno}", file=path)


def scan_libcaf(header, raw, catalogue_path=CATALOGUE):
    """The header's _gfortran_caf_* functions as Procedures, renamed and with
    the catalogue's parameter names; the declaring file is given as the
    header's name (libcaf.h), so that the output does not depend on where
    the header lives."""
    from .libwrap.header import scan_header
    cc = shutil.which("gcc") or shutil.which("cc")
    if not cc:
        raise SpecError("no C compiler (gcc) to preprocess libcaf.h", file=header)
    spec = raw.get("header", {})
    defines = [f"-D{d}" for d in spec.get("defines", [])]
    with tempfile.TemporaryDirectory(prefix="scorep-caf-") as tmp:
        out = pathlib.Path(tmp) / "libcaf.i"
        proc = subprocess.run([cc, "-E", *defines, str(header), "-o", str(out)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise SpecError(f"the preprocessor fails on it: {proc.stderr.strip()}", file=header)
        result = scan_header(out, language="c")
    renames = {r["from"]: r["to"] for r in raw.get("renames", [])}
    names = raw.get("parameters", {})
    declared = {p.attributes["symbol"] for p in result.procedures}
    for old in renames:
        if old not in declared:
            raise SpecError(f"rename of '{old}': the header declares no such function "
                            f"(a newer libcaf.h may have fixed it: drop the rename)",
                            file=catalogue_path, entry=old)
    procedures = []
    for p in result.procedures:
        symbol = p.attributes["symbol"]
        if not symbol.startswith("_gfortran_caf_"):
            continue
        symbol = renames.get(symbol, symbol)
        attributes = dict(p.attributes, symbol=symbol, file=header.name, source_name=symbol,
                          qualified_name=symbol)
        params = p.parameters
        if symbol in names:
            wanted = names[symbol]
            if len(wanted) != len(params):
                raise SpecError(f"{len(wanted)} parameter names for {len(params)} parameters "
                                f"({', '.join(q.c_type for q in params)})",
                                file=catalogue_path, entry=symbol)
            params = tuple(replace(q, name=n) for q, n in zip(params, wanted))
        procedures.append(replace(p, name=symbol, parameters=params, attributes=attributes,
                                  origin=header.name))
    unknown = set(names) - {p.name for p in procedures}
    if unknown:
        raise SpecError(f"parameter names for function(s) the header does not declare: "
                        f"{', '.join(sorted(unknown))}", file=catalogue_path)
    return procedures


def render_caf_adapter(output, write, header=None, catalogue_path=CATALOGUE):
    """Writes generated/caf/ through write(path, text); returns (wrapped, excluded)."""
    from .libwrap.backend import render_wrappers
    from .tasks import Catalogue
    raw = load_catalogue(catalogue_path)
    header = pathlib.Path(header) if header else find_header(raw.get("header", {}).get("name", "libcaf.h"))
    procedures = scan_libcaf(header, raw, catalogue_path)
    catalogue = Catalogue(catalogue_path)
    wrapped, excluded = [], []
    for p in procedures:
        why = catalogue.excluded(p.name)
        (excluded if why else wrapped).append((p, why))
    excluded_names = {p.name for p, _ in excluded}
    # exclusions of exported functions the header does not declare
    for entry in raw.get("exclude", []):
        name = entry["match"]
        if name.replace("_", "").isalnum() and name not in excluded_names:
            excluded.append((None, entry["why"]))
            excluded_names.add(name)
    wrapped_procs = [p for p, _ in wrapped]
    out = pathlib.Path(output) / "caf"
    for mode in ("linktime", "runtime"):
        write(out / f"wrap_{mode}.c",
              render_wrappers(wrapped_procs, LIBRARY, "c", mode, header=SUPPORT_HEADER,
                              catalogue_path=catalogue_path))
    symbols = sorted(p.name for p in wrapped_procs)
    write(out / "wrapped.txt", "".join(f"{s}\n" for s in symbols))
    write(out / "wrap.flags", "".join(f"-Wl,--wrap={s}\n" for s in symbols))
    lines = []
    for p, why in excluded:
        lines.append(f"{p.name if p else next(e['match'] for e in raw['exclude'] if e['why'] == why)}: {why}\n")
    write(out / "excluded.txt", "".join(sorted(lines)))
    return symbols, sorted(lines)
