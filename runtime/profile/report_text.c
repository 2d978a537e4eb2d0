/* profile.txt, the report a person reads: where the time goes by call path,
 * the whole call tree (indented), what MPI costs per function group, and how
 * evenly the ranks share the work.
 * profile.folded: one "frame;frame;frame value" line per call path
 * (exclusive ns summed over all locations), input for flame-graph tools. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_names.h"
#include "profile_cube.h"

/* One unit per report, chosen so that the largest time has a few digits
 * before the decimal point. */
typedef struct time_unit {
    const char* name;
    double ns;
} time_unit;

static time_unit unit_for(uint64_t largest_ns)
{
    if (largest_ns >= 10000000000ull) return (time_unit){"s", 1e9};
    if (largest_ns >= 10000000ull) return (time_unit){"ms", 1e6};
    return (time_unit){"us", 1e3};
}

static time_unit report_unit;

typedef struct callpath_sum {
    uint32_t callpath;
    uint64_t incl, excl, visits;
} callpath_sum;

static int by_incl_desc(const void* a, const void* b)
{
    const callpath_sum *x = a, *y = b;
    return x->incl < y->incl ? 1 : x->incl > y->incl ? -1 : (x->callpath > y->callpath) - (x->callpath < y->callpath);
}

static callpath_sum* sum_by_callpath(const scorep_report* r)
{
    callpath_sum* s = calloc(r->callpath_count + 1, sizeof *s);
    for (uint32_t i = 0; i < r->callpath_count; i++) s[i].callpath = i;
    for (size_t i = 0; i < r->row_count; i++) {
        callpath_sum* x = &s[r->rows[i].callpath];
        x->incl += r->rows[i].n.time_incl;
        x->excl += r->rows[i].time_excl;
        x->visits += r->rows[i].n.visits;
    }
    return s;
}

static uint32_t region_of_row(const scorep_report* r, const scorep_report_row* row)
{
    return r->callpaths[row->callpath].region;
}

static void write_top_callpaths(FILE* f, const scorep_report* r)
{
    callpath_sum* s = sum_by_callpath(r);
    uint64_t total = 0;
    for (uint32_t i = 0; i < r->callpath_count; i++)
        if (r->callpaths[i].parent == SCOREP_INVALID_ID) total += s[i].incl;
    qsort(s, r->callpath_count, sizeof *s, by_incl_desc);
    fprintf(f, "Top call paths by inclusive time (summed over all locations)\n");
    char incl_head[16], excl_head[16];
    snprintf(incl_head, sizeof incl_head, "incl [%s]", report_unit.name);
    snprintf(excl_head, sizeof excl_head, "excl [%s]", report_unit.name);
    fprintf(f, "%14s %14s %7s %12s  %s\n", incl_head, excl_head, "incl %", "visits", "call path");
    char path[4096];
    for (uint32_t i = 0; i < r->callpath_count && i < 25; i++) {
        scorep_report_path_name(r, s[i].callpath, " > ", path, sizeof path);
        fprintf(f, "%14.3f %14.3f %6.1f%% %12" PRIu64 "  %s\n", s[i].incl / report_unit.ns,
                s[i].excl / report_unit.ns,
                total ? 100.0 * (double)s[i].incl / (double)total : 0.0, s[i].visits, path);
    }
    fputc('\n', f);
    free(s);
}

/* The whole call-path tree, indented by depth, each node's children by
 * inclusive time (largest first). Iterative, so a deeply recursive program
 * cannot overflow the stack during finalisation. */
enum { CALL_TREE_MAX_LINES = 1000 };

static const callpath_sum* tree_sums;

static int tree_order(const void* a, const void* b)
{
    uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
    if (tree_sums[x].incl != tree_sums[y].incl) return tree_sums[x].incl < tree_sums[y].incl ? 1 : -1;
    return (x > y) - (x < y);
}

