/* profile.cubex: the report of profile_collect.c in CUBE4, the format of
 * Score-P's profile.cubex, so that Cube, cube_stat, scorep-score, Scalasca and
 * Extra-P open our experiments unchanged. The layout (docs/PROFILE_FORMAT.md,
 * "profile.cubex") is an uncompressed tar of
 *   anchor.xml        metrics, regions, call tree (cnodes), system tree
 *   <m>.index         "CUBEX.INDEX", endianness mark, version, sparse type,
 *                     the ids of the cnodes that have a row in <m>.data
 *   <m>.data          "CUBEX.DATA", one row per listed cnode: one value per
 *                     location, in location id order, in this machine's byte order
 * Cnode ids are given in depth-first preorder and location ids in system-tree
 * order. An EXCLUSIVE metric's rows are in cnode id order; an INCLUSIVE one's
 * in CubeLib's breadth-per-level order (call_tree_wide_order), and its index
 * lists those positions. Rows whose values are all neutral (0; for minimum and
 * maximum: no visit) are left out: the sparse index allows it, and readers take
 * them as neutral. */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "profile_cube.h"
#include "report_names.h"

/* ---- the metrics: Score-P's unique names, types and units ---- */

typedef enum {
    VALUE_VISITS, VALUE_BYTES_SENT, VALUE_BYTES_RECEIVED, VALUE_BYTES_PUT, VALUE_BYTES_GET, VALUE_BYTES_READ,
    VALUE_BYTES_WRITTEN, VALUE_USER,
    VALUE_USER_MAX, VALUE_SECONDS, VALUE_MIN_SECONDS, VALUE_MAX_SECONDS, VALUE_HITS
} value_kind;
typedef struct {
    char uniq[80];
    const char* disp;
    const char* dtype;
    const char* uom;
    const char* kind; /* how values are stored: per call path alone, or with its callees */
    const char* descr;
    value_kind value;
    uint32_t user; /* user metric id, for VALUE_USER */
} cube_metric;

static const cube_metric fixed_metrics[] = {
    {"visits", "Visits", "UINT64", "occ", "EXCLUSIVE", "Number of visits", VALUE_VISITS, 0},
    {"time", "Time", "DOUBLE", "sec", "INCLUSIVE", "Total CPU allocation time", VALUE_SECONDS, 0},
    {"min_time", "Minimum Inclusive Time", "MINDOUBLE", "sec", "EXCLUSIVE", "Minimum inclusive CPU allocation time",
     VALUE_MIN_SECONDS, 0},
    {"max_time", "Maximum Inclusive Time", "MAXDOUBLE", "sec", "EXCLUSIVE", "Maximum inclusive CPU allocation time",
     VALUE_MAX_SECONDS, 0},
    {"bytes_sent", "bytes_sent", "UINT64", "bytes", "EXCLUSIVE", "Bytes sent", VALUE_BYTES_SENT, 0},
    {"bytes_received", "bytes_received", "UINT64", "bytes", "EXCLUSIVE", "Bytes received", VALUE_BYTES_RECEIVED, 0},
    {"bytes_put", "bytes_put", "UINT64", "bytes", "EXCLUSIVE", "Bytes sent in one-sided communication",
     VALUE_BYTES_PUT, 0},
    {"bytes_get", "bytes_get", "UINT64", "bytes", "EXCLUSIVE", "Bytes received in one-sided communication",
     VALUE_BYTES_GET, 0},
    {"io_bytes_read", "io_bytes_read", "UINT64", "bytes", "EXCLUSIVE", "I/O bytes read", VALUE_BYTES_READ, 0},
    {"io_bytes_written", "io_bytes_written", "UINT64", "bytes", "EXCLUSIVE", "I/O bytes written", VALUE_BYTES_WRITTEN,
     0},
};
#define FIXED_METRICS (sizeof fixed_metrics / sizeof *fixed_metrics)
/* the fixed metrics before it, where a profile has samples (Score-P's place) */
#define HITS_AFTER 4
static const cube_metric hits_metric = {"hits", "Hits", "UINT64", "occ", "EXCLUSIVE", "Number of hits", VALUE_HITS, 0};

/* One (cnode, location) cell: the report's rows, merged when two rows of one
 * location fall on the same call path. */
typedef struct {
    uint32_t cnode, location;
    const scorep_report_row* row;
} cell;

/* The value of metric m in one row, as the 8 bytes stored; returns whether it
 * is not zero. */
