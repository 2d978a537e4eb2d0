/* profile.txt's section of the synchronous strict metrics (SCOREP_METRIC_RUSAGE,
 * SCOREP_METRIC_PERF; docs/METRICS.md): for each, the call paths with the
 * largest inclusive value, summed over all locations, with their exclusive
 * value. Nothing without such a metric. */
#include <inttypes.h>
#include <stdlib.h>

#include "report.h"
#include "report_names.h"

enum { TOP_CALLPATHS = 15 };

typedef struct {
    uint32_t callpath;
    int64_t incl, excl;
} metric_sum;

static int by_incl_desc(const void* a, const void* b)
{
    const metric_sum *x = a, *y = b;
    return x->incl < y->incl ? 1 : x->incl > y->incl ? -1 : (x->callpath > y->callpath) - (x->callpath < y->callpath);
}

static void write_metric(FILE* f, const scorep_report* r, uint32_t m, metric_sum* s)
{
    const scorep_metric_def* def = &r->defs->metrics[m];
    for (uint32_t i = 0; i < r->callpath_count; i++) s[i] = (metric_sum){i, 0, 0};
    for (size_t i = 0; i < r->row_count; i++) {
        metric_sum* x = &s[r->rows[i].callpath];
        x->incl += r->rows[i].metrics[m];
        x->excl += r->rows[i].metrics_excl[m];
    }
    qsort(s, r->callpath_count, sizeof *s, by_incl_desc);
    fprintf(f, "Metric %s [%s]%s%s: top call paths by inclusive value (summed over all locations)\n", def->name,
            def->unit, def->description[0] ? ", " : "", def->description);
    fprintf(f, "%16s %16s  %s\n", "incl", "excl", "call path");
    char path[4096];
    for (uint32_t i = 0; i < r->callpath_count && i < TOP_CALLPATHS && s[i].incl; i++) {
        scorep_report_path_name(r, s[i].callpath, " > ", path, sizeof path);
        fprintf(f, "%16" PRId64 " %16" PRId64 "  %s\n", s[i].incl, s[i].excl, path);
    }
    fputc('\n', f);
}

void scorep_report_write_strict_metrics(FILE* f, const scorep_report* r)
{
    const scorep_unified_definitions* d = r->defs;
    metric_sum* s = NULL;
    for (uint32_t m = 0; m < d->metric_count && m < SCOREP_PROFILE_MAX_METRICS; m++) {
        if (!scorep_report_metric_is_strict(&d->metrics[m])) continue;
        if (!s && !(s = malloc((r->callpath_count + 1) * sizeof *s))) return;
        write_metric(f, r, m, s);
    }
    free(s);
}