static void write_call_tree(FILE* f, const scorep_report* r)
{
    uint32_t n = r->callpath_count;
    callpath_sum* s = sum_by_callpath(r);
    /* children of node i: child[first[i] .. first[i + 1]); roots: node n */
    uint32_t* first = calloc((size_t)n + 2, sizeof *first);
    uint32_t* child = malloc(((size_t)n + 1) * sizeof *child);
    uint32_t* fill = calloc((size_t)n + 1, sizeof *fill);
    uint32_t* stack = malloc(((size_t)n + 1) * sizeof *stack);
    uint32_t* depth = calloc((size_t)n + 1, sizeof *depth);
    if (!first || !child || !fill || !stack || !depth) goto out;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t p = r->callpaths[i].parent;
        first[(p == SCOREP_INVALID_ID || p >= n ? n : p) + 1]++;
    }
    for (uint32_t i = 0; i <= n; i++) first[i + 1] += first[i];
    for (uint32_t i = 0; i < n; i++) {
        uint32_t p = r->callpaths[i].parent;
        if (p == SCOREP_INVALID_ID || p >= n) p = n;
        child[first[p] + fill[p]++] = i;
    }
    tree_sums = s;
    for (uint32_t i = 0; i <= n; i++)
        if (first[i + 1] - first[i] > 1) qsort(child + first[i], first[i + 1] - first[i], sizeof *child, tree_order);

    fprintf(f, "Call tree (summed over all locations; children by inclusive time)\n");
    char incl_head[16], excl_head[16];
    snprintf(incl_head, sizeof incl_head, "incl [%s]", report_unit.name);
    snprintf(excl_head, sizeof excl_head, "excl [%s]", report_unit.name);
    fprintf(f, "%14s %14s %12s  %s\n", incl_head, excl_head, "visits", "call path");
    size_t top = 0, lines = 0;
    for (uint32_t k = first[n + 1]; k > first[n]; k--) stack[top++] = child[k - 1];
    while (top > 0) {
        uint32_t c = stack[--top];
        if (lines == CALL_TREE_MAX_LINES) {
            fprintf(f, "  ... more call paths not shown (%u in all; profile.json has every one)\n", n);
            break;
        }
        char frame[512];
        scorep_report_frame_name(r, c, frame, sizeof frame);
        unsigned indent = depth[c] < 40 ? 2 * depth[c] : 80;
        fprintf(f, "%14.3f %14.3f %12" PRIu64 "  %*s%s\n", s[c].incl / report_unit.ns, s[c].excl / report_unit.ns,
                s[c].visits, (int)indent, "", frame);
        lines++;
        for (uint32_t k = first[c + 1]; k > first[c]; k--) {
            depth[child[k - 1]] = depth[c] + 1;
            stack[top++] = child[k - 1];
        }
    }
    fputc('\n', f);
out:
    free(first);
    free(child);
    free(fill);
    free(stack);
    free(depth);
    free(s);
}

typedef struct group_sum {
    const char* group;
    uint64_t visits, time, bytes_sent, bytes_received, messages_sent, messages_received, collectives;
} group_sum;

static void write_mpi_summary(FILE* f, const scorep_report* r)
{
    const scorep_unified_definitions* d = r->defs;
    group_sum groups[64];
    int ngroups = 0;
    for (size_t i = 0; i < r->row_count; i++) {
        const scorep_report_row* row = &r->rows[i];
        const scorep_report_callpath* cp = &r->callpaths[row->callpath];
        if (cp->parameter != SCOREP_INVALID_ID || cp->region >= d->region_count) continue;
        const scorep_region_def* rg = &d->regions[cp->region];
        if (rg->paradigm != SCOREP_PARADIGM_MPI) continue;
        const char* name = rg->group ? rg->group : "(none)";
        int g = 0;
        while (g < ngroups && strcmp(groups[g].group, name) != 0) g++;
        if (g == ngroups) {
            if (ngroups == 64) continue;
            memset(&groups[ngroups], 0, sizeof groups[0]);
            groups[ngroups++].group = name;
        }
        groups[g].visits += row->n.visits;
        groups[g].time += row->n.time_incl;
        groups[g].bytes_sent += row->n.bytes_sent;
        groups[g].bytes_received += row->n.bytes_received;
        groups[g].messages_sent += row->n.messages_sent;
        groups[g].messages_received += row->n.messages_received;
        groups[g].collectives += row->n.collectives;
    }
    fprintf(f, "MPI summary by function group (summed over all locations)\n");
    if (!ngroups) {
        fprintf(f, "  no MPI calls recorded\n\n");
        return;
    }
    char time_head[16];
    snprintf(time_head, sizeof time_head, "time [%s]", report_unit.name);
    fprintf(f, "%-12s %12s %14s %16s %16s %12s %12s %12s\n", "group", "visits", time_head, "bytes sent",
            "bytes received", "msgs sent", "msgs recvd", "collectives");
    for (int g = 0; g < ngroups; g++)
        fprintf(f, "%-12s %12" PRIu64 " %14.3f %16" PRIu64 " %16" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 "\n",
                groups[g].group, groups[g].visits, groups[g].time / report_unit.ns, groups[g].bytes_sent,
                groups[g].bytes_received, groups[g].messages_sent, groups[g].messages_received,
                groups[g].collectives);
    fputc('\n', f);
}

