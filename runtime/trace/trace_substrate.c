/*
 * The trace substrate's table (scorep_trace_substrate) and lifecycle, on top
 * of the trace's other files: it opens the archive at init in its private
 * directory (trace_private_directory.c), links that to the experiment
 * directory once it exists and moves the spill place there
 * (trace_spill_place.c), gives each location its state and first block, and
 * at the end has the trace written (trace_write.c) and everything freed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE  /* realpath, symlink with -std=c11 */
#endif
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <otf2/OTF2_Pthread_Locks.h>

#include "trace.h"

/* Events of a location whose state could not be allocated go nowhere, with
 * one warning (trace_blocks_discard). */
static trace_location unusable_location;

static int open_archive(void)
{
    if (trace_private_directory_create() != 0)
        return -1;
    uint64_t total_memory = scorep_config_total_memory();
    uint64_t chunk_size = trace_memory_chunk_size(total_memory);
    trace.archive = OTF2_Archive_Open(trace.archive_path, "traces", OTF2_FILEMODE_WRITE,
                                      chunk_size, 4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX,
                                      OTF2_COMPRESSION_NONE);
    if (trace.archive == NULL) {
        scorep_warning("trace: OTF2 cannot open an archive: tracing is disabled");
        trace_private_directory_remove();
        return -1;
    }
    /* Locks guard only archive-wide state (writer creation, file opening),
     * never the per-location event path. */
    OTF2_Pthread_Archive_SetLockingCallbacks(trace.archive, NULL);
    trace_flush_install(trace.archive);
    trace_memory_install(trace.archive, total_memory, chunk_size);
    OTF2_Archive_SetCreator(trace.archive, "scorep-wrapgen");
    scorep_verbose("trace: OTF2 chunks of %llu bytes, SCOREP_TOTAL_MEMORY=%llu",
                   (unsigned long long)chunk_size, (unsigned long long)total_memory);
    return 0;
}

static int trace_init(int slot)
{
    trace.slot = slot;
    trace_program_strings_define();
    trace_handle_collectives = scorep_config_tracing_handle_collectives();
    int failed = open_archive();
    if (!failed) {  /* set explicitly: counts from the first event on */
        trace_budget_set(scorep_config_tracing_max_size());
        trace_spill_place_before_directory();
    }
    return failed;
}

/* The default SCOREP_TRACING_MAX_SIZE: half the free space of the file system
 * holding the experiment directory, for all processes of the node together
 * (they share it: trace_budget.c; runtime/README.md). Unknown: unlimited. */
static uint64_t default_max_size(const char* directory)
{
    struct statvfs fs;
    if (statvfs(directory, &fs) != 0)
        return UINT64_MAX;
    uint64_t half = (uint64_t)fs.f_bavail * (uint64_t)fs.f_frsize / 2;
    return half > 0 ? half : 1;
}

static void trace_experiment_dir_ready(const char* directory, int rank, int size)
{
    if (trace.archive == NULL)
        return;
    trace.rank = rank;
    char target[PATH_MAX];
    if (realpath(directory, target) == NULL || symlink(target, trace.archive_path) != 0) {
        scorep_warning("trace: cannot link the trace archive into %s: the trace is discarded "
                       "at the end", directory);
        return;
    }
    trace_spill_place_in_experiment(target);
    const scorep_multiprocess_ops* mpp = scorep_multiprocess();
    if (mpp->size != size || mpp->rank != rank)
        scorep_warning("trace: the multi-process layer says rank %d of %d, the experiment "
                       "directory rank %d of %d", mpp->rank, mpp->size, rank, size);
    if (trace_collectives_install(trace.archive, mpp) != OTF2_SUCCESS
        || OTF2_Archive_OpenEvtFiles(trace.archive) != OTF2_SUCCESS) {
        scorep_warning("trace: OTF2 cannot open the event files in %s", directory);
        return;
    }
    if (trace_budget_share(target) != 0)
        scorep_warning("trace: cannot share the SCOREP_TRACING_MAX_SIZE budget with the other processes "
                       "of this node in %s (%s): this process counts its own events only", target,
                       strerror(errno));
    if (scorep_config_tracing_max_size() == 0)
        trace_budget_set(default_max_size(target));
    scorep_verbose("trace: at most %llu bytes of events on this node (SCOREP_TRACING_MAX_SIZE, 0: unlimited)",
                   (unsigned long long)trace_budget_bytes());
    atomic_store(&trace.directory_ready, 1);
}

static void trace_location_created(scorep_location* loc)
{
    trace_location* tl = scorep_arena_alloc(sizeof *tl);
    if (tl != NULL)
        tl->location = loc;
    if (tl == NULL || trace_blocks_init(tl) != 0) {
        scorep_warning("trace: out of memory for location %u: its events are not traced",
                       loc->local_id);
        unusable_location.location = loc;
        unusable_location.stopped = 1;
        trace_blocks_discard(&unusable_location);
        loc->substrate_data[trace.slot] = &unusable_location;
        return;
    }
    tl->next = atomic_load(&trace.locations);
    while (!atomic_compare_exchange_weak(&trace.locations, &tl->next, tl))
        ;
    loc->substrate_data[trace.slot] = tl;
}

static int trace_write_callback(const scorep_finalize_context* ctx)
{
    /* every process of the node mapped the budget before (unification comes first) */
    trace_budget_unshare();
    if (!atomic_load(&trace.directory_ready)) {
        trace_discard();
        return -1;
    }
    return trace_write(ctx);
}

static void trace_finalize(void)
{
    trace_discard();  /* only does something if write never ran */
    trace_budget_unshare();
    trace_location* tl = atomic_exchange(&trace.locations, NULL);
    while (tl != NULL) {
        trace_location* next = tl->next;
        tl->location->substrate_data[trace.slot] = NULL;
        trace_blocks_free(tl);   /* tl itself is the arena's, kept */
        tl = next;
    }
    trace_memory_release_pool();
}

const scorep_substrate* scorep_trace_substrate(void)
{
    static scorep_substrate table;
    if (table.name == NULL) {
        trace_events_fill_table(&table);
        table.init = trace_init;
        table.experiment_dir_ready = trace_experiment_dir_ready;
        table.location_created = trace_location_created;
        table.write = trace_write_callback;
        table.finalize = trace_finalize;
        table.name = "tracing";
        table.needs_event_times = 1;
        table.rma_events_carry_target = 1;
    }
    return &table;
}
