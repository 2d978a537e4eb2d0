/* Score-P filter files:
 *
 *   SCOREP_REGION_NAMES_BEGIN
 *     EXCLUDE *
 *     INCLUDE main foo*
 *     EXCLUDE MANGLED _Z3barv
 *   SCOREP_REGION_NAMES_END
 *   SCOREP_FILE_NAMES_BEGIN
 *     EXCLUDE *_test.c
 *   SCOREP_FILE_NAMES_END
 *
 * '#' starts a comment, '\' escapes the next character, patterns are shell
 * wildcards (* ? [...]). Rules apply in order, the last matching one decides,
 * everything is included by default. A region is excluded when its name or
 * its file is. A region-name rule matches the region name; a MANGLED rule
 * matches the region's mangled symbol instead (a library function's linker
 * symbol, e.g. _ZN2ns3fooEi for ns::foo(int)), or the region name when the
 * region has no separate symbol (C functions, MPI, user regions).
 *
 * A word made only of letters and '_' that is one or two typing errors away
 * from a keyword (INCLUDEE, INLCUDE, MANGLD, SCOREP_REGION_NAME_END), from a
 * two-word rule run together (EXCLUDEMANGLED, EXCLUDE_MANGLED) or a keyword
 * in another case (include) is an error, not a pattern: otherwise the
 * typo silently becomes a pattern and the rule after it changes meaning. A
 * region really called like that is written with a backslash (\INCLUDEE).
 * Words quoted in messages have non-printable bytes escaped (\xNN), so a
 * binary file does not write raw bytes to the user's terminal.
 *
 * Besides the measurement (definitions.c), the generation-time tool
 * scorep-filter (scorep_filter_tool.c) uses this file, so a filter means the
 * same and is rejected with the same messages at both times. */
#include <ctype.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "filter.h"

typedef struct filter_rule {
    bool on_file;
    bool exclude;
    bool mangled;
    char* pattern;
} filter_rule;

struct scorep_filter {
    filter_rule* rules;
    size_t count, capacity;
};

static void add_rule(scorep_filter* f, bool on_file, bool exclude, bool mangled, const char* pattern)
{
    if (f->count == f->capacity) {
        f->capacity = f->capacity ? 2 * f->capacity : 16;
        f->rules = realloc(f->rules, f->capacity * sizeof *f->rules);
    }
    f->rules[f->count++] = (filter_rule){on_file, exclude, mangled, strdup(pattern)};
}

static const char* const keywords[] = {"INCLUDE", "EXCLUDE", "MANGLED", "SCOREP_REGION_NAMES_BEGIN",
                                       "SCOREP_REGION_NAMES_END", "SCOREP_FILE_NAMES_BEGIN", "SCOREP_FILE_NAMES_END"};

/* With transpositions: INLCUDE is one step from INCLUDE. */
int scorep_edit_distance(const char* a, const char* b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 63 || m > 63) return 99;
    int d[64][64];
    for (size_t i = 0; i <= n; i++) d[i][0] = (int)i;
    for (size_t j = 0; j <= m; j++) d[0][j] = (int)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            int cost = toupper((unsigned char)a[i - 1]) != toupper((unsigned char)b[j - 1]);
            int best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < best) best = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && toupper((unsigned char)a[i - 1]) == toupper((unsigned char)b[j - 2]) &&
                toupper((unsigned char)a[i - 2]) == toupper((unsigned char)b[j - 1]) && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[n][m];
}

/* The keyword `word` is a misspelling of, or NULL when it reads as a pattern. */
static const char* misspelled_keyword(const char* word)
{
    bool lower = false;
    for (const char* c = word; *c; c++) {
        if (!isalpha((unsigned char)*c) && *c != '_') return NULL;
        if (islower((unsigned char)*c)) lower = true;
    }
    size_t count = sizeof keywords / sizeof *keywords;
    for (size_t k = 0; k < count; k++)
        if (strcmp(word, keywords[k]) == 0) return NULL;
    /* the keywords, and the two-word rules run together (EXCLUDEMANGLED,
     * EXCLUDE_MANGLED), which would otherwise become a pattern as well */
    static const char* const meant[] = {"INCLUDE", "EXCLUDE", "MANGLED", "SCOREP_REGION_NAMES_BEGIN",
                                        "SCOREP_REGION_NAMES_END", "SCOREP_FILE_NAMES_BEGIN",
                                        "SCOREP_FILE_NAMES_END", "INCLUDE MANGLED", "EXCLUDE MANGLED"};
    const char* nearest = NULL;
    int nearest_distance = 99;
    for (size_t k = 0; k < sizeof meant / sizeof *meant; k++) {
        int d = scorep_edit_distance(word, meant[k]);
        /* in another case only when otherwise equal: "exclude" is a keyword typed
         * in lower case, "excludes" may well be a function */
        bool near = d == 0 || (!lower && d <= (strlen(meant[k]) > 12 ? 3 : 2));
        if (near && d < nearest_distance) nearest = meant[k], nearest_distance = d;
    }
    return nearest;
}

