/*
 * Finalisation of the trace: collective over all ranks, called once per
 * process after the core unified the definitions.
 *
 *   1. every rank encodes its raw blocks into its event writers and closes
 *      them: traces/<location>.evt, all ranks in parallel
 *   2. every rank writes the mapping tables of its locations (traces/<location>.def)
 *   3. the event counts of all locations are gathered on rank 0, which writes
 *      the unified global definitions (traces.def)
 *   4. the archive is closed collectively; rank 0 writes the anchor traces.otf2
 */
#include <stdlib.h>
#include <sys/resource.h>

#include "trace.h"
#include "process_hosts.h"

/* Encodes every location's raw blocks into its event file, as much as the
 * disk has room for (trace_rank_room); fills counts (location order of
 * trace.locations), or without counts discards them. */
static int close_event_writers(const scorep_finalize_context* ctx, uint64_t* counts, uint64_t room)
{
    int failed = 0;
    size_t i = 0;
    uint64_t mine = counts != NULL ? trace_process_raw_bytes() : 0;
    for (trace_location* tl = atomic_load(&trace.locations); tl != NULL; tl = tl->next, i++) {
        if (counts == NULL) {
            trace_blocks_free(tl);
            continue;
        }
        trace_encode_cut cut = {.room = trace_location_room(room, mine, tl)};
        failed |= trace_encode_location(tl, &counts[i], &cut) != 0;
        trace_report_cut(ctx, tl, &cut);
    }
    return failed;
}

static size_t location_count(void)
{
    size_t n = 0;
    for (trace_location* tl = atomic_load(&trace.locations); tl != NULL; tl = tl->next)
        n++;
    return n;
}

/* Out of memory during the collective finalisation: a rank that stops taking
 * part would leave the others hanging in the next collective, so stop them all. */
static _Noreturn void out_of_memory(const scorep_multiprocess_ops* mpp)
{
    scorep_warning("trace: out of memory while finalising the trace");
    if (mpp != NULL && mpp->abort != NULL)
        mpp->abort(1);
    abort();
}

/* Gathers (rank, thread, events) of every location on rank 0 and orders the
 * counts like ctx->defs' location table. Returns NULL on other ranks. */
static uint64_t* gather_event_counts(const scorep_finalize_context* ctx, const uint64_t* counts,
                                     size_t n)
{
    const scorep_multiprocess_ops* mpp = ctx->mpp;
    int root = ctx->rank == 0;
    uint64_t* mine = malloc((n ? n : 1) * 2 * sizeof *mine);
    uint64_t* per_rank = root ? calloc(ctx->size, sizeof *per_rank) : NULL;
    size_t* byte_counts = root ? calloc(ctx->size, sizeof *byte_counts) : NULL;
    size_t* displacements = root ? calloc(ctx->size, sizeof *displacements) : NULL;
    uint64_t* all = NULL;
    uint64_t* ordered = NULL;
    if (mine == NULL || (root && (!per_rank || !byte_counts || !displacements)))
        out_of_memory(mpp);
    size_t i = 0;
    for (trace_location* tl = atomic_load(&trace.locations); tl != NULL; tl = tl->next, i++) {
        mine[2 * i] = tl->location->local_id;
        mine[2 * i + 1] = counts[i];
    }
    uint64_t mine_count = n;
    mpp->gather(&mine_count, sizeof mine_count, per_rank, 0);
    size_t total = 0;
    if (root) {
        for (int r = 0; r < ctx->size; r++) {
            byte_counts[r] = per_rank[r] * 2 * sizeof(uint64_t);
            displacements[r] = total * 2 * sizeof(uint64_t);
            total += per_rank[r];
        }
        all = malloc((total ? total : 1) * 2 * sizeof *all);
        if (all == NULL)
            out_of_memory(mpp);
    }
    mpp->gatherv(mine, n * 2 * sizeof(uint64_t), all, byte_counts, displacements, 0);
    if (root) {
        const scorep_unified_definitions* defs = ctx->defs;
        ordered = calloc(defs->location_count ? defs->location_count : 1, sizeof *ordered);
        if (ordered == NULL)
            out_of_memory(mpp);
        for (uint32_t l = 0; l < defs->location_count; l++) {
            uint32_t rank = defs->location_rank[l];
            size_t first = displacements[rank] / (2 * sizeof(uint64_t));
            for (uint64_t k = 0; k < per_rank[rank]; k++)
                if (all[2 * (first + k)] == defs->location_thread[l])
                    ordered[l] = all[2 * (first + k) + 1];
        }
    }
    free(mine);
    free(per_rank);
    free(byte_counts);
    free(displacements);
    free(all);
    return ordered;
}

/* OTF2 readers (otf2-print, Vampir, python3-otf2) open the event files of
 * all locations at once: past their descriptor limit they fail ("Too many
 * opened files"). Threads alive at the same time each have a location, so a
 * run can exceed what this process may open; say so, with the remedy, while
 * the user can still act. */
