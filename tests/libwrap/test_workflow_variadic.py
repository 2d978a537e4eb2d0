"""Ellipsis functions forwarded to their va_list variants: partners spelt
with a capital V (libxml2's xmlStrPrintf -> xmlStrVPrintf), C++ members
paired in their own class (Text::asprintf -> Text::vasprintf, not glibc's
vasprintf), and LIBWRAP_ELLIPSIS_MAPPING_SYMBOLS taking qualified C++
names. Each wrapped call still does what the unwrapped one does (the
program's output) and is counted once (scorep-exec)."""
import subprocess

import pytest

from libwrap_runs import init, run, visits

XML_MAIN = """#include <stdio.h>
#include "libwrap.h"
int main(void)
{
    xmlChar buf[64];
    int n = xmlStrPrintf(buf, sizeof buf, "%s-%d", "xml", 42);
    int m = xmlStrPrintf(buf + n, sizeof buf - n, "/%c", 'z');
    printf("%d %d %s %d\\n", n, m, (const char*)buf, xmlStrlen(buf));
    return 0;
}
"""


def measured_run(work, prefix, tmp):
    """The example plainly and under scorep-exec: (plain stdout, measured
    stdout, region name -> visits)."""
    plain = run([work.path / "main"], prefix, tmp, tmp / "e0")
    measured = run([prefix / "bin" / "scorep-exec", f"--libwrap={work.name}", "--", work.path / "main"],
                   prefix, tmp, tmp / "e1", {"SCOREP_LIBWRAP_PATH": str(work.libwrap_prefix)})
    assert plain.returncode == 0 and measured.returncode == 0, plain.stderr + measured.stderr
    return plain.stdout, measured.stdout, visits(tmp / "e1")


def test_a_va_list_partner_spelt_with_a_capital_v_is_found(installed_prefix, tmp_path):
    work = init(tmp_path, installed_prefix, "xmlstr", "c", "-lxml2", "zlib_main.c",
                cppflags="-I/usr/include/libxml2", headers=["libxml/xmlstring.h"])
    (work.path / "main.c").write_text(XML_MAIN)
    work.make()
    assert "xmlStrPrintf" in work.wrapped() and "xmlStrPrintf" not in work.read("not_wrappable.txt")
    assert '__asm__("xmlStrVPrintf")' in work.read("scorep_libwrap_xmlstr_linktime.c")
    work.make("install")
    plain, measured, counts = measured_run(work, installed_prefix, tmp_path)
    assert measured == plain == "6 2 xml-42/z 8\n"
    assert counts.get("xmlStrPrintf") == 2 and counts.get("xmlStrlen") == 1


TEXT_H = """#pragma once
#include <cstdarg>
#include <cstdio>          // glibc's vasprintf: not Text's
namespace demo {
class Text {
public:
    char data[64];
    int size;
    static Text asprintf(const char* format, ...);           // paired by name, in Text
    static Text vasprintf(const char* format, va_list ap);
    int append(const char* format, ...);                     // a member: `this` passed on
    int vappend(const char* format, va_list ap);
    int format(const char* format, ...);                     // paired by the mapping only
    int formatList(const char* format, va_list ap);
};
void note(const char* format, ...);                          // its partner is vnote, not err.h's vwarn
void vnote(const char* format, va_list ap);
}
#include <err.h>       // vwarn(const char*, va_list): fits, but another library's
"""
TEXT_CC = """#include "text.hpp"
namespace demo {
Text Text::vasprintf(const char* format, va_list ap)
{ Text t; t.size = std::vsnprintf(t.data, sizeof t.data, format, ap); return t; }
Text Text::asprintf(const char* format, ...)
{ va_list ap; va_start(ap, format); Text t = vasprintf(format, ap); va_end(ap); return t; }
int Text::vappend(const char* format, va_list ap)
{ int n = std::vsnprintf(data + size, sizeof data - size, format, ap); size += n; return n; }
int Text::append(const char* format, ...)
{ va_list ap; va_start(ap, format); int n = vappend(format, ap); va_end(ap); return n; }
int Text::formatList(const char* format, va_list ap) { size = 0; return vappend(format, ap); }
int Text::format(const char* format, ...)
{ va_list ap; va_start(ap, format); int n = formatList(format, ap); va_end(ap); return n; }
void vnote(const char* format, va_list ap) { std::vprintf(format, ap); }
void note(const char* format, ...) { va_list ap; va_start(ap, format); vnote(format, ap); va_end(ap); }
}
"""
TEXT_MAIN = """#include "libwrap.h"
int main()
{
    demo::Text t = demo::Text::asprintf("%s %d", "seven", 7);
    t.append(" and %.1f", 1.5);
    std::printf("%s (%d)\\n", t.data, t.size);
    t.format("[%05d]", 42);
    std::printf("%s (%d)\\n", t.data, t.size);
    demo::note("note %d\\n", 3);
    return 0;
}
"""