/* POSIX I/O (regions of paradigm io: the I/O adapter, runtime/io_adapter/),
 * per function: visits, time and the bytes moved. Only when any were
 * recorded (scorep --io=posix). MPI-IO's bytes stay with the MPI calls. */
typedef struct io_sum {
    const char* name;
    uint64_t visits, time, bytes_read, bytes_written;
} io_sum;

static void write_io_summary(FILE* f, const scorep_report* r)
{
    const scorep_unified_definitions* d = r->defs;
    io_sum calls[64];
    int ncalls = 0;
    for (size_t i = 0; i < r->row_count; i++) {
        const scorep_report_row* row = &r->rows[i];
        const scorep_report_callpath* cp = &r->callpaths[row->callpath];
        if (cp->parameter != SCOREP_INVALID_ID || cp->region >= d->region_count) continue;
        const scorep_region_def* rg = &d->regions[cp->region];
        if (rg->paradigm != SCOREP_PARADIGM_IO) continue;
        int c = 0;
        while (c < ncalls && strcmp(calls[c].name, rg->name) != 0) c++;
        if (c == ncalls) {
            if (ncalls == 64) continue;
            memset(&calls[ncalls], 0, sizeof calls[0]);
            calls[ncalls++].name = rg->name;
        }
        calls[c].visits += row->n.visits;
        calls[c].time += row->n.time_incl;
        calls[c].bytes_read += row->n.bytes_read;
        calls[c].bytes_written += row->n.bytes_written;
    }
    char time_head[16];
    snprintf(time_head, sizeof time_head, "time [%s]", report_unit.name);
    if (ncalls) {
        fprintf(f, "I/O summary by function (summed over all locations)\n");
        fprintf(f, "%-16s %12s %14s %16s %16s\n", "function", "visits", time_head, "bytes read", "bytes written");
        for (int c = 0; c < ncalls; c++)
            fprintf(f, "%-16s %12" PRIu64 " %14.3f %16" PRIu64 " %16" PRIu64 "\n", calls[c].name, calls[c].visits,
                    calls[c].time / report_unit.ns, calls[c].bytes_read, calls[c].bytes_written);
        fputc('\n', f);
    }
    /* per file (io_files.c): the transfers on files the adapters gave a
     * handle (opened through a wrapper, or stdin/stdout/stderr); the file name
     * last, whole, since paths are long */
    if (!r->io_file_count) return;
    fprintf(f, "I/O summary by file (transfers, summed over all locations)\n");
    fprintf(f, "%12s %14s %16s %16s  %s\n", "visits", time_head, "bytes read", "bytes written", "file");
    for (size_t i = 0; i < r->io_file_count; i++) {
        const scorep_io_file_total* t = &r->io_files[i];
        fprintf(f, "%12" PRIu64 " %14.3f %16" PRIu64 " %16" PRIu64 "  %s\n", t->visits,
                t->time_ns / report_unit.ns, t->bytes_read, t->bytes_written,
                t->name ? t->name : "(other files: beyond the per-process table)");
    }
    fputc('\n', f);
}

/* Memory (the memory adapter, runtime/memory_adapter/: scorep --memory), from
 * its metrics: the bytes allocated and freed (allocation_size,
 * deallocation_size summed over all call paths), the high-water mark of each
 * process (maximum_heap_memory_allocated, on the call path of the allocation
 * that reached it) and the leaks (bytes_leaked, leaks) per allocating call
 * path, summed over the locations. Only when the adapter recorded anything. docs/MEMORY_ADAPTER.md. */
static uint32_t metric_named(const scorep_unified_definitions* d, const char* name)
{
    for (uint32_t m = 0; m < d->metric_count && m < SCOREP_PROFILE_MAX_METRICS; m++)
        if (d->metrics[m].name && strcmp(d->metrics[m].name, name) == 0) return m;
    return SCOREP_INVALID_ID;
}

static int64_t metric_of(const scorep_report_row* row, uint32_t m)
{
    return m == SCOREP_INVALID_ID ? 0 : row->metrics[m];
}