/* `word` for a message: non-printable bytes as \xNN, at most about 80 characters */
static const char* shown(const char* word, char* out, size_t size)
{
    size_t o = 0;
    for (const unsigned char* c = (const unsigned char*)word; *c && o + 8 < size; c++) {
        if (o > 80) {
            memcpy(out + o, "...", 3);
            o += 3;
            break;
        }
        if (*c < 0x20 || *c >= 0x7f) o += (size_t)snprintf(out + o, size - o, "\\x%02x", *c);
        else out[o++] = (char)*c;
    }
    out[o] = '\0';
    return out;
}

static void fail(char* error, size_t size, int line, const char* format, ...)
{
    char message[512];
    va_list ap;
    va_start(ap, format);
    vsnprintf(message, sizeof message, format, ap);
    va_end(ap);
    if (error && size) snprintf(error, size, "line %d: %s", line, message);
}

/* Splits one line into words; a backslash keeps the next character literal
 * (the backslash itself stays so that fnmatch sees the escape). */
static int split_words(char* line, char** words, int max)
{
    int n = 0;
    char* p = line;
    while (*p) {
        while (*p && isspace((unsigned char)*p)) p++;
        if (!*p || *p == '#') break;
        char* start = p;
        while (*p && !isspace((unsigned char)*p) && *p != '#') {
            if (*p == '\\' && p[1]) p++;
            p++;
        }
        char end = *p;
        *p = '\0';
        if (n < max) words[n++] = start;
        if (end == '#') break;
        if (end) p++;
    }
    return n;
}

enum block { OUTSIDE, REGION_BLOCK, FILE_BLOCK };

