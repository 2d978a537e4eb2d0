"""An ellipsis function forwarded to its va_list variant keeps the library's
call structure under SCOREP_LIBWRAP_NESTED=true: zlib's gzprintf calls
gzvprintf (through libz's PLT), so the unmeasured program makes one
gzvprintf call per gzprintf (ltrace counts them), and every wrapping mode
records as many gzvprintf regions nested in gzprintf; without nested mode,
none."""
import shutil
import subprocess

import pytest

from libwrap_runs import init, run, visits

APP = r"""#include <stdio.h>
#include <zlib.h>
int main(int argc, char** argv)
{
    gzFile f = gzopen(argv[1], "wb");
    for (int i = 0; i < 3; i++)
        gzprintf(f, "line %d\n", i);
    gzclose(f);
    printf("written\n");
    return 0;
}
"""
MODES = {"linktime shared": ["--libwrap=linktime:z"],
         "linktime static": ["--libwrap=linktime:z", "--static-libwrap"],
         "runtime shared": ["--libwrap=runtime:z"],
         "runtime static": ["--libwrap=runtime:z", "--static-libwrap"],
         "exec": None}


@pytest.fixture(scope="module")
def zlib(installed_prefix, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("libwrap-zlib-nested")
    work = init(tmp, installed_prefix, "z", "c", "-lz", "zlib_main.c", headers=["zlib.h"])
    work.make("-j2")
    work.make("install")
    (tmp / "app.c").write_text(APP)
    subprocess.run(["gcc", str(tmp / "app.c"), "-o", str(tmp / "plain"), "-lz"], check=True)
    work.app = tmp
    return work


def gzvprintf_calls_by_the_library(app, tmp_path):
    """ltrace: the calls to gzvprintf libz makes through its own PLT."""
    if not shutil.which("ltrace"):
        pytest.skip("ltrace is not installed")
    proc = subprocess.run(["ltrace", "-c", "-e", "gzvprintf@libz.so.1+gzprintf", str(app),
                           str(tmp_path / "ltrace.gz")], capture_output=True, text=True, timeout=60)
    counts = {}
    for line in proc.stderr.splitlines():
        words = line.split()
        if len(words) == 5 and words[-1] in ("gzprintf", "gzvprintf"):
            counts[words[-1]] = int(words[3])
    return counts


@pytest.mark.parametrize("nested", [True, False])
@pytest.mark.parametrize("mode", MODES)
def test_the_va_list_variant_is_nested_in_the_ellipsis_function_as_in_the_library(zlib, installed_prefix,
                                                                                   tmp_path, mode, nested):
    oracle = gzvprintf_calls_by_the_library(zlib.app / "plain", tmp_path)
    assert oracle == {"gzprintf": 3, "gzvprintf": 3}
    env = {"SCOREP_LIBWRAP_PATH": str(zlib.libwrap_prefix), "SCOREP_LIBWRAP_NESTED": str(nested).lower()}
    if MODES[mode] is None:
        argv = [installed_prefix / "bin" / "scorep-exec", "--libwrap=z", "--", zlib.app / "plain"]
    else:
        binary = tmp_path / "measured"
        link = run([installed_prefix / "bin" / "scorep", "--nompi", *MODES[mode], "gcc", zlib.app / "app.c",
                    "-o", binary, "-lz"], installed_prefix, tmp_path, tmp_path / "unused", extra_env=env)
        assert link.returncode == 0, link.stderr
        argv = [binary]
    proc = run([*argv, tmp_path / "out.gz"], installed_prefix, tmp_path, tmp_path / "exp", extra_env=env)
    assert proc.returncode == 0 and proc.stdout == "written\n", proc.stderr
    got = visits(tmp_path / "exp")
    expected = oracle["gzvprintf"] if nested else 0
    assert (got.get("gzprintf"), got.get("gzvprintf", 0)) == (oracle["gzprintf"], expected)