static int cell_value(const cube_metric* m, const scorep_report_row* row, unsigned char out[8])
{
    uint64_t u = 0;
    double d = 0;
    int is_double = 1;
    switch (m->value) {
    case VALUE_VISITS: is_double = 0, u = row->n.visits; break;
    case VALUE_BYTES_SENT: is_double = 0, u = row->n.bytes_sent; break;
    case VALUE_BYTES_RECEIVED: is_double = 0, u = row->n.bytes_received; break;
    case VALUE_BYTES_PUT: is_double = 0, u = row->n.bytes_put; break;
    case VALUE_BYTES_GET: is_double = 0, u = row->n.bytes_get; break;
    case VALUE_BYTES_READ: is_double = 0, u = row->n.bytes_read; break;
    case VALUE_BYTES_WRITTEN: is_double = 0, u = row->n.bytes_written; break;
    case VALUE_HITS: is_double = 0, u = row->n.hits; break;
    case VALUE_USER: is_double = 0, u = (uint64_t)row->metrics[m->user]; break;
    case VALUE_USER_MAX:
        d = (double)row->metrics[m->user];
        memcpy(out, &d, 8);
        return row->metrics[m->user] != 0;
    /* nanoseconds as seconds: exact back to the nanosecond below 2^53 ns (104 days) */
    case VALUE_SECONDS: d = (double)row->n.time_incl / 1e9; break;
    /* a measured 0 is a value: the row is there whenever the call path was visited */
    case VALUE_MIN_SECONDS:
        d = row->n.visits ? (double)row->n.time_min / 1e9 : DBL_MAX;
        memcpy(out, &d, 8);
        return row->n.visits != 0;
    case VALUE_MAX_SECONDS:
        d = (double)row->n.time_max / 1e9;
        memcpy(out, &d, 8);
        return row->n.visits != 0;
    }
    if (is_double) {
        memcpy(out, &d, 8);
        return d != 0;
    }
    memcpy(out, &u, 8);
    return u != 0;
}

static int compare_cells(const void* a, const void* b)
{
    const cell* x = a;
    const cell* y = b;
    if (x->cnode != y->cnode) return x->cnode < y->cnode ? -1 : 1;
    if (x->location != y->location) return x->location < y->location ? -1 : 1;
    return 0;
}

/* ---- XML ---- */

static void xml_text(FILE* f, const char* s)
{
    for (const unsigned char* p = (const unsigned char*)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default:
            /* XML 1.0 has no way to write other control characters */
            if (*p < 0x20 && *p != '\t' && *p != '\n') fputc('?', f);
            else fputc(*p, f);
        }
    }
}

static void xml_element(FILE* f, const char* indent, const char* name, const char* text)
{
    fprintf(f, "%s<%s>", indent, name);
    xml_text(f, text);
    fprintf(f, "</%s>\n", name);
}

/* The call tree in depth-first preorder: order[cnode id] = call path,
 * depth[cnode id], cnode_of[call path] = cnode id. Parents before children
 * need not hold in the report's numbering, hence the explicit child lists. */
typedef struct {
    uint32_t count;
    uint32_t *order, *depth, *cnode_of;
} call_tree;

static int call_tree_build(const scorep_report* r, call_tree* t)
{
    uint32_t n = r->callpath_count;
    t->count = 0;
    t->order = malloc((n + 1) * sizeof *t->order);
    t->depth = malloc((n + 1) * sizeof *t->depth);
    t->cnode_of = malloc((n + 1) * sizeof *t->cnode_of);
    uint32_t* first = malloc((n + 1) * sizeof *first);
    uint32_t* next = malloc((n + 1) * sizeof *next);
    uint32_t* stack = malloc((n + 1) * sizeof *stack);
    uint32_t* stack_depth = malloc((n + 1) * sizeof *stack_depth);
    int ok = t->order && t->depth && t->cnode_of && first && next && stack && stack_depth;
    if (ok) {
        for (uint32_t i = 0; i < n; i++) first[i] = next[i] = t->cnode_of[i] = SCOREP_INVALID_ID;
        /* children lists, in call path id order (built backwards, pushed backwards) */
        uint32_t sp = 0;
        for (uint32_t i = n; i-- > 0;) {
            uint32_t p = r->callpaths[i].parent;
            if (p == SCOREP_INVALID_ID || p >= n || p == i) {
                next[i] = SCOREP_INVALID_ID;
            } else {
                next[i] = first[p];
                first[p] = i;
            }
        }
        for (uint32_t i = n; i-- > 0;) {
            uint32_t p = r->callpaths[i].parent;
            if (p == SCOREP_INVALID_ID || p >= n || p == i) stack[sp] = i, stack_depth[sp++] = 0;
        }
        while (sp) {
            uint32_t cp = stack[--sp], d = stack_depth[sp];
            if (t->cnode_of[cp] != SCOREP_INVALID_ID) continue; /* a cycle: never from collect */
            t->cnode_of[cp] = t->count;
            t->order[t->count] = cp;
            t->depth[t->count++] = d;
            /* push the children in reverse so that the first is taken first */
            uint32_t children = 0;
            for (uint32_t c = first[cp]; c != SCOREP_INVALID_ID; c = next[c]) children++;
            uint32_t k = sp + children;
            if (k > n) break; /* cannot happen without a cycle */
            for (uint32_t c = first[cp]; c != SCOREP_INVALID_ID; c = next[c]) {
                stack[--k] = c;
                stack_depth[k] = d + 1;
            }
            sp += children;
        }
    }
    free(first);
    free(next);
    free(stack);
    free(stack_depth);
    return ok ? 0 : -1;
}