static void write_memory_summary(FILE* f, const scorep_report* r)
{
    const scorep_unified_definitions* d = r->defs;
    uint32_t alloc = metric_named(d, "allocation_size"), dealloc = metric_named(d, "deallocation_size");
    uint32_t leaked = metric_named(d, "bytes_leaked"), leaks = metric_named(d, "leaks");
    uint32_t high = metric_named(d, "maximum_heap_memory_allocated");
    if (alloc == SCOREP_INVALID_ID) return;
    int64_t allocated = 0, freed = 0, leaked_bytes = 0, leak_count = 0;
    int64_t* high_per_rank = calloc((size_t)(r->ranks > 0 ? r->ranks : 1), sizeof *high_per_rank);
    if (!high_per_rank) return;
    for (size_t i = 0; i < r->row_count; i++) {
        const scorep_report_row* row = &r->rows[i];
        allocated += metric_of(row, alloc);
        freed += metric_of(row, dealloc);
        leaked_bytes += metric_of(row, leaked);
        leak_count += metric_of(row, leaks);
        uint32_t rank = row->location < d->location_count ? d->location_rank[row->location] : 0;
        if (rank < (uint32_t)r->ranks && metric_of(row, high) > high_per_rank[rank])
            high_per_rank[rank] = metric_of(row, high);
    }
    fprintf(f, "Memory (summed over all locations)\n");
    fprintf(f, "allocated: %" PRId64 " bytes\nfreed:     %" PRId64 " bytes\n", allocated, freed);
    for (int k = 0; k < r->ranks; k++)
        fprintf(f, "high-water mark, rank %d: %" PRId64 " bytes\n", k, high_per_rank[k]);
    free(high_per_rank);
    fprintf(f, "leaks:     %" PRId64 " allocations, %" PRId64 " bytes\n", leak_count, leaked_bytes);
    /* per call path, summed over the locations (threads, ranks) that share it */
    int64_t* per_path = leak_count ? calloc(2 * (size_t)r->callpath_count, sizeof *per_path) : NULL;
    if (per_path) {
        for (size_t i = 0; i < r->row_count; i++) {
            const scorep_report_row* row = &r->rows[i];
            if (row->callpath >= r->callpath_count) continue;
            per_path[2 * row->callpath] += metric_of(row, leaks);
            per_path[2 * row->callpath + 1] += metric_of(row, leaked);
        }
        fprintf(f, "%12s %16s  %s\n", "leaks", "bytes", "allocated at (call path)");
        char path[2048];
        for (uint32_t cp = 0; cp < r->callpath_count; cp++) {
            if (!per_path[2 * cp]) continue;
            scorep_report_path_name(r, cp, " > ", path, sizeof path);
            fprintf(f, "%12" PRId64 " %16" PRId64 "  %s\n", per_path[2 * cp], per_path[2 * cp + 1], path);
        }
        free(per_path);
    }
    fputc('\n', f);
}

/* Coarray Fortran, per image (rank + 1): syncs (regions of role barrier:
 * sync all, sync team, sync images) and the time in them, and the remote
 * accesses per target image from the CAF adapter's image=N parameter nodes:
 * bytes put = bytes_put, bytes got = bytes_get of the node (atomics
 * included); puts under _send*, gets under _get* and _sendget*, atomics
 * (event post, atomic_*) under the rest. docs/CAF.md. */
typedef struct caf_sum {
    uint64_t syncs, sync_time, puts, put_bytes, gets, got_bytes, atomics;
} caf_sum;