@pytest.fixture(scope="module")
def text_library(tmp_path_factory):
    d = tmp_path_factory.mktemp("text-library")
    (d / "include").mkdir()
    (d / "include" / "text.hpp").write_text(TEXT_H)
    (d / "text.cc").write_text(TEXT_CC)
    subprocess.run(["g++", "-shared", "-fPIC", "-I", str(d / "include"), str(d / "text.cc"),
                    "-o", str(d / "libtext.so")], check=True)
    return d


def test_cxx_members_pair_in_their_own_class_and_the_mapping_takes_qualified_names(installed_prefix,
                                                                                   text_library, tmp_path):
    lib = text_library
    work = init(tmp_path, installed_prefix, "text", "c++", "-ltext", "jsoncpp_main.cc",
                cppflags=f"-I{lib / 'include'}", ldflags=f"-L{lib} -Wl,-rpath,{lib}", headers=["text.hpp"])
    (work.path / "main.cc").write_text(TEXT_MAIN)
    makefile = work.read("Makefile")
    (work.path / "Makefile").write_text(makefile.replace(
        "LIBWRAP_ELLIPSIS_MAPPING_SYMBOLS =", "LIBWRAP_ELLIPSIS_MAPPING_SYMBOLS = demo::Text::format:formatList", 1))
    work.make()
    assert work.read("not_wrappable.txt") == ""
    linktime = work.read("scorep_libwrap_text_linktime.cc")
    for partner in ("_ZN4demo4Text9vasprintfEPKcP13__va_list_tag", "_ZN4demo4Text7vappendEPKcP13__va_list_tag",
                    "_ZN4demo4Text10formatListEPKcP13__va_list_tag"):
        assert f'__asm__("{partner}")' in linktime
    assert '__asm__("vasprintf")' not in linktime
    work.make("install")
    plain, measured, counts = measured_run(work, installed_prefix, tmp_path)
    assert measured == plain == "seven 7 and 1.5 (15)\n[00042] (7)\nnote 3\n"
    assert {name: n for name, n in counts.items() if name.startswith("demo::Text::")} == {
        "demo::Text::asprintf(char const*, ...)": 1, "demo::Text::append(char const*, ...)": 1,
        "demo::Text::format(char const*, ...)": 1}
    assert counts.get("demo::note(char const*, ...)") == 1


def test_a_plain_name_in_the_mapping_means_the_members_own_scope(installed_prefix, text_library, tmp_path):
    """`asprintf:vasprintf` for Text's member means Text::vasprintf, never
    glibc's vasprintf; a partner that does not fit, or that is another
    library's (forwarding there would skip the library's own code), is named
    in not_wrappable.txt; a malformed pair is an error showing the form."""
    lib = text_library
    work = init(tmp_path, installed_prefix, "text", "c++", "-ltext", "jsoncpp_main.cc",
                cppflags=f"-I{lib / 'include'}", ldflags=f"-L{lib} -Wl,-rpath,{lib}", headers=["text.hpp"])
    (work.path / "main.cc").write_text(TEXT_MAIN)
    makefile = work.read("Makefile")
    variable = "LIBWRAP_ELLIPSIS_MAPPING_SYMBOLS ="
    (work.path / "Makefile").write_text(makefile.replace(variable, variable + " demo::Text::format:::vlog", 1))
    proc = work.make(check=False)
    assert proc.returncode != 0 and "'demo::Text::format:::vlog' is not of the form" in proc.stderr
    assert "QString::asprintf:QString::vasprintf" in proc.stderr        # the form, for C++
    (work.path / "Makefile").write_text(makefile.replace(
        variable, variable + " asprintf:vasprintf demo::Text::format:vsnprintf demo::note:vwarn", 1))
    work.make()
    linktime = work.read("scorep_libwrap_text_linktime.cc")
    assert '__asm__("_ZN4demo4Text9vasprintfEPKcP13__va_list_tag")' in linktime
    assert '__asm__("vasprintf")' not in linktime
    format_line, note_line = work.read("not_wrappable.txt").splitlines()
    assert format_line.startswith("demo::Text::format(char const*, ...): "
                                  "LIBWRAP_ELLIPSIS_MAPPING_SYMBOLS: 'vsnprintf' does not fit")
    assert note_line.startswith("demo::note(char const*, ...): LIBWRAP_ELLIPSIS_MAPPING_SYMBOLS: "
                                "'vwarn' is declared in /usr/include/err.h, not in the library's headers")
