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
 *
 * The launcher may kill the rank at any moment meanwhile (Open MPI follows
 * its SIGTERM with SIGKILL), so the archive is readable after every step:
 *   1. the definitions, every location with an empty event file, renamed
 *      into place anchor last (milliseconds): readable, without events
 *   2. progressively, so that a kill keeps what time allowed: every
 *      location's first PREFIX_BYTES of records (a few milliseconds) are
 *      encoded into traces/<location>.evt, which is then renamed over its
 *      file in traces.rank<N>/ (ending with a MeasurementOnOff(OFF) record,
 *      like a trace the disk cut); then a prefix PREFIX_GROWTH times as long,
 *      and so on while a prefix is at most 1/PREFIX_GROWTH of the location's
 *      records (the prefixes cost at most 1/(PREFIX_GROWTH-1) of the whole);
 *      the definitions' counts follow each round (as in step 4)
 *   3. location by location, all its events are encoded into traces/ and
 *      the prefix (or the empty file) is replaced by a link to the complete
 *      one (one rename)
 *   4. the definitions again, now with every location's event count (the
 *      .def file replaced by one rename)
 * An event file OTF2 had not finished is never linked: a truncated one makes
 * readers fail or loop. A location whose events are missing stays empty (or
 * its prefix stays), and its definition says as many events.
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

/* traces.rank<N>/<location>.evt becomes a link to ../traces/<location>.evt
 * (the shared traces/ directory also holds other ranks' files), replacing
 * the empty event file at once: readers see either. */
static int link_event_file(const char* events_dir, const trace_location* tl)
{
    char link[PATH_MAX + 48], staged[PATH_MAX + 64], target[64];
    uint64_t id = trace_location_global_id(tl);
    snprintf(target, sizeof target, "../traces/%llu.evt", (unsigned long long)id);
    snprintf(link, sizeof link, "%s/%llu.evt", events_dir, (unsigned long long)id);
    snprintf(staged, sizeof staged, "%s/%llu.evt.link", events_dir, (unsigned long long)id);
    unlink(staged);
    if (symlink(target, staged) != 0 || rename(staged, link) != 0) {
        scorep_warning("trace: cannot link %s to %s: %s", link, target, strerror(errno));
        unlink(staged);
        return -1;
    }
    return 0;
}

/* Readers open an event and a local definition file for every location they
 * know. This rank's locations get their mapping tables (the rank's own
 * definitions number communicators before MPI groups, as the unification
 * does) and, like the stand-ins for the other ranks' master locations (see
 * write_system_tree), an empty event file; the stand-ins an empty definition
 * file too. */
static int empty_event_file(OTF2_Archive* archive, uint64_t id)
{
    OTF2_EvtWriter* events = OTF2_Archive_GetEvtWriter(archive, id);
    return events == NULL || OTF2_Archive_CloseEvtWriter(archive, events) != OTF2_SUCCESS;
}

