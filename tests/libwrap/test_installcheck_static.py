"""The static link mode of make installcheck links the target library's
archive with what the archive needs: a static archive does not name its
dependencies, so installcheck asks pkg-config (--static) for the package
that provides the library, else the shared version's DT_NEEDED entries; a
link that still fails names the undefined symbols and the library on the
system that defines them."""
import pathlib
import subprocess

import pytest

from generator.libwrap.static_dependencies import undefined_references
from generator.libwrap.installcheck import explain_static_link, static_target_libs
from generator.libwrap.workflow import Settings
from libwrap_runs import init, installcheck_experiment, visits

LIBDIR = pathlib.Path("/usr/lib/x86_64-linux-gnu")

XML_MAIN = r"""#include <stdio.h>
#include <string.h>
#include "libwrap.h"
int main(void)
{
    const char* text = "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><wrap><call/></wrap>";
    xmlDocPtr doc = xmlReadMemory(text, (int)strlen(text), "example.xml", NULL, 0);
    printf("root %s\n", (const char*)xmlDocGetRootElement(doc)->name);
    xmlFreeDoc(doc);
    xmlCleanupParser();
    return 0;
}
"""

# the few functions the example calls: keeps make short (libxml2 has 1,600)
XML_FILTER = """SCOREP_REGION_NAMES_BEGIN
  EXCLUDE *
  INCLUDE xmlReadMemory xmlDocGetRootElement xmlFreeDoc xmlCleanupParser
SCOREP_REGION_NAMES_END
"""


@pytest.fixture(scope="module")
def xml2(installed_prefix, tmp_path_factory):
    if not (LIBDIR / "libxml2.a").exists():
        pytest.fail("libxml2-dev is not installed (make deps installs it)")
    work = init(tmp_path_factory.mktemp("libwrap-xml2"), installed_prefix, "xml2", "c", "-lxml2",
                "zlib_main.c", cppflags="-I/usr/include/libxml2", headers=["libxml/parser.h"])
    (work.path / "main.c").write_text(XML_MAIN)
    (work.path / "xml2.filter").write_text(XML_FILTER)
    work.make()
    work.make("install")
    work.installcheck = work.make("installcheck", check=False)
    return work


def test_libxml2_static_installcheck_passes_with_no_hand_added_libraries(xml2):
    out = xml2.installcheck.stdout + xml2.installcheck.stderr
    assert xml2.installcheck.returncode == 0, out
    assert "pkg-config --static --libs libxml-2.0" in out
    # the static mode linked the archive itself (no libxml2.so in the program)
    needed = subprocess.run(["readelf", "-dW", str(xml2.path / "installcheck" / "main_linktime_static")],
                            capture_output=True, text=True, check=True).stdout
    assert "libxml2.so" not in needed
    got = visits(installcheck_experiment(xml2, "linktime static"))
    assert {f: got.get(f, 0) for f in ("xmlReadMemory", "xmlDocGetRootElement", "xmlFreeDoc")} == \
        {"xmlReadMemory": 1, "xmlDocGetRootElement": 1, "xmlFreeDoc": 1}


def settings_for(libs, tmp_path, ldflags=()):
    return Settings(name="t", display_name="t", language="c", cc="gcc", cppflags=[],
                    ldflags=list(ldflags), libs=list(libs), workdir=tmp_path)


def test_sqlite_static_link_gets_the_libraries_its_package_names(tmp_path):
    metadata = {"target_static": [str(LIBDIR / "libsqlite3.a")], "target_shared": [str(LIBDIR / "libsqlite3.so")]}
    libs, notes = static_target_libs(settings_for(["-lsqlite3"], tmp_path), metadata)
    assert libs[0] == str(LIBDIR / "libsqlite3.a")
    # the oracle: what sqlite3.pc itself says
    private = subprocess.run(["pkg-config", "--static", "--libs-only-l", "sqlite3"], capture_output=True,
                             text=True, check=True).stdout.split()
    assert set(libs[1:]) == set(private) - {"-lsqlite3"} and {"-lm", "-lz"} <= set(libs[1:])
    assert "pkg-config --static --libs sqlite3" in notes[0]


@pytest.fixture
def needs_zlib(tmp_path):
    """libneedsz: a library calling zlib's crc32, as an archive and as a shared
    library linked with -lz; no pkg-config file."""
    (tmp_path / "needsz.c").write_text("#include <zlib.h>\n"
                                       "unsigned long needsz_sum(void) { return crc32(0L, 0, 0); }\n")
    subprocess.run(["gcc", "-c", "-fPIC", "needsz.c"], cwd=tmp_path, check=True)
    subprocess.run(["ar", "rcs", "libneedsz.a", "needsz.o"], cwd=tmp_path, check=True)
    subprocess.run(["gcc", "-shared", "needsz.o", "-o", "libneedsz.so", "-lz"], cwd=tmp_path, check=True)
    (tmp_path / "main.c").write_text("unsigned long needsz_sum(void);\n"
                                     "int main(void) { return (int)needsz_sum() != 0; }\n")
    return tmp_path


def test_without_pkg_config_the_shared_versions_needed_libraries_are_linked(needs_zlib):
    metadata = {"target_static": [str(needs_zlib / "libneedsz.a")],
                "target_shared": [str(needs_zlib / "libneedsz.so")]}
    libs, notes = static_target_libs(settings_for(["-lneedsz"], needs_zlib, [f"-L{needs_zlib}"]), metadata)
    assert libs == [str(needs_zlib / "libneedsz.a"), "-l:libz.so.1"]
    assert "libneedsz.so needs (DT_NEEDED)" in notes[0]
    link = subprocess.run(["gcc", "main.c", "-o", "main", *libs], cwd=needs_zlib, capture_output=True, text=True)
    assert link.returncode == 0, link.stderr


def test_a_static_link_that_still_fails_names_the_symbols_and_the_library_defining_them(needs_zlib):
    link = subprocess.run(["gcc", "main.c", "-o", "main", "libneedsz.a"], cwd=needs_zlib,
                          capture_output=True, text=True)
    assert link.returncode != 0
    assert undefined_references(link.stderr) == ["crc32"]
    message = explain_static_link(link.stderr, settings_for(["-lneedsz"], needs_zlib), ["libneedsz.a"])
    assert "leaves 1 symbol(s) undefined" in message
    assert "-lz defines crc32" in message
    assert "add -lz to LIBWRAP_LIBS" in message
