/* usage: test_filter_parse <filter file> [region[@file[@mangled]]]...
 * Prints "error: line N: ..." and exits 1 if the file is malformed; otherwise
 * prints "<argument> excluded|included" for every argument (an empty file
 * means none; without a mangled symbol MANGLED rules see the region name). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "filter.h"

int main(int argc, char** argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s <filter file> [region[@file[@mangled]]]...\n", argv[0]);
        return 2;
    }
    char error[600];
    scorep_filter* f = scorep_filter_load(argv[1], error, sizeof error);
    if (!f) {
        printf("error: %s\n", error);
        return 1;
    }
    for (int i = 2; i < argc; i++) {
        char* name = strdup(argv[i]);
        char* file = strchr(name, '@');
        if (file) *file++ = '\0';
        char* mangled = file ? strchr(file, '@') : NULL;
        if (mangled) *mangled++ = '\0';
        printf("%s %s\n", argv[i], scorep_filter_excludes(f, name, file, mangled) ? "excluded" : "included");
        free(name);
    }
    scorep_filter_free(f);
    return 0;
}