static int write_location_files(OTF2_Archive* archive, const scorep_finalize_context* ctx)
{
    int failed = OTF2_Archive_OpenDefFiles(archive) != OTF2_SUCCESS;
    failed |= OTF2_Archive_OpenEvtFiles(archive) != OTF2_SUCCESS;
    failed |= trace_write_location_definitions(archive, ctx->defs) != 0;
    for (trace_location* tl = atomic_load(&trace.locations); tl != NULL; tl = tl->next)
        failed |= empty_event_file(archive, trace_location_global_id(tl));
    for (int rank = 0; rank < ctx->size; rank++) {
        if (rank == ctx->rank)
            continue;
        uint64_t id = scorep_location_global_id((uint32_t)rank, 0);
        OTF2_DefWriter* defs = OTF2_Archive_GetDefWriter(archive, id);
        failed |= defs == NULL || OTF2_Archive_CloseDefWriter(archive, defs) != OTF2_SUCCESS;
        failed |= empty_event_file(archive, id);
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

static OTF2_Archive* open_archive(const scorep_finalize_context* ctx, const char* name)
{
    OTF2_Archive* archive = OTF2_Archive_Open(ctx->directory, name, OTF2_FILEMODE_WRITE,
                                              OTF2_CHUNK_SIZE_EVENTS_DEFAULT,
                                              OTF2_CHUNK_SIZE_DEFINITIONS_DEFAULT,
                                              OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (archive == NULL)
        return NULL;
    /* with its (serial) collectives set, OTF2 creates the archive's directory */
    if (OTF2_Archive_SetSerialCollectiveCallbacks(archive) != OTF2_SUCCESS
        || OTF2_Archive_SetFlushCallbacks(archive, &partial_flush_callbacks, NULL) != OTF2_SUCCESS) {
        OTF2_Archive_Close(archive);
        return NULL;
    }
    OTF2_Archive_SetCreator(archive, "scorep-wrapgen (partial: one rank of an abnormal end)");
    return archive;
}

/* Step 1: definitions and empty event files, renamed into place. */
static int write_skeleton(const scorep_finalize_context* ctx, const uint64_t* ordered)
{
    char name[64];
    snprintf(name, sizeof name, "traces.rank%d.part", ctx->rank);
    OTF2_Archive* archive = open_archive(ctx, name);
    if (archive == NULL)
        return -1;
    int failed = write_location_files(archive, ctx);
    failed |= trace_write_global_definitions(archive, ctx, ordered) != 0;
    failed |= OTF2_Archive_Close(archive) != OTF2_SUCCESS;
    if (!failed)
        failed |= rename_into_place(ctx->directory, ctx->rank);
    return failed ? -1 : 0;
}

/* Step 3: the global definitions with the event counts, written as a
 * definitions-only archive traces.rank<N>.counts whose .def file replaces
 * traces.rank<N>.def (its anchor, the same but for the name, is removed). */
static int write_counts(const scorep_finalize_context* ctx, const uint64_t* ordered)
{
    char name[64], path[PATH_MAX], def[PATH_MAX];
    snprintf(name, sizeof name, "traces.rank%d.counts", ctx->rank);
    OTF2_Archive* archive = open_archive(ctx, name);
    if (archive == NULL)
        return -1;
    int failed = trace_write_global_definitions(archive, ctx, ordered) != 0;
    failed |= OTF2_Archive_Close(archive) != OTF2_SUCCESS;
    snprintf(path, sizeof path, "%s/%s.def", ctx->directory, name);
    snprintf(def, sizeof def, "%s/traces.rank%d.def", ctx->directory, ctx->rank);
    if (!failed && rename(path, def) != 0)
        failed = 1;
    unlink(path);
    snprintf(path, sizeof path, "%s/%s.otf2", ctx->directory, name);
    unlink(path);
    snprintf(path, sizeof path, "%s/%s", ctx->directory, name);
    rmdir(path);
    return failed ? -1 : 0;
}

/* Step 2 (see the top). The first prefix is short enough to be in place
 * within milliseconds of the kill signal, before a launcher's SIGKILL. */
#define PREFIX_BYTES ((uint64_t)4 << 20)
#define PREFIX_GROWTH 8

/* tl's first `bytes` of records become its event file in traces.rank<N>/:
 * encoded into traces/<location>.evt, renamed over the empty file or the
 * shorter prefix (readers see one or the other); traces/<location>.evt is
 * free again for the next encoding. */
static int write_prefix(const scorep_finalize_context* ctx, const char* events_dir,
                        trace_location* tl, uint64_t bytes, uint64_t* events)
{
    char encoded[PATH_MAX + 48], link[PATH_MAX + 48];
    uint64_t id = trace_location_global_id(tl);
    snprintf(encoded, sizeof encoded, "%s/traces/%llu.evt", ctx->directory, (unsigned long long)id);
    snprintf(link, sizeof link, "%s/%llu.evt", events_dir, (unsigned long long)id);
    if (trace_encode_prefix(tl, events, bytes) != 0 || rename(encoded, link) != 0) {
        unlink(encoded);
        return -1;
    }
    return 0;
}

/* Prefixes of growing length for every location long enough, the counts
 * written after each round; counts: the events of the prefixes in place. */
static void write_prefixes(const scorep_finalize_context* ctx, const char* events_dir,
                           uint64_t room, uint64_t mine, uint64_t* counts)
{
    for (uint64_t bytes = PREFIX_BYTES;; bytes *= PREFIX_GROWTH) {
        int written = 0;
        size_t i = 0;
        for (trace_location* tl = atomic_load(&trace.locations); tl != NULL; tl = tl->next, i++) {
            uint64_t events = 0;
            if (bytes > trace_location_raw_bytes(tl) / PREFIX_GROWTH || bytes >= trace_location_room(room, mine, tl)
                || tl->write_failed)
                continue;
            if (write_prefix(ctx, events_dir, tl, bytes, &events) != 0)
                continue;   /* the previous prefix (or the empty file) stays */
            counts[i] = events;
            written = 1;
        }
        if (!written)
            return;
        uint64_t* ordered = counts_in_definition_order(ctx, counts);
        if (ordered != NULL)
            write_counts(ctx, ordered);
        free(ordered);
    }
}

int trace_write_partial_archive(const scorep_finalize_context* ctx, uint64_t* counts,
                                int* locations_written)
{
    char events_dir[PATH_MAX];
    int n = snprintf(events_dir, sizeof events_dir, "%s/traces.rank%d", ctx->directory, ctx->rank);
    *locations_written = 0;
    if (n <= 0 || (size_t)n >= sizeof events_dir)
        return -1;
    uint64_t* ordered = counts_in_definition_order(ctx, counts);   /* all 0 yet */
    if (ordered == NULL || write_skeleton(ctx, ordered) != 0) {
        free(ordered);
        scorep_warning("trace: cannot write the definitions of rank %d in %s", ctx->rank,
                       ctx->directory);
        return -1;
    }
    int failed = 0;
    size_t i = 0;
    /* the disk's room (trace_room.c), every rank assumed to have recorded as much as this one */
    uint64_t mine = trace_process_raw_bytes();
    uint64_t room = trace_rank_room(ctx, mine, mine * (uint64_t)ctx->size, trace_free_bytes(ctx->directory));
    write_prefixes(ctx, events_dir, room, mine, counts);
    for (trace_location* tl = atomic_load(&trace.locations); tl != NULL; tl = tl->next, i++) {
        uint64_t prefix_events = counts[i];
        trace_encode_cut cut = {.room = trace_location_room(room, mine, tl)};
        int encoded = trace_encode_location(tl, &counts[i], &cut) == 0;
        trace_report_cut(ctx, tl, &cut);
        if (!encoded || link_event_file(events_dir, tl) != 0) {
            counts[i] = prefix_events;   /* its prefix (or empty) event file stays */
            failed = 1;
            continue;
        }
        ++*locations_written;
    }
    free(ordered);
    ordered = counts_in_definition_order(ctx, counts);
    failed |= ordered == NULL || write_counts(ctx, ordered) != 0;
    free(ordered);
    return failed ? -1 : 0;
}