scorep_filter* scorep_filter_parse(const char* text, char* error, size_t error_size)
{
    scorep_filter* f = calloc(1, sizeof *f);
    enum block block = OUTSIDE;
    int block_line = 0;
    bool have_rule = false, exclude = false, mangled = false;
    int line_number = 0;
    const char* p = text;
    while (*p) {
        line_number++;
        const char* eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        char* line = malloc(len + 1);
        memcpy(line, p, len);
        line[len] = '\0';
        p += len + (eol ? 1 : 0);

        char* words[256];
        int n = split_words(line, words, 256);
        if (n == 256) {
            fail(error, error_size, line_number, "too many words on one line");
            goto failed_line;
        }
        for (int i = 0; i < n; i++) {
            const char* w = words[i];
            char w_shown[128];
            shown(w, w_shown, sizeof w_shown);
            const char* typo = misspelled_keyword(w);
            if (block == OUTSIDE) {
                if (strcmp(w, "SCOREP_REGION_NAMES_BEGIN") == 0) block = REGION_BLOCK;
                else if (strcmp(w, "SCOREP_FILE_NAMES_BEGIN") == 0) block = FILE_BLOCK;
                else {
                    char hint[64] = "";
                    if (typo) snprintf(hint, sizeof hint, "; did you mean %s?", typo);
                    fail(error, error_size, line_number,
                         "unexpected '%s' outside a block (expected SCOREP_REGION_NAMES_BEGIN or "
                         "SCOREP_FILE_NAMES_BEGIN%s)",
                         w_shown, hint);
                    goto failed_line;
                }
                block_line = line_number;
                have_rule = false;
                continue;
            }
            const char* own_end = block == REGION_BLOCK ? "SCOREP_REGION_NAMES_END" : "SCOREP_FILE_NAMES_END";
            if (strcmp(w, own_end) == 0) {
                block = OUTSIDE;
                continue;
            }
            if (strcmp(w, "SCOREP_REGION_NAMES_END") == 0 || strcmp(w, "SCOREP_FILE_NAMES_END") == 0 ||
                strcmp(w, "SCOREP_REGION_NAMES_BEGIN") == 0 || strcmp(w, "SCOREP_FILE_NAMES_BEGIN") == 0) {
                fail(error, error_size, line_number, "'%s' inside the block opened on line %d (expected %s)", w,
                     block_line, own_end);
                goto failed_line;
            }
            if (typo) {
                fail(error, error_size, line_number,
                     "'%s' is not a keyword: did you mean %s? (expected INCLUDE, EXCLUDE, INCLUDE MANGLED, "
                     "EXCLUDE MANGLED, patterns after them, or %s; a pattern that really is this name is written "
                     "with a backslash, \\%s)",
                     w_shown, typo, own_end, w_shown);
                goto failed_line;
            }
            if (strcmp(w, "INCLUDE") == 0 || strcmp(w, "EXCLUDE") == 0) {
                exclude = w[0] == 'E';
                mangled = false;
                have_rule = true;
                if (i + 1 < n && strcmp(words[i + 1], "MANGLED") == 0) {
                    if (block == FILE_BLOCK) {
                        fail(error, error_size, line_number, "MANGLED is only allowed for region names");
                        goto failed_line;
                    }
                    mangled = true;
                    i++;
                }
                continue;
            }
            if (strcmp(w, "MANGLED") == 0) {
                fail(error, error_size, line_number, "MANGLED must follow INCLUDE or EXCLUDE");
                goto failed_line;
            }
            if (!have_rule) {
                fail(error, error_size, line_number, "pattern '%s' before INCLUDE or EXCLUDE", w_shown);
                goto failed_line;
            }
            add_rule(f, block == FILE_BLOCK, exclude, mangled, w);
        }
        free(line);
        continue;
    failed_line:
        free(line);
        scorep_filter_free(f);
        return NULL;
    }
    if (block != OUTSIDE) {
        fail(error, error_size, block_line, "block opened here is not closed (missing %s)",
             block == REGION_BLOCK ? "SCOREP_REGION_NAMES_END" : "SCOREP_FILE_NAMES_END");
        scorep_filter_free(f);
        return NULL;
    }
    return f;
}

scorep_filter* scorep_filter_load(const char* path, char* error, size_t error_size)
{
    FILE* in = fopen(path, "rb");
    if (!in) {
        if (error && error_size) snprintf(error, error_size, "cannot open the file");
        return NULL;
    }
    size_t size = 0, capacity = 4096;
    char* text = malloc(capacity);
    size_t got;
    while ((got = fread(text + size, 1, capacity - size - 1, in)) > 0) {
        size += got;
        if (capacity - size < 2) text = realloc(text, capacity *= 2);
    }
    fclose(in);
    text[size] = '\0';
    const char* nul = memchr(text, '\0', size);
    if (nul) {
        int line = 1;
        for (const char* c = text; c < nul; c++) line += *c == '\n';
        fail(error, error_size, line, "contains a NUL byte: not a text filter file");
        free(text);
        return NULL;
    }
    scorep_filter* f = scorep_filter_parse(text, error, error_size);
    free(text);
    return f;
}

/* name: the file name for file rules, else the region name; mangled: what
 * MANGLED rules see */
static bool excluded_by(const scorep_filter* f, bool on_file, const char* name, const char* mangled)
{
    bool excluded = false;
    for (size_t i = 0; i < f->count; i++) {
        const filter_rule* r = &f->rules[i];
        if (r->on_file != on_file || r->exclude == excluded) continue;
        if (fnmatch(r->pattern, r->mangled ? mangled : name, 0) == 0) excluded = r->exclude;
    }
    return excluded;
}

bool scorep_filter_excludes(const scorep_filter* f, const char* region_name, const char* file_name,
                            const char* mangled_name)
{
    if (!f) return false;
    if (file_name && file_name[0] && excluded_by(f, true, file_name, NULL)) return true;
    if (!region_name) return false;
    if (!mangled_name || !mangled_name[0]) mangled_name = region_name;
    return excluded_by(f, false, region_name, mangled_name);
}

void scorep_filter_free(scorep_filter* f)
{
    if (!f) return;
    for (size_t i = 0; i < f->count; i++) free(f->rules[i].pattern);
    free(f->rules);
    free(f);
}