/* CubeLib reads an INCLUSIVE metric's rows in another order than the cnode
 * ids: each root, then for every cnode (depth first) all its children before
 * any grandchild (its WideSearchEnumerator). wide[cnode id] = that position. */
static uint32_t* call_tree_wide_order(const call_tree* t)
{
    uint32_t n = t->count;
    uint32_t* wide = malloc((n + 1) * sizeof *wide);
    uint32_t* first = malloc((n + 1) * sizeof *first);
    uint32_t* next = malloc((n + 1) * sizeof *next);
    uint32_t* last = malloc((n + 1) * sizeof *last);
    uint32_t* stack = malloc((n + 1) * sizeof *stack);
    /* the cnode open at each depth while walking the preorder */
    uint32_t* open = malloc((n + 1) * sizeof *open);
    if (!wide || !first || !next || !last || !stack || !open) {
        free(wide);
        wide = NULL;
        goto done;
    }
    for (uint32_t c = 0; c < n; c++) first[c] = next[c] = last[c] = SCOREP_INVALID_ID;
    for (uint32_t c = 0; c < n; c++) {
        uint32_t d = t->depth[c];
        open[d] = c;
        if (d == 0) continue;
        uint32_t p = open[d - 1];
        if (first[p] == SCOREP_INVALID_ID) first[p] = c;
        else next[last[p]] = c;
        last[p] = c;
    }
    uint32_t pos = 0;
    for (uint32_t root = 0; root < n; root++) {
        if (t->depth[root] != 0) continue;
        wide[root] = pos++;
        uint32_t sp = 0;
        stack[sp++] = root;
        while (sp) {
            uint32_t c = stack[--sp], children = 0;
            for (uint32_t k = first[c]; k != SCOREP_INVALID_ID; k = next[k]) wide[k] = pos++, children++;
            /* expanded in order: the first child's subtree before the second's */
            uint32_t k = sp + children;
            for (uint32_t ch = first[c]; ch != SCOREP_INVALID_ID; ch = next[ch]) stack[--k] = ch;
            sp += children;
        }
    }
done:
    free(first);
    free(next);
    free(last);
    free(stack);
    free(open);
    return wide;
}

static void call_tree_free(call_tree* t)
{
    free(t->order);
    free(t->depth);
    free(t->cnode_of);
}

static const char* host_of(const scorep_report* r, uint32_t rank)
{
    const char* h = r->hosts && (int)rank < r->ranks ? r->hosts + (size_t)rank * SCOREP_CUBE_HOST_NAME_MAX : "";
    return h[0] ? h : "localhost";
}

/* locations sorted by (rank, thread): the system tree's order */
typedef struct {
    uint64_t key;
    uint32_t location;
} location_key;

