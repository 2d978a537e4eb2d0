/*
 * The trace of one rank after an abnormal end of a multi-rank run.
 *
 * When the ranks can no longer talk (MPI_Abort, a signal), there is no
 * unification and no collective close of the shared archive, so traces.otf2
 * and traces.def are never written. Each rank that gets to run its
 * finalisation therefore writes an archive of its own next to it:
 *
 *   traces.rank<N>.otf2   anchor file
 *   traces.rank<N>.def    this rank's definitions; the locations' files map
 *                         its process-local ids to them
 *   traces.rank<N>/       one symlink per location of this rank to its event
 *                         file in traces/, which the events already went to
 *
 * Every such archive reads on its own (otf2-print, python3-otf2);
 * scorep-trace-export merges all of them into one timeline.
 */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE  /* symlink with -std=c11 */
#endif
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace.h"

/* traces.rank<N>/<location>.evt -> ../traces/<location>.evt for this rank's
 * locations; the shared traces/ directory also holds other ranks' files. */
static int link_event_files(const char* events_dir)
{
    int failed = 0;
    char link[PATH_MAX + 32], target[64];
    for (trace_location* tl = atomic_load(&trace.locations); tl != NULL; tl = tl->next) {
        uint64_t id = trace_location_global_id(tl);
        snprintf(target, sizeof target, "../traces/%llu.evt", (unsigned long long)id);
        snprintf(link, sizeof link, "%s/%llu.evt", events_dir, (unsigned long long)id);
        if (symlink(target, link) != 0 && errno != EEXIST) {
            scorep_warning("trace: cannot create %s: %s", link, strerror(errno));
            failed = 1;
        }
    }
    return failed;
}

/* Readers open an event and a local definition file for every location they
 * know. This rank's locations get their mapping tables (the rank's own
 * definitions number communicators before MPI groups, as the unification
 * does); the stand-ins for the other ranks' master locations (see
 * write_system_tree) get both files, empty. */
static int write_location_files(OTF2_Archive* archive, const scorep_finalize_context* ctx)
{
    int failed = OTF2_Archive_OpenDefFiles(archive) != OTF2_SUCCESS;
    failed |= OTF2_Archive_OpenEvtFiles(archive) != OTF2_SUCCESS;
    failed |= trace_write_location_definitions(archive, ctx->defs) != 0;
    for (int rank = 0; rank < ctx->size; rank++) {
        if (rank == ctx->rank)
            continue;
        uint64_t id = scorep_location_global_id((uint32_t)rank, 0);
        OTF2_DefWriter* defs = OTF2_Archive_GetDefWriter(archive, id);
        failed |= defs == NULL || OTF2_Archive_CloseDefWriter(archive, defs) != OTF2_SUCCESS;
        OTF2_EvtWriter* events = OTF2_Archive_GetEvtWriter(archive, id);
        failed |= events == NULL || OTF2_Archive_CloseEvtWriter(archive, events) != OTF2_SUCCESS;
    }
    failed |= OTF2_Archive_CloseEvtFiles(archive) != OTF2_SUCCESS;
    failed |= OTF2_Archive_CloseDefFiles(archive) != OTF2_SUCCESS;
    return failed;
}

/* Event counts in the order of ctx->defs' location table (this rank only). */
static uint64_t* counts_in_definition_order(const scorep_finalize_context* ctx,
                                            const uint64_t* counts)
{
    const scorep_unified_definitions* defs = ctx->defs;
    uint64_t* ordered = calloc(defs->location_count ? defs->location_count : 1, sizeof *ordered);
    if (ordered == NULL)
        return NULL;
    for (uint32_t l = 0; l < defs->location_count; l++) {
        size_t i = 0;
        for (trace_location* tl = atomic_load(&trace.locations); tl != NULL; tl = tl->next, i++)
            if (tl->location->local_id == defs->location_thread[l])
                ordered[l] = counts[i];
    }
    return ordered;
}

/* Definitions are written in one go at the end: a full buffer may simply
 * go to disk. */
static OTF2_FlushType always_flush(void* user_data, OTF2_FileType file_type,
                                   OTF2_LocationRef location, void* caller_data, bool final)
{
    (void)user_data, (void)file_type, (void)location, (void)caller_data, (void)final;
    return OTF2_FLUSH;
}

static const OTF2_FlushCallbacks partial_flush_callbacks = {.otf2_pre_flush = always_flush};

/* The archive is written as traces.rank<N>.part and renamed into place, the
 * anchor file last: a rank killed while writing (Open MPI follows SIGTERM
 * with SIGKILL) leaves no anchor that points at incomplete files. */
static int rename_into_place(const char* directory, int rank)
{
    static const char* const suffixes[] = {"", ".def", ".otf2"};
    char from[PATH_MAX], to[PATH_MAX];
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
        snprintf(from, sizeof from, "%s/traces.rank%d.part%s", directory, rank, suffixes[i]);
        snprintf(to, sizeof to, "%s/traces.rank%d%s", directory, rank, suffixes[i]);
        if (rename(from, to) != 0) {
            scorep_warning("trace: cannot rename %s to %s: %s", from, to, strerror(errno));
            return -1;
        }
    }
    return 0;
}

int trace_write_partial_archive(const scorep_finalize_context* ctx, const uint64_t* counts)
{
    char name[64], events_dir[PATH_MAX];
    snprintf(name, sizeof name, "traces.rank%d.part", ctx->rank);
    int n = snprintf(events_dir, sizeof events_dir, "%s/%s", ctx->directory, name);
    if (n <= 0 || (size_t)n >= sizeof events_dir)
        return -1;
    uint64_t* ordered = counts_in_definition_order(ctx, counts);
    OTF2_Archive* archive = OTF2_Archive_Open(ctx->directory, name, OTF2_FILEMODE_WRITE,
                                              OTF2_CHUNK_SIZE_EVENTS_DEFAULT,
                                              OTF2_CHUNK_SIZE_DEFINITIONS_DEFAULT,
                                              OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (archive == NULL || ordered == NULL) {
        free(ordered);
        if (archive != NULL)
            OTF2_Archive_Close(archive);
        scorep_warning("trace: cannot write the definitions of rank %d in %s", ctx->rank,
                       ctx->directory);
        return -1;
    }
    /* with its (serial) collectives set, OTF2 creates the archive's directory */
    int failed = OTF2_Archive_SetSerialCollectiveCallbacks(archive) != OTF2_SUCCESS;
    failed |= OTF2_Archive_SetFlushCallbacks(archive, &partial_flush_callbacks, NULL) != OTF2_SUCCESS;
    OTF2_Archive_SetCreator(archive, "scorep-wrapgen (partial: one rank of an abnormal end)");
    if (mkdir(events_dir, 0777) != 0 && errno != EEXIST) {
        scorep_warning("trace: cannot create %s: %s", events_dir, strerror(errno));
        failed = 1;
    } else {
        failed |= link_event_files(events_dir);
    }
    failed |= write_location_files(archive, ctx);
    failed |= trace_write_global_definitions(archive, ctx, ordered) != 0;
    failed |= OTF2_Archive_Close(archive) != OTF2_SUCCESS;
    free(ordered);
    if (!failed)
        failed |= rename_into_place(ctx->directory, ctx->rank);
    return failed ? -1 : 0;
}
