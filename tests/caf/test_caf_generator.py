"""The CAF adapter's generation (generator/caf_backend.py): every _gfortran_caf_*
function libcaf_mpi exports is wrapped or excluded with a reason; a missing
libcaf.h is a clear error."""
import glob
import subprocess
import sys

import pytest

from conftest import REPO

GENERATED = REPO / "generated" / "caf"
LIBRARIES = sorted(glob.glob("/usr/lib/*/open-coarrays/*/lib/libcaf_*.a")
                   + glob.glob("/usr/lib/*/libcaf_openmpi.so.3"))


def exported(library):
    nm = ["nm", "-D", "--defined-only"] if ".so" in library else ["nm", "--defined-only"]
    out = subprocess.run(nm + [library], capture_output=True, text=True, check=True).stdout
    return {f[2] for f in (line.split() for line in out.splitlines())
            if len(f) == 3 and f[1] == "T" and f[2].startswith("_gfortran_caf_")}


@pytest.mark.skipif(not LIBRARIES, reason="OpenCoarrays' libcaf libraries not installed")
@pytest.mark.parametrize("library", LIBRARIES)
def test_every_exported_function_is_wrapped_or_excluded(library):
    wrapped = set((GENERATED / "wrapped.txt").read_text().split())
    excluded = {line.split(":")[0] for line in (GENERATED / "excluded.txt").read_text().splitlines()}
    symbols = exported(library)
    assert symbols and not wrapped & excluded
    assert symbols == wrapped | excluded, (symbols ^ (wrapped | excluded))
    linktime = (GENERATED / "wrap_linktime.c").read_text()
    runtime = (GENERATED / "wrap_runtime.c").read_text()
    flags = (GENERATED / "wrap.flags").read_text().split()
    for s in wrapped:
        assert f"__wrap_{s}(" in linktime and f".set {s}," in runtime and f"-Wl,--wrap={s}" in flags


def test_missing_header_is_a_clear_error(tmp_path):
    env = {"SCOREP_CAF_HEADER": str(tmp_path / "nowhere" / "libcaf.h"), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-m", "generator", "regenerate", "--quiet",
                           "--output", str(tmp_path / "out")], cwd=REPO, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert "SCOREP_CAF_HEADER" in proc.stderr and "does not exist" in proc.stderr