static int compare_location_keys(const void* a, const void* b)
{
    const location_key* x = a;
    const location_key* y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* The locations in system-tree order: by rank, then thread. */
typedef struct {
    uint32_t count;
    uint32_t *rank, *thread;
    uint32_t* location;   /* the unified definitions' index, for its name (NULL: none defined) */
} system_order;

static void write_system(FILE* f, const scorep_report* r, const system_order* s)
{
    uint32_t nloc = s->count;
    /* names and the Id attribute spelled as CubeLib writes them for Score-P */
    fputs(" <system>\n  <systemtreenode Id=\"0\">\n   <name>machine Linux</name>\n   <class>machine</class>\n"
          "   <attr key=\"platform\" value=\"Linux\"/>\n",
          f);
    /* nodes in the order of their first rank; a rank's locations are contiguous */
    uint32_t node_id = 1;
    char* done = calloc(nloc ? nloc : 1, 1);
    for (uint32_t i = 0; i < nloc; i++) {
        if (done[i]) continue;
        const char* host = host_of(r, s->rank[i]);
        fprintf(f, "   <systemtreenode Id=\"%u\">\n    <name>node ", node_id++);
        xml_text(f, host);
        fputs("</name>\n", f);
        fputs("    <class>node</class>\n", f);
        for (uint32_t j = i; j < nloc;) {
            uint32_t rank = s->rank[j];
            uint32_t end = j;
            while (end < nloc && s->rank[end] == rank) end++;
            if (!done[j] && strcmp(host_of(r, rank), host) == 0) {
                /* the names the OTF2 trace gives the same processes and locations */
                char name[64];
                scorep_location_group_name(name, sizeof name, rank);
                fprintf(f, "    <locationgroup Id=\"%u\">\n     <name>%s</name>\n     <rank>%u</rank>\n"
                           "     <type>process</type>\n",
                        rank, name, rank);
                for (uint32_t k = j; k < end; k++) {
                    if (s->location != NULL) scorep_location_name(r->defs, s->location[k], name, sizeof name);
                    else snprintf(name, sizeof name, "Master thread");
                    fprintf(f, "     <location Id=\"%u\">\n      <name>%s</name>\n", k, name);
                    fprintf(f, "      <rank>%u</rank>\n      <type>thread</type>\n     </location>\n", s->thread[k]);
                    done[k] = 1;
                }
                fputs("    </locationgroup>\n", f);
            }
            j = end;
        }
        fputs("   </systemtreenode>\n", f);
    }
    free(done);
    fputs("  </systemtreenode>\n", f);
    /* the process x thread grid CubeGUI's topology view shows, as Score-P writes it */
    uint32_t max_rank = 0, max_thread = 0;
    for (uint32_t i = 0; i < nloc; i++) {
        if (s->rank[i] > max_rank) max_rank = s->rank[i];
        if (s->thread[i] > max_thread) max_thread = s->thread[i];
    }
    fprintf(f, "  <topologies>\n   <cart name=\"Process x Thread\" ndims=\"2\">\n"
               "    <dim name=\"Process\" size=\"%u\" periodic=\"false\"/>\n"
               "    <dim name=\"Thread\" size=\"%u\" periodic=\"false\"/>\n",
            max_rank + 1, max_thread + 1);
    for (uint32_t k = 0; k < nloc; k++)
        fprintf(f, "    <coord locId=\"%u\">%u %u</coord>\n", k, s->rank[k], s->thread[k]);
    fputs("   </cart>\n  </topologies>\n", f);
    fputs(" </system>\n", f);
}

static void write_program(FILE* f, const scorep_report* r, const call_tree* t)
{
    const scorep_unified_definitions* d = r->defs;
    fputs(" <program>\n", f);
    for (uint32_t i = 0; i < d->region_count; i++) {
        const scorep_region_def* rg = &d->regions[i];
        fprintf(f, "  <region id=\"%u\" mod=\"", i);
        xml_text(f, rg->file);
        /* -1: an unknown line */
        fprintf(f, "\" begin=\"%ld\" end=\"%ld\">\n", rg->line ? (long)rg->line : -1L,
                rg->end_line ? (long)rg->end_line : -1L);
        xml_element(f, "   ", "name", rg->name);
        xml_element(f, "   ", "mangled_name", rg->canonical ? rg->canonical : rg->name);
        xml_element(f, "   ", "paradigm", scorep_paradigm_name(rg->paradigm));
        xml_element(f, "   ", "role", scorep_role_name(rg->role));
        fputs("   <url></url>\n", f);
        xml_element(f, "   ", "descr", rg->group ? rg->group : "");
        fputs("  </region>\n", f);
    }
    if (t->count == 0) {
        /* nothing was recorded: Cube needs a call tree, so the program alone
         * stands in it with no values, as in a Score-P run that recorded nothing */
        char program[256];
        const char* cmd = r->command ? r->command : "";
        size_t len = strcspn(cmd, " ");
        const char* base = cmd;
        for (const char* q = cmd; q < cmd + len; q++)
            if (*q == '/') base = q + 1;
        snprintf(program, sizeof program, "%.*s", (int)(cmd + len - base), base);
        fprintf(f, "  <region id=\"%u\" mod=\"\" begin=\"-1\" end=\"-1\">\n", d->region_count);
        xml_element(f, "   ", "name", program[0] ? program : "program");
        xml_element(f, "   ", "mangled_name", program[0] ? program : "program");
        fputs("   <paradigm>measurement</paradigm>\n   <role>artificial</role>\n   <url></url>\n   <descr></descr>\n"
              "  </region>\n",
              f);
        fprintf(f, "<cnode id=\"0\" calleeId=\"%u\">\n</cnode>\n </program>\n", d->region_count);
        return;
    }
    uint32_t open = 0;
    for (uint32_t c = 0; c < t->count; c++) {
        for (; open > t->depth[c]; open--) fputs("</cnode>\n", f);
        const scorep_report_callpath* cp = &r->callpaths[t->order[c]];
        uint32_t region = cp->region < d->region_count ? cp->region : 0;
        fprintf(f, "<cnode id=\"%u\" calleeId=\"%u\">\n", c, region);
        if (cp->parameter != SCOREP_INVALID_ID && cp->parameter < d->parameter_count) {
            const scorep_parameter_def* p = &d->parameters[cp->parameter];
            fputs("<parameter partype=\"", f);
            fputs(p->type == SCOREP_PARAMETER_STRING ? "string" : "numeric", f);
            fputs("\" parkey=\"", f);
            xml_text(f, p->name);
            fputs("\" parvalue=\"", f);
            if (p->type == SCOREP_PARAMETER_STRING)
                xml_text(f, (uint64_t)cp->parameter_value < d->string_count ? d->strings[cp->parameter_value] : "");
            else
                fprintf(f, "%" PRId64, cp->parameter_value);
            fputs("\"/>\n", f);
        }
        open++;
    }
    for (; open > 0; open--) fputs("</cnode>\n", f);
    fputs(" </program>\n", f);
}

static void write_anchor(FILE* f, const scorep_report* r, const call_tree* t, const system_order* sys,
                         const cube_metric* metrics, size_t nmetrics)
{
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<cube version=\"4.4\">\n", f);
    fputs(" <attr key=\"Creator\" value=\"scorep-wrapgen\"/>\n", f);
    /* tools that aggregate the call tree (cube_stat, CubeGUI) sum by this */
    fputs(" <attr key=\"CUBE_CT_AGGR\" value=\"SUM\"/>\n", f);
    fprintf(f, " <attr key=\"Score-P::DefinitionCounters::Parameter\" value=\"%u\"/>\n", r->defs->parameter_count);
    fprintf(f, " <attr key=\"scorep-wrapgen::partial\" value=\"%s\"/>\n", r->partial ? "true" : "false");
    fputs(" <attr key=\"scorep-wrapgen::timer\" value=\"", f);
    xml_text(f, r->timer);
    fputs("\"/>\n <attr key=\"scorep-wrapgen::start\" value=\"", f);
    xml_text(f, r->start);
    fputs("\"/>\n <attr key=\"scorep-wrapgen::command\" value=\"", f);
    xml_text(f, r->command);
    fputs("\"/>\n <metrics>\n", f);
    for (size_t i = 0; i < nmetrics; i++) {
        const cube_metric* m = &metrics[i];
        fprintf(f, "  <metric id=\"%zu\" type=\"%s\">\n", i, m->kind);
        xml_element(f, "   ", "disp_name", m->disp);
        xml_element(f, "   ", "uniq_name", m->uniq);
        xml_element(f, "   ", "dtype", m->dtype);
        xml_element(f, "   ", "uom", m->uom);
        fputs("   <url></url>\n", f);
        xml_element(f, "   ", "descr", m->descr);
        fputs("  </metric>\n", f);
    }
    fputs(" </metrics>\n", f);
    write_program(f, r, t);
    write_system(f, r, sys);
    fputs("</cube>\n", f);
}

