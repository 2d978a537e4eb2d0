"""What to do when libclang cannot parse the header: the errors it reports,
matched with what usually causes them and what fixes it."""
import re

# (what the messages say, what is wrong, what fixes it); the first that
# matches an error gives the advice, the general one closes the list
ERROR_ADVICE = [
    (re.compile(r"attribute cannot be applied to types|an attribute list cannot appear here|"
                r"attribute .* (?:cannot|must) (?:appear|be applied)"),
     "an attribute where GCC accepts it and clang does not",
     "define the macro that writes it as empty for the scan only: add -DMACRO= to SCAN_CPPFLAGS "
     "in the Makefile (below the settings block); or preprocess with clang: LIBWRAP_CC = clang++ "
     "(clang++ then also compiles the wrappers)"),
    (re.compile(r"unknown type name|use of undeclared identifier|no type named|no template named|"
                r"no member named .* in namespace|unknown template name|undeclared identifier"),
     "a name the header uses is not declared",
     "a header it needs is not included first (include it before, in libwrap.h), a -D or -I is "
     "missing from LIBWRAP_CPPFLAGS, or it needs a newer language standard: add -std=... to "
     "LIBWRAP_CPPFLAGS (make preprocesses and libclang parses with it)"),
    (re.compile(r"__builtin|builtin"),
     "a compiler builtin of GCC that clang does not know",
     "preprocess with clang: LIBWRAP_CC = clang++ (or clang for C); or define the macro that uses "
     "it for the scan only, with -D... in SCAN_CPPFLAGS in the Makefile"),
]


def how_to_go_on(errors, language, args):
    """What make does to read the header, and what fixes the errors seen."""
    lines = ["  How to go on: make preprocesses libwrap.h into libwrap.i with $(LIBWRAP_CC) "
             "$(LIBWRAP_CPPFLAGS) $(SCAN_CPPFLAGS), then libclang 16 parses libwrap.i with "
             f"'{' '.join(args)}'."]
    for pattern, what, fix in ERROR_ADVICE:
        if any(pattern.search(e.split(" error: ", 1)[-1]) for e in errors):
            lines.append(f"  - {what}: {fix}")
    lines.append("  - otherwise: fix LIBWRAP_CPPFLAGS (-I, -D, -std=) or libwrap.h, then run make "
                 "again (README.md, \"Messages\")")
    return "\n".join(lines)