static void warn_if_readers_need_more_files(uint32_t locations)
{
    struct rlimit limit;
    const uint64_t needed = (uint64_t)locations + 16;  /* and the archive's other files */
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY
        || needed <= (uint64_t)limit.rlim_cur)
        return;
    scorep_warning("trace: the trace has %u locations (threads alive at the same time, over all "
                   "ranks); OTF2 readers such as otf2-print open one file per location at once, "
                   "more than the limit of %llu open files here: read it after 'ulimit -n %llu'",
                   locations, (unsigned long long)limit.rlim_cur, (unsigned long long)needed);
}

int trace_write(const scorep_finalize_context* ctx)
{
    if (trace.archive == NULL)
        return -1;
    int failed = 0;
    size_t n = location_count();
    uint64_t* counts = calloc(n ? n : 1, sizeof *counts);
    if (counts == NULL)
        out_of_memory(ctx->mpp);
    if (trace_is_partial(ctx)) {
        /* No collectives possible: this rank's events go to traces/, and
         * its definitions into an archive of its own, readable after every
         * step (the launcher may kill the rank meanwhile). */
        int written = 0;
        failed |= trace_write_partial_archive(ctx, counts, &written);
        trace.archive = NULL;  /* closing the shared one would need collectives */
        free(counts);
        trace_private_directory_remove();
        if (written == (int)n)
            scorep_warning("trace: abnormal end: rank %d wrote its part of the trace (%zu location%s) as "
                           "%s/traces.rank%d.otf2", ctx->rank, n, n == 1 ? "" : "s", ctx->directory, ctx->rank);
        else if (written > 0 || !failed)
            scorep_warning("trace: abnormal end: rank %d wrote its part of the trace as %s/traces.rank%d.otf2, "
                           "with the events of %d of its %zu locations (the others' are missing: see above)",
                           ctx->rank, ctx->directory, ctx->rank, written, n);
        else
            scorep_warning("trace: abnormal end: rank %d could not write its part of the trace (see above)",
                           ctx->rank);
        return failed ? -1 : 0;
    }
    /* the room on the disk, shared in proportion to what each rank recorded */
    uint64_t mine = trace_process_raw_bytes(), all = mine, room_free = trace_free_bytes(ctx->directory);
    ctx->mpp->allreduce_u64(&all, 1, 0);
    ctx->mpp->allreduce_u64(&room_free, 1, 1);
    trace_clock_summary clock;
    trace_clock_moved_span = trace_clock_condition(ctx, &clock);
    failed |= close_event_writers(ctx, counts, trace_rank_room(ctx, mine, all, room_free));
    if (clock.receives + clock.collectives > 0) {
        uint64_t moved = trace_clock_moved_events();
        ctx->mpp->allreduce_u64(&moved, 1, 0);
        double us = 1e6 / (double)ctx->ticks_per_second;
        if (ctx->rank == 0)
            scorep_warning("trace: %llu receives were still before their sends and %llu collective "
                           "leaves before the enters they wait for after the clock offsets' "
                           "correction (by up to %.3f us): moved after them by the smallest latency seen "
                           "(%.3f us), %llu events in all with the later ones of their locations "
                           "(docs/CLOCKS.md)", (unsigned long long)clock.receives,
                           (unsigned long long)clock.collectives, (double)clock.largest * us,
                           (double)clock.latency * us, (unsigned long long)moved);
    }
    failed |= OTF2_Archive_CloseEvtFiles(trace.archive) != OTF2_SUCCESS;
    failed |= trace_write_mapping_tables(ctx) != 0;

    uint64_t* ordered = gather_event_counts(ctx, counts, n);
    free(counts);
    char* hosts = scorep_process_hosts(ctx);  /* collective: the system tree's nodes */
    trace_hosts = hosts;
    if (ctx->rank == 0) {
        failed |= trace_write_global_definitions(trace.archive, ctx, ordered) != 0;
        warn_if_readers_need_more_files(ctx->defs->location_count);
    }
    trace_hosts = NULL;
    free(hosts);
    free(ordered);

    failed |= OTF2_Archive_Close(trace.archive) != OTF2_SUCCESS;
    trace.archive = NULL;
    trace_private_directory_remove();
    if (failed)
        scorep_warning("trace: the OTF2 archive in %s may be incomplete (see OTF2's messages above)",
                       ctx->directory);
    return failed ? -1 : 0;
}

/* Finalisation without an experiment directory: nothing can be written. */
void trace_discard(void)
{
    if (trace.archive == NULL)
        return;
    if (atomic_load(&trace.locations) != NULL)
        scorep_warning("trace: there is no usable experiment directory; the trace is discarded");
    close_event_writers(NULL, NULL, 0);  /* pre_flush declines: no directory */
    trace.archive = NULL;       /* closing needs collectives that were never set up */
    trace_private_directory_remove();
}