/* ---- tar (POSIX ustar): a header block per member, data padded to 512 ---- */

static int tar_header(FILE* f, const char* name, uint64_t size)
{
    unsigned char h[512] = {0};
    snprintf((char*)h, 100, "%s", name);
    memcpy(h + 100, "0000644", 8);
    memcpy(h + 108, "0000000", 8);
    memcpy(h + 116, "0000000", 8);
    snprintf((char*)h + 124, 12, "%011" PRIo64, size);
    snprintf((char*)h + 136, 12, "%011llo", (unsigned long long)time(NULL));
    memset(h + 148, ' ', 8);
    h[156] = '0';
    memcpy(h + 257, "ustar", 6);
    memcpy(h + 263, "00", 2);
    unsigned sum = 0;
    for (int i = 0; i < 512; i++) sum += h[i];
    snprintf((char*)h + 148, 8, "%06o", sum);
    return fwrite(h, 1, 512, f) == 512 ? 0 : -1;
}

static int tar_pad(FILE* f, uint64_t size)
{
    static const unsigned char zeros[512];
    size_t pad = (size_t)((512 - size % 512) % 512);
    if (fwrite(zeros, 1, pad, f) != pad) return -1;
    /* CubeLib's tar reader (CubeTarReader.cpp, calculate_pos_of_next_header)
     * looks for the next header one block further than tar puts it after a
     * member whose size is a whole number of blocks: cube_remap2 and the
     * other Cube tools then miss every member after it (seen with an
     * anchor.xml of 10,752 bytes: "No remapping specification found inside
     * the cube"). An empty member in that block is what both read alike:
     * tar and Python's tarfile list it, CubeLib steps over it. */
    if (size > 0 && pad == 0) return tar_header(f, "cube-tar-alignment", 0);
    return 0;
}