static void write_caf_summary(FILE* f, const scorep_report* r)
{
    const scorep_unified_definitions* d = r->defs;
    int images = r->ranks > 0 ? r->ranks : 1;
    caf_sum* per_image = calloc((size_t)images, sizeof *per_image);
    caf_sum* per_target = calloc((size_t)images * (size_t)images, sizeof *per_target);
    int seen = 0;
    for (size_t i = 0; per_image && per_target && i < r->row_count; i++) {
        const scorep_report_row* row = &r->rows[i];
        const scorep_report_callpath* cp = &r->callpaths[row->callpath];
        if (cp->region >= d->region_count || row->location >= d->location_count) continue;
        const scorep_region_def* rg = &d->regions[cp->region];
        int rank = (int)d->location_rank[row->location];
        if (rg->paradigm != SCOREP_PARADIGM_CAF || rank < 0 || rank >= images) continue;
        seen = 1;
        if (cp->parameter == SCOREP_INVALID_ID) {
            if (rg->role == SCOREP_ROLE_BARRIER) {
                per_image[rank].syncs += row->n.visits;
                per_image[rank].sync_time += row->n.time_incl;
            }
            continue;
        }
        if (cp->parameter >= d->parameter_count || strcmp(d->parameters[cp->parameter].name, "image") != 0 ||
            cp->parameter_value < 1 || cp->parameter_value > images)
            continue;
        caf_sum* sums[2] = {&per_image[rank], &per_target[(size_t)rank * images + (size_t)(cp->parameter_value - 1)]};
        const char* name = rg->name ? rg->name : "";
        for (int k = 0; k < 2; k++) {
            if (strstr(name, "_sendget") || strstr(name, "_get")) sums[k]->gets += row->n.visits;
            else if (strstr(name, "_send")) sums[k]->puts += row->n.visits;
            else sums[k]->atomics += row->n.visits;
            sums[k]->put_bytes += row->n.bytes_put;
            sums[k]->got_bytes += row->n.bytes_get;
        }
    }
    if (seen) {
        char sync_head[16];
        snprintf(sync_head, sizeof sync_head, "sync [%s]", report_unit.name);
        fprintf(f, "Coarray Fortran per image (syncs: sync all/images/team; bytes from the image=N nodes)\n");
        fprintf(f, "%6s %10s %14s %10s %14s %10s %14s %10s\n", "image", "syncs", sync_head, "puts", "bytes put",
                "gets", "bytes got", "atomics");
        for (int q = 0; q < images; q++)
            fprintf(f, "%6d %10" PRIu64 " %14.3f %10" PRIu64 " %14" PRIu64 " %10" PRIu64 " %14" PRIu64 " %10" PRIu64 "\n",
                    q + 1, per_image[q].syncs, per_image[q].sync_time / report_unit.ns, per_image[q].puts,
                    per_image[q].put_bytes, per_image[q].gets, per_image[q].got_bytes, per_image[q].atomics);
        fprintf(f, "Coarray Fortran remote accesses per target image\n");
        fprintf(f, "%6s %6s %10s %14s %10s %14s %10s\n", "image", "target", "puts", "bytes put", "gets",
                "bytes got", "atomics");
        for (int q = 0; q < images; q++)
            for (int t = 0; t < images; t++) {
                const caf_sum* s = &per_target[(size_t)q * images + (size_t)t];
                if (s->puts || s->gets || s->atomics || s->put_bytes || s->got_bytes)
                    fprintf(f, "%6d %6d %10" PRIu64 " %14" PRIu64 " %10" PRIu64 " %14" PRIu64 " %10" PRIu64 "\n", q + 1,
                            t + 1, s->puts, s->put_bytes, s->gets, s->got_bytes, s->atomics);
            }
        fputc('\n', f);
    }
    free(per_image);
    free(per_target);
}

typedef struct region_total {
    uint32_t region;
    uint64_t excl;
} region_total;

static int by_excl_desc(const void* a, const void* b)
{
    const region_total *x = a, *y = b;
    return x->excl < y->excl ? 1 : x->excl > y->excl ? -1 : 0;
}

