/* scorep-filter: a Score-P filter file applied outside a measurement, with
 * the measurement's own parser and matching (filter.c), so that library
 * wrapping at generation time and the runtime agree on what a filter means
 * and reject a bad file with the same messages.
 *
 *   scorep-filter FILTER_FILE          filter the functions on stdin
 *   scorep-filter --check FILTER_FILE  only validate the file
 *
 * Input: one function per line, region_name<TAB>file<TAB>mangled_symbol
 * (file and mangled_symbol may be empty or left off: no file; the symbol is
 * the region name). Output: every input line, prefixed by '+' if the filter
 * includes the function, '-' if it excludes it; flushed line by line, so a
 * caller may also talk to the tool one line at a time.
 *
 * Exit status: 0 success; 1 a bad filter file ("scorep-filter: PATH: line N:
 * what is wrong" on stderr) or a bad input line ("scorep-filter: <stdin>:
 * line N: ..."); 2 wrong usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "filter.h"

static const char usage[] =
    "usage: scorep-filter FILTER_FILE           filter region_name<TAB>file<TAB>mangled_symbol lines from stdin\n"
    "       scorep-filter --check FILTER_FILE   only check the filter file\n"
    "Each input line is written back prefixed by '+' (included) or '-' (excluded).\n";

static int filter_lines(const scorep_filter* filter)
{
    char* line = NULL;
    size_t capacity = 0;
    ssize_t length;
    long number = 0;
    while ((length = getline(&line, &capacity, stdin)) >= 0) {
        number++;
        if (length > 0 && line[length - 1] == '\n') line[--length] = '\0';
        if (length > 0 && line[length - 1] == '\r') line[--length] = '\0';
        if (strlen(line) != (size_t)length) {
            fprintf(stderr, "scorep-filter: <stdin>: line %ld: contains a NUL byte\n", number);
            free(line);
            return 1;
        }
        char* fields[3] = {line, NULL, NULL};
        int count = 1;
        for (char* p = line; *p; p++) {
            if (*p != '\t') continue;
            if (count == 3) {
                fprintf(stderr,
                        "scorep-filter: <stdin>: line %ld: more than 3 fields "
                        "(expected region_name<TAB>file<TAB>mangled_symbol)\n",
                        number);
                free(line);
                return 1;
            }
            *p = '\0';
            fields[count++] = p + 1;
        }
        if (!fields[0][0]) {
            fprintf(stderr, "scorep-filter: <stdin>: line %ld: empty region name\n", number);
            free(line);
            return 1;
        }
        int excluded = scorep_filter_excludes(filter, fields[0], fields[1], fields[2]);
        /* write the line back as it came (the tabs were cut above) */
        fputc(excluded ? '-' : '+', stdout);
        for (int i = 0; i < count; i++) {
            if (i) fputc('\t', stdout);
            fputs(fields[i], stdout);
        }
        fputc('\n', stdout);
        if (fflush(stdout) != 0) {
            perror("scorep-filter: writing the output");
            free(line);
            return 1;
        }
    }
    free(line);
    if (ferror(stdin)) {
        perror("scorep-filter: reading stdin");
        return 1;
    }
    return 0;
}

int main(int argc, char** argv)
{
    int check_only = 0;
    const char* path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        }
        if (strcmp(argv[i], "--check") == 0 && !check_only) {
            check_only = 1;
        } else if (argv[i][0] == '-' && argv[i][1] && !path) {
            fprintf(stderr, "scorep-filter: unknown option '%s'\n%s", argv[i], usage);
            return 2;
        } else if (!path) {
            path = argv[i];
        } else {
            fprintf(stderr, "scorep-filter: one filter file only ('%s' is extra)\n%s", argv[i], usage);
            return 2;
        }
    }
    if (!path) {
        fprintf(stderr, "scorep-filter: no filter file given\n%s", usage);
        return 2;
    }
    char error[600];
    scorep_filter* filter = scorep_filter_load(path, error, sizeof error);
    if (!filter) {
        fprintf(stderr, "scorep-filter: %s: %s\n", path, error);
        return 1;
    }
    int status = check_only ? 0 : filter_lines(filter);
    scorep_filter_free(filter);
    return status;
}