/* The remapping specification (runtime/profile/cube_remapping.spec, compiled in by
 * runtime/embed_text.py): cube_remap2, Scalasca and CubeGUI look for a member
 * of this name to derive Score-P's metric hierarchy (MPI, I/O, bytes, ...)
 * from the stored metrics, as they do for Score-P's files. */
extern const char scorep_cube_remapping_spec[];
extern const unsigned long scorep_cube_remapping_spec_size;

static int write_remapping_spec(FILE* f)
{
    uint64_t size = scorep_cube_remapping_spec_size;
    if (tar_header(f, "remapping.spec", size) != 0) return -1;
    if (fwrite(scorep_cube_remapping_spec, 1, size, f) != size) return -1;
    return tar_pad(f, size);
}

/* Whether row r (the cells[*i..] of that row id, advancing *i past them) has
 * a value other than the neutral one; into out (nloc values) if given. */
static int row_values(const cube_metric* m, const cell* cells, size_t ncells, size_t* i, uint32_t r,
                      unsigned char* out)
{
    unsigned char v[8];
    int any = 0;
    for (; *i < ncells && cells[*i].cnode == r; (*i)++)
        any |= cell_value(m, cells[*i].row, out ? out + 8ull * cells[*i].location : v);
    return any;
}

/* one metric's <m>.index and <m>.data over the cells, sorted by row id */
static int write_metric(FILE* f, size_t id, const cube_metric* m, const cell* cells, size_t ncells, uint32_t nloc,
                        uint32_t nrows, unsigned char* row)
{
    /* CubeLib reads a MAXDOUBLE row that is not there as -DBL_MAX, which
     * cube_sanity takes for a negative value: maxima get every row */
    int dense = strcmp(m->dtype, "MAXDOUBLE") == 0;
    uint32_t present = 0;
    size_t i = 0;
    for (uint32_t r = 0; r < nrows; r++) present += row_values(m, cells, ncells, &i, r, NULL) || dense;
    char name[32];
    static const char index_magic[] = "CUBEX.INDEX";
    uint64_t index_size = 11 + 4 + 2 + 1 + 4 + 4ull * present;
    snprintf(name, sizeof name, "%zu.index", id);
    if (tar_header(f, name, index_size) != 0) return -1;
    int32_t endianness = 1;
    uint16_t version = 0;
    uint8_t sparse = 1;
    fwrite(index_magic, 1, 11, f);
    fwrite(&endianness, 4, 1, f);
    fwrite(&version, 2, 1, f);
    fwrite(&sparse, 1, 1, f);
    fwrite(&present, 4, 1, f);
    i = 0;
    for (uint32_t r = 0; r < nrows; r++)
        if (row_values(m, cells, ncells, &i, r, NULL) || dense) fwrite(&r, 4, 1, f);
    if (tar_pad(f, index_size) != 0) return -1;

    uint64_t data_size = 10 + 8ull * nloc * present;
    snprintf(name, sizeof name, "%zu.data", id);
    if (tar_header(f, name, data_size) != 0) return -1;
    fwrite("CUBEX.DATA", 1, 10, f);
    /* a location that never visited the call path holds the metric's neutral
     * value: for a minimum DBL_MAX, Cube's "no minimum"; maxima here are of
     * values never below 0, so 0 serves them */
    unsigned char none[8] = {0};
    double neutral = m->value == VALUE_MIN_SECONDS ? DBL_MAX : 0;
    if (neutral != 0) memcpy(none, &neutral, 8);
    i = 0;
    for (uint32_t r = 0; r < nrows; r++) {
        for (uint32_t k = 0; k < nloc; k++) memcpy(row + 8ull * k, none, 8);
        if ((row_values(m, cells, ncells, &i, r, row) || dense) && fwrite(row, 8, nloc, f) != nloc) return -1;
    }
    return tar_pad(f, data_size);
}