static void write_imbalance(FILE* f, const scorep_report* r)
{
    const scorep_unified_definitions* d = r->defs;
    int ranks = r->ranks > 0 ? r->ranks : 1;
    region_total* totals = calloc(d->region_count + 1, sizeof *totals);
    for (uint32_t i = 0; i < d->region_count; i++) totals[i].region = i;
    for (size_t i = 0; i < r->row_count; i++) {
        uint32_t rg = region_of_row(r, &r->rows[i]);
        if (rg < d->region_count) totals[rg].excl += r->rows[i].time_excl;
    }
    qsort(totals, d->region_count, sizeof *totals, by_excl_desc);
    fprintf(f, "Per-rank imbalance of exclusive time per region (over %d ranks)\n", ranks);
    char min_head[16], avg_head[16], max_head[16];
    snprintf(min_head, sizeof min_head, "min [%s]", report_unit.name);
    snprintf(avg_head, sizeof avg_head, "avg [%s]", report_unit.name);
    snprintf(max_head, sizeof max_head, "max [%s]", report_unit.name);
    fprintf(f, "%14s %14s %14s %8s %8s  %s\n", min_head, avg_head, max_head, "max rank", "max/avg", "region");
    uint64_t* per_rank = calloc((size_t)ranks, sizeof *per_rank);
    for (uint32_t k = 0; k < d->region_count && k < 15 && totals[k].excl > 0; k++) {
        memset(per_rank, 0, (size_t)ranks * sizeof *per_rank);
        for (size_t i = 0; i < r->row_count; i++) {
            const scorep_report_row* row = &r->rows[i];
            if (region_of_row(r, row) != totals[k].region || row->location >= d->location_count) continue;
            uint32_t rank = d->location_rank[row->location];
            if ((int)rank < ranks) per_rank[rank] += row->time_excl;
        }
        uint64_t mn = UINT64_MAX, mx = 0, sum = 0;
        int mx_rank = 0;
        for (int q = 0; q < ranks; q++) {
            if (per_rank[q] < mn) mn = per_rank[q];
            if (per_rank[q] > mx) { mx = per_rank[q]; mx_rank = q; }
            sum += per_rank[q];
        }
        double avg = (double)sum / ranks;
        const scorep_region_def* rg = &d->regions[totals[k].region];
        char source[1024] = "";
        if (rg->file && rg->line) snprintf(source, sizeof source, "  (%s:%u)", rg->file, rg->line);
        else if (rg->file) snprintf(source, sizeof source, "  (%s)", rg->file);
        else if (rg->line) snprintf(source, sizeof source, "  (line %u)", rg->line);
        fprintf(f, "%14.3f %14.3f %14.3f %8d %8.2f  %s%s\n", mn / report_unit.ns, avg / report_unit.ns,
                mx / report_unit.ns, mx_rank, avg > 0 ? mx / avg : 0.0, rg->name, source);
    }
    fputc('\n', f);
    free(per_rank);
    free(totals);
}

/* which ranks shared a node (and so a clock): one line per host name */
static void write_nodes(FILE* f, const scorep_report* r)
{
    if (!r->hosts || r->ranks < 1) return;
    for (int i = 0; i < r->ranks; i++) {
        const char* host = r->hosts + (size_t)i * SCOREP_CUBE_HOST_NAME_MAX;
        int first = 0;
        while (strcmp(r->hosts + (size_t)first * SCOREP_CUBE_HOST_NAME_MAX, host) != 0) first++;
        if (first < i) continue;  /* listed with its first rank */
        fprintf(f, "node:      %s, ranks", host);
        for (int k = i; k < r->ranks; k++)
            if (strcmp(r->hosts + (size_t)k * SCOREP_CUBE_HOST_NAME_MAX, host) == 0) fprintf(f, " %d", k);
        fputc('\n', f);
    }
    fputc('\n', f);
}

int scorep_report_write_text(const scorep_report* r, const char* path)
{
    FILE* f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "scorep-wrapgen profile%s\n", r->partial ? " (PARTIAL: the program ended abnormally)" : "");
    fprintf(f, "command:   %s\nstarted:   %s\nranks:     %d\nlocations: %u\ntimer:     %s\n\n",
            r->command ? r->command : "?", r->start ? r->start : "?", r->ranks, r->defs->location_count,
            r->timer ? r->timer : "?");
    write_nodes(f, r);
    uint64_t largest = 0;
    for (size_t i = 0; i < r->row_count; i++)
        if (r->rows[i].n.time_incl > largest) largest = r->rows[i].n.time_incl;
    report_unit = unit_for(largest * (uint64_t)(r->defs->location_count ? r->defs->location_count : 1));
    write_top_callpaths(f, r);
    write_call_tree(f, r);
    write_mpi_summary(f, r);
    write_caf_summary(f, r);
    write_io_summary(f, r);
    write_memory_summary(f, r);
    scorep_report_write_strict_metrics(f, r);
    write_imbalance(f, r);
    int bad = ferror(f);
    return fclose(f) != 0 || bad ? -1 : 0;
}

int scorep_report_write_folded(const scorep_report* r, const char* path)
{
    FILE* f = fopen(path, "w");
    if (!f) return -1;
    callpath_sum* s = sum_by_callpath(r);
    char line[8192];
    for (uint32_t i = 0; i < r->callpath_count; i++) {
        if (!s[i].excl) continue;
        scorep_report_path_name(r, i, ";", line, sizeof line);
        fprintf(f, "%s %" PRIu64 "\n", line, s[i].excl);
    }
    free(s);
    int bad = ferror(f);
    return fclose(f) != 0 || bad ? -1 : 0;
}
