/*
 * The trace substrate's table and lifecycle: archive, writers, directory.
 *
 * The OTF2 archive is opened at init, before MPI_Init, because events start
 * at once; the experiment directory is created later (after MPI_Init, when
 * rank 0 has chosen its name). So the archive lives at a private path,
 * $TMPDIR/scorep-wrapgen-trace-XXXXXX/archive, which becomes a symlink to the
 * experiment directory as soon as that exists: every file OTF2 writes lands
 * in the experiment directory, with no copy at the end. Until then no buffer
 * is flushed (trace_memory.c lets them grow).
 */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE  /* mkdtemp, realpath, symlink, rmdir with -std=c11 */
#endif
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <otf2/OTF2_Pthread_Locks.h>

#include "trace.h"

trace_state trace;

/* Events of a location whose state could not be allocated go nowhere, with
 * one warning (trace_blocks_discard). */
static trace_location unusable_location;

static int open_archive(void)
{
    const char* tmp = getenv("TMPDIR");
    int n = snprintf(trace.private_dir, sizeof trace.private_dir, "%s/scorep-wrapgen-trace-XXXXXX",
                     tmp && *tmp ? tmp : "/tmp");
    if (n <= 0 || (size_t)n >= sizeof trace.private_dir || mkdtemp(trace.private_dir) == NULL) {
        scorep_warning("trace: cannot create a private directory in %s: tracing is disabled",
                       tmp && *tmp ? tmp : "/tmp");
        trace.private_dir[0] = '\0';
        return -1;
    }
    snprintf(trace.archive_path, sizeof trace.archive_path, "%s/archive", trace.private_dir);

    uint64_t total_memory = scorep_config_total_memory();
    uint64_t chunk_size = trace_memory_chunk_size(total_memory);
    trace.archive = OTF2_Archive_Open(trace.archive_path, "traces", OTF2_FILEMODE_WRITE,
                                      chunk_size, 4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX,
                                      OTF2_COMPRESSION_NONE);
    if (trace.archive == NULL) {
        scorep_warning("trace: OTF2 cannot open an archive: tracing is disabled");
        rmdir(trace.private_dir);
        trace.private_dir[0] = '\0';
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
    int failed = open_archive();
    if (!failed)   /* set explicitly: counts from the first event on */
        trace_memory_set_max_size(scorep_config_tracing_max_size());
    return failed;
}

/* The default SCOREP_TRACING_MAX_SIZE: half the free space of the file system
 * holding the experiment directory, shared by the processes, at most 4 GiB
 * per process (runtime/README.md). */
#define DEFAULT_MAX_SIZE_CAP (4ull << 30)
static uint64_t default_max_size(const char* directory, int size)
{
    struct statvfs fs;
    if (statvfs(directory, &fs) != 0)
        return DEFAULT_MAX_SIZE_CAP;
    uint64_t free_bytes = (uint64_t)fs.f_bavail * (uint64_t)fs.f_frsize;
    uint64_t share = free_bytes / 2 / (uint64_t)(size > 0 ? size : 1);
    return share < DEFAULT_MAX_SIZE_CAP ? share : DEFAULT_MAX_SIZE_CAP;
}

static void trace_experiment_dir_ready(const char* directory, int rank, int size)
{
    if (trace.archive == NULL)
        return;
    trace.rank = rank;
    char target[PATH_MAX];
    if (realpath(directory, target) == NULL || symlink(target, trace.archive_path) != 0) {
        scorep_warning("trace: cannot link the trace archive into %s: the trace stays in memory "
                       "and is discarded at the end", directory);
        return;
    }
    const scorep_multiprocess_ops* mpp = scorep_multiprocess();
    if (mpp->size != size || mpp->rank != rank)
        scorep_warning("trace: the multi-process layer says rank %d of %d, the experiment "
                       "directory rank %d of %d", mpp->rank, mpp->size, rank, size);
    if (trace_collectives_install(trace.archive, mpp) != OTF2_SUCCESS
        || OTF2_Archive_OpenEvtFiles(trace.archive) != OTF2_SUCCESS) {
        scorep_warning("trace: OTF2 cannot open the event files in %s", directory);
        return;
    }
    if (scorep_config_tracing_max_size() == 0) {
        uint64_t max_size = default_max_size(target, size);
        trace_memory_set_max_size(max_size);
        scorep_verbose("trace: SCOREP_TRACING_MAX_SIZE not set: at most %llu bytes of events per process",
                       (unsigned long long)max_size);
    }
    atomic_store(&trace.directory_ready, 1);
}

static void trace_location_created(scorep_location* loc)
{
    trace_location* tl = calloc(1, sizeof *tl);
    if (tl != NULL)
        tl->location = loc;
    if (tl == NULL || trace_blocks_init(tl) != 0) {
        free(tl);
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
    if (!atomic_load(&trace.directory_ready)) {
        trace_discard();
        return -1;
    }
    return trace_write(ctx);
}

static void trace_finalize(void)
{
    trace_discard();  /* only does something if write never ran */
    trace_location* tl = atomic_exchange(&trace.locations, NULL);
    while (tl != NULL) {
        trace_location* next = tl->next;
        tl->location->substrate_data[trace.slot] = NULL;
        trace_blocks_free(tl);
        free(tl);
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
