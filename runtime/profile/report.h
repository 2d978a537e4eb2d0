#ifndef SCOREP_WRAPGEN_REPORT_H
#define SCOREP_WRAPGEN_REPORT_H

#include "profile.h"
#include "internal.h"
#include "timer.h"

/* ---- reports ---- */
/* A whole-experiment profile as rank 0 sees it after unification. */
typedef struct scorep_report_row {
    uint32_t location;   /* index into the unified location arrays */
    uint32_t callpath;
    scorep_profile_numbers n;  /* times already in ns */
    uint64_t time_excl;        /* ns */
    int64_t metrics[SCOREP_PROFILE_MAX_METRICS]; /* indexed by global metric id */
    /* a strict metric's (scorep_report_metric_is_strict) exclusive value:
     * its inclusive one minus the children's, as time_excl */
    int64_t metrics_excl[SCOREP_PROFILE_MAX_METRICS];
} scorep_report_row;
/* the metric is a synchronous strict one (SCOREP_METRIC_RUSAGE, _PERF):
 * its values are inclusive */
static inline int scorep_report_metric_is_strict(const scorep_metric_def* m)
{
    return m->kind == SCOREP_METRIC_STRICT_RUSAGE || m->kind == SCOREP_METRIC_STRICT_PERF ||
           m->kind == SCOREP_METRIC_STRICT_PAPI;
}
typedef struct scorep_report_callpath {
    uint32_t region;     /* global region id */
    uint32_t parent;     /* SCOREP_INVALID_ID for roots */
    uint32_t parameter;  /* global parameter id or SCOREP_INVALID_ID */
    int64_t parameter_value; /* int, or global string id */
} scorep_report_callpath;
/* ---- per-file I/O totals (io_files.c) ---- */
typedef struct scorep_io_file_total {
    const char* name;   /* the file's name; NULL: the files beyond the per-process table */
    uint64_t visits, bytes_read, bytes_written, time_ns;
} scorep_io_file_total;
/* the I/O operation events' hooks (events.c), on the transfer's thread */
/* hidden: called per transfer from events.c, directly (no PLT jump; after
 * the transfer's system call an indirect jump is predicted badly) */
__attribute__((visibility("hidden"))) void scorep_io_files_begin(uint64_t t, scorep_io_handle handle,
                                                                 scorep_io_operation mode);
__attribute__((visibility("hidden"))) void scorep_io_files_complete(uint64_t t, scorep_io_handle handle,
                                                                    uint64_t bytes);
__attribute__((visibility("hidden"))) void scorep_io_files_transfer(uint64_t t_begin, uint64_t t_end,
                                                                    scorep_io_handle handle,
                                                                    scorep_io_operation mode, uint64_t bytes);
/* collective: the totals per file name on rank 0 (malloc'ed, *count entries) */
scorep_io_file_total* scorep_io_files_collect(const scorep_finalize_context* ctx, size_t* count);

typedef struct scorep_report {
    const scorep_unified_definitions* defs;
    int ranks;
    const char* timer;
    const char* start;     /* ISO time */
    const char* command;
    int partial;           /* 1: written after abort/signal */
    const char* hosts;     /* host name of each rank (profile_cube.h), or NULL */
    /* each rank's two clock offsets to rank 0 (timer.h; docs/CLOCKS.md), or NULL */
    const struct scorep_clock_offset* clock_offsets;
    uint64_t ticks_per_second;
    uint32_t callpath_count;
    scorep_report_callpath* callpaths;
    size_t row_count;
    scorep_report_row* rows;
    /* per-file I/O totals (io_files.c), or NULL */
    size_t io_file_count;
    scorep_io_file_total* io_files;
} scorep_report;
/* collective: gather all profiles to rank 0; returns the report on rank 0 */
scorep_report* scorep_profile_collect(const scorep_unified_definitions* defs, bool emergency);
void scorep_report_free(scorep_report* r);
int scorep_report_write_json(const scorep_report* r, const char* path);
int scorep_report_write_text(const scorep_report* r, const char* path);
/* profile.txt's section of the strict metrics (report_text_metrics.c) */
void scorep_report_write_strict_metrics(FILE* f, const scorep_report* r);
int scorep_report_write_folded(const scorep_report* r, const char* path);

#endif
