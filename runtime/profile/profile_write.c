/* The profile substrate's output: profile.json, profile.txt, profile.folded
 * and (SCOREP_PROFILING_FORMAT) profile.cubex on rank 0. After an abnormal
 * end each rank writes its own part (profile.rank<R>.json ...) because the
 * ranks can no longer talk. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "config.h"
#include "process_info.h"
#include "report.h"
#include "process_hosts.h"
#include "profile_cube.h"
#include "timer.h"

int scorep_profile_write(const scorep_finalize_context* ctx)
{
    scorep_report* r = scorep_profile_collect(ctx->defs, ctx->emergency);
    /* collective: every rank takes part, whatever its own SCOREP_PROFILING_FORMAT
     * says (a rank that skipped it would leave the others waiting) */
    char* hosts = scorep_process_hosts(ctx);
    scorep_clock_offset* offsets =
        scorep_timer_gather_offsets(ctx->emergency ? NULL : ctx->mpp, ctx->rank, ctx->size);
    size_t io_file_count;
    scorep_io_file_total* io_files = scorep_io_files_collect(ctx, &io_file_count);   /* collective too */
    if (!r) {
        free(hosts);
        free(offsets);
        free(io_files);
        return 0;
    }
    r->io_files = io_files;
    r->io_file_count = io_file_count;
    r->clock_offsets = offsets;
    r->ticks_per_second = ctx->ticks_per_second;
    r->hosts = hosts;
    r->ranks = ctx->size;
    r->timer = scorep_timer_name();
    r->start = scorep_process_start_time();
    r->command = scorep_process_command_line();
    r->partial = ctx->emergency;
    char suffix[32] = "";
    if (ctx->emergency && ctx->size > 1) snprintf(suffix, sizeof suffix, ".rank%d", ctx->rank);
    struct {
        const char* extension;
        int (*write)(const scorep_report*, const char*);
    } outputs[] = {{"json", scorep_report_write_json},
                   {"txt", scorep_report_write_text},
                   {"folded", scorep_report_write_folded},
                   {"cubex", scorep_report_write_cube}};
    int status = 0;
    for (size_t i = 0; i < sizeof outputs / sizeof *outputs; i++) {
        if (outputs[i].write == scorep_report_write_cube && !scorep_cfg.profiling_cube) continue;
        /* written under a temporary name and renamed: a process killed while
         * writing leaves no truncated file behind */
        char path[PATH_MAX], partial[PATH_MAX + 8];
        snprintf(path, sizeof path, "%s/profile%s.%s", ctx->directory, suffix, outputs[i].extension);
        snprintf(partial, sizeof partial, "%s.part", path);
        if (outputs[i].write(r, partial) != 0 || rename(partial, path) != 0) {
            scorep_warning("cannot write '%s': %s", path, strerror(errno));
            remove(partial);
            status = -1;
        }
    }
    scorep_report_free(r);
    free(hosts);
    free(offsets);
    return status;
}