/* Two rows of one location on one call path (not made by profile_collect.c
 * today) are merged into a copy, so that each cell is one value. */
static scorep_report_row* merge_duplicates(cell* cells, size_t* ncells)
{
    size_t dup = 0;
    for (size_t i = 1; i < *ncells; i++) dup += compare_cells(&cells[i - 1], &cells[i]) == 0;
    if (!dup) return NULL;
    scorep_report_row* merged = malloc(dup * sizeof *merged);
    if (!merged) return NULL;
    size_t out = 0, used = 0;
    for (size_t i = 0; i < *ncells; i++) {
        if (out && compare_cells(&cells[out - 1], &cells[i]) == 0) {
            scorep_report_row* m = &merged[used++];
            *m = *cells[out - 1].row;
            const scorep_profile_numbers* b = &cells[i].row->n;
            scorep_profile_numbers_add(&m->n, b);
            for (int k = 0; k < SCOREP_PROFILE_MAX_METRICS; k++) m->metrics[k] += cells[i].row->metrics[k];
            cells[out - 1].row = m;
        } else
            cells[out++] = cells[i];
    }
    *ncells = out;
    return merged;
}

int scorep_report_write_cube(const scorep_report* r, const char* path)
{
    const scorep_unified_definitions* d = r->defs;
    uint32_t ndefined = d->location_count;
    /* Cube needs a location and a call tree: a process that recorded nothing
     * still has its master thread, as in Score-P */
    uint32_t nloc = ndefined ? ndefined : (uint32_t)(r->ranks > 0 ? r->ranks : 1);
    call_tree t = {0};
    system_order sys = {nloc, malloc((nloc + 1) * sizeof *sys.rank), malloc((nloc + 1) * sizeof *sys.thread),
                        ndefined ? calloc(nloc + 1, sizeof *sys.location) : NULL};
    uint32_t* loc_id = malloc((ndefined + 1) * sizeof *loc_id);
    cell* cells = malloc((r->row_count + 1) * sizeof *cells);
    unsigned char* row = malloc(8ull * nloc + 8);
    uint32_t nuser = d->metric_count < SCOREP_PROFILE_MAX_METRICS ? d->metric_count : SCOREP_PROFILE_MAX_METRICS;
    int sampled = 0;
    for (size_t i = 0; i < r->row_count && !sampled; i++) sampled = r->rows[i].n.hits != 0;
    size_t nfixed = FIXED_METRICS + (sampled ? 1 : 0);
    size_t nmetrics = nfixed + nuser;
    cube_metric* metrics = malloc(nmetrics * sizeof *metrics);
    char* anchor = NULL;
    size_t anchor_size = 0;
    scorep_report_row* merged = NULL;
    uint32_t* wide = NULL;
    cell* cells_wide = NULL;
    FILE* f = NULL;
    int status = -1;
    if (!sys.rank || !sys.thread || (ndefined && !sys.location) || !loc_id || !cells || !row || !metrics ||
        call_tree_build(r, &t) != 0) {
        errno = ENOMEM;
        goto done;
    }
    if (ndefined) {
        location_key* keys = malloc(ndefined * sizeof *keys);
        if (!keys) goto done;
        for (uint32_t i = 0; i < ndefined; i++)
            keys[i] = (location_key){(uint64_t)d->location_rank[i] << 32 | d->location_thread[i], i};
        qsort(keys, ndefined, sizeof *keys, compare_location_keys);
        for (uint32_t i = 0; i < ndefined; i++) {
            uint32_t l = keys[i].location;
            sys.rank[i] = d->location_rank[l], sys.thread[i] = d->location_thread[l], loc_id[l] = i;
            if (sys.location) sys.location[i] = l;
        }
        free(keys);
    } else {
        for (uint32_t i = 0; i < nloc; i++) sys.rank[i] = i, sys.thread[i] = 0;
    }

    memcpy(metrics, fixed_metrics, HITS_AFTER * sizeof *fixed_metrics);
    if (sampled) metrics[HITS_AFTER] = hits_metric;
    memcpy(metrics + HITS_AFTER + sampled, fixed_metrics + HITS_AFTER, (FIXED_METRICS - HITS_AFTER) * sizeof *fixed_metrics);
    for (uint32_t i = 0; i < nuser; i++) {
        /* metrics of adapters and users (scorep_metric_add), typed as Score-P
         * types its own: summed as signed or unsigned integers, or a maximum
         * (MAXDOUBLE, Cube's only maximum); a name taken by one of the fixed
         * metrics gets a prefix */
        const scorep_metric_def* def = &d->metrics[i];
        const char* name = def->name ? def->name : "metric";
        int taken = 0;
        for (size_t k = 0; k < FIXED_METRICS; k++) taken |= strcmp(name, fixed_metrics[k].uniq) == 0;
        cube_metric* m = &metrics[nfixed + i];
        const char* dtype = def->kind == SCOREP_METRIC_MAXIMUM        ? "MAXDOUBLE"
                            : def->kind == SCOREP_METRIC_SUM_UNSIGNED ? "UINT64"
                                                                      : "INT64";
        *m = (cube_metric){"", "", dtype, def->unit ? def->unit : "", "EXCLUSIVE",
                           def->description && def->description[0] ? def->description
                                                                   : "User metric (scorep_metric_add)",
                           def->kind == SCOREP_METRIC_MAXIMUM ? VALUE_USER_MAX : VALUE_USER, i};
        snprintf(m->uniq, sizeof m->uniq, "%s%s", taken ? "user_" : "", name);
        m->disp = name;
        if (scorep_report_metric_is_strict(def)) {
            /* strict metrics as Score-P writes them: each call path's value
             * with its callees', and a unique name CubePL can use (a perf
             * event's dashes as underscores: task_clock) */
            m->dtype = "UINT64";
            m->kind = "INCLUSIVE";
            for (char* c = m->uniq; *c; c++)
                if (!(isalnum((unsigned char)*c) || *c == '_')) *c = '_';
        }
    }

    size_t ncells = 0;
    for (size_t i = 0; i < r->row_count; i++) {
        const scorep_report_row* rw = &r->rows[i];
        if (rw->location >= ndefined || rw->callpath >= r->callpath_count) continue;
        uint32_t cnode = t.cnode_of[rw->callpath];
        if (cnode == SCOREP_INVALID_ID) continue;
        cells[ncells++] = (cell){cnode, loc_id[rw->location], rw};
    }
    qsort(cells, ncells, sizeof *cells, compare_cells);
    merged = merge_duplicates(cells, &ncells);
    /* the same cells keyed by the inclusive metrics' row order */
    wide = call_tree_wide_order(&t);
    cells_wide = malloc((ncells + 1) * sizeof *cells_wide);
    if (!wide || !cells_wide) {
        errno = ENOMEM;
        goto done;
    }
    for (size_t i = 0; i < ncells; i++) cells_wide[i] = (cell){wide[cells[i].cnode], cells[i].location, cells[i].row};
    qsort(cells_wide, ncells, sizeof *cells_wide, compare_cells);

    FILE* mem = open_memstream(&anchor, &anchor_size);
    if (!mem) goto done;
    write_anchor(mem, r, &t, &sys, metrics, nmetrics);
    if (fclose(mem) != 0) goto done;

    f = fopen(path, "wb");
    if (!f) goto done;
    static char buffer[1 << 20];
    setvbuf(f, buffer, _IOFBF, sizeof buffer);
    if (tar_header(f, "anchor.xml", anchor_size) != 0 || fwrite(anchor, 1, anchor_size, f) != anchor_size ||
        tar_pad(f, anchor_size) != 0)
        goto done;
    if (write_remapping_spec(f) != 0) goto done;
    for (size_t m = 0; m < nmetrics; m++)
        if (write_metric(f, m, &metrics[m], strcmp(metrics[m].kind, "INCLUSIVE") == 0 ? cells_wide : cells, ncells,
                         nloc, t.count ? t.count : 1, row) != 0)
            goto done;
    static const unsigned char end_blocks[1024];
    if (fwrite(end_blocks, 1, sizeof end_blocks, f) != sizeof end_blocks) goto done;
    status = ferror(f) ? -1 : 0;
done:
    if (f && fclose(f) != 0) status = -1;
    free(anchor);
    free(merged);
    free(wide);
    free(cells_wide);
    free(metrics);
    free(row);
    free(cells);
    free(loc_id);
    free(sys.rank);
    free(sys.thread);
    free(sys.location);
    call_tree_free(&t);
    return status;
}
