/*
 * Room on the disk, at finalisation (trace_write.c, trace_partial.c).
 *
 * The experiment directory's file system may not hold every event (a full
 * disk, a quota, a small scratch space). Each location then encodes only as
 * many of its first records as fit, its trace ends with a MeasurementOnOff
 * marker and a warning says what is missing; the archive stays readable. The
 * raw bytes bound the encoded ones (OTF2 writes 3 to 40 bytes for a 16 to 48
 * byte raw record), and room is kept for the definitions, written last.
 */
#include <sys/statvfs.h>

#include "trace.h"
#include "timer.h"

uint64_t trace_location_raw_bytes(const trace_location* tl)
{
    uint64_t bytes = 0;
    for (const raw_block* b = tl->first; b != NULL; b = b->next)
        bytes += b == tl->current ? (uint64_t)(tl->raw_next - b->data) : b->used;
    /* spilled blocks: at most a block's size each */
    return bytes + tl->spilled_blocks * trace_memory_chunk_bytes();
}

uint64_t trace_free_bytes(const char* directory)
{
    struct statvfs fs;
    if (statvfs(directory, &fs) != 0)
        return UINT64_MAX;
    return (uint64_t)fs.f_bavail * (uint64_t)fs.f_frsize;
}

/* mine: this rank's raw bytes, all: every rank's (on the same file system),
 * free: the free bytes seen; the raw bytes this rank's events may take */
uint64_t trace_rank_room(const scorep_finalize_context* ctx, uint64_t mine, uint64_t all,
                         uint64_t free)
{
    /* definitions: a file per location, each rank's, the anchor (files take whole blocks) */
    uint64_t reserve = (256u << 10) + (uint64_t)(16u << 10) * (ctx->defs->location_count + (uint64_t)ctx->size);
    if (free == UINT64_MAX || all + reserve <= free || all == 0)
        return UINT64_MAX;
    if (free <= reserve)
        return 0;
    /* in proportion to what each rank recorded; a tenth spare for OTF2's chunk headers */
    return (uint64_t)((double)(free - reserve) * 0.9 * ((double)mine / (double)all));
}

uint64_t trace_location_room(uint64_t rank_room, uint64_t mine, const trace_location* tl)
{
    if (rank_room == UINT64_MAX || mine == 0)
        return UINT64_MAX;
    return (uint64_t)((double)rank_room * ((double)trace_location_raw_bytes(tl) / (double)mine));
}

uint64_t trace_process_raw_bytes(void)
{
    uint64_t bytes = 0;
    for (trace_location* tl = atomic_load(&trace.locations); tl != NULL; tl = tl->next)
        bytes += trace_location_raw_bytes(tl);
    return bytes;
}

void trace_report_cut(const scorep_finalize_context* ctx, const trace_location* tl,
                      const trace_encode_cut* cut)
{
    if (cut->bytes == 0)
        return;
    uint64_t time = scorep_timer_to_master(cut->time); /* the global span is in master time */
    double seconds = time > ctx->global_begin_ticks
                         ? (double)(time - ctx->global_begin_ticks) / (double)ctx->ticks_per_second
                         : 0.0;
    scorep_warning("trace: no space left on the file system of %s: rank %d, location %u: its events "
                   "from %.6f s after the start on (%llu bytes of records) are missing; the trace "
                   "ends there with a MeasurementOnOff(OFF) record", ctx->directory, ctx->rank,
                   tl->location->local_id, seconds, (unsigned long long)cut->bytes);
}
