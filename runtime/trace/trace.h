/*
 * Internal interface of the OTF2 trace substrate (runtime/trace/).
 *
 * Lifecycle, in the order the event layer drives it (see ../substrate.h):
 *   init                  open the OTF2 archive at a private path (the
 *                         experiment directory does not exist yet)
 *   location_created      one OTF2 event writer per location, kept in
 *                         loc->substrate_data[slot]
 *   events                copied into the location's raw buffer (trace_events.c),
 *                         encoded into its writer when that is full (trace_encode.c)
 *   experiment_dir_ready  the private path becomes a symlink to the experiment
 *                         directory; from then on full buffers go to disk
 *   write                 close the event writers (every rank its own files),
 *                         write the local->global mapping tables and, on rank 0,
 *                         the unified global definitions; close the archive
 *   finalize              free what is left
 */
#ifndef SCOREP_WRAPGEN_TRACE_H
#define SCOREP_WRAPGEN_TRACE_H

#include <stdatomic.h>
#include <stdint.h>

#include <otf2/otf2.h>

#include "../substrate.h"
#include "trace_raw.h"

/* Per-location state, owned by the location's thread. */
typedef struct trace_location {
    /* the event path's raw buffer (trace_raw.h): a record is stored at
     * raw_next; one that ends past raw_drain_at drains the buffer, so the
     * next record always fits */
    char* raw_next;
    char* raw_drain_at;
    char* raw_begin;
    OTF2_EvtWriter* writer;
    scorep_location* location;
    /* set by the OTF2 flush callbacks while records are encoded, consumed
     * when the drain is over (trace_encode.c) */
    int flush_pending;
    uint64_t flush_begin, flush_end;
    int write_failed;   /* warned once about a failing OTF2 write */
    int stopped;        /* SCOREP_TRACING_MAX_SIZE: records nothing more (trace_encode.c) */
    /* regions entered and not left in the encoded records (trace_encode.c) */
    uint32_t* open;
    uint32_t open_depth, open_capacity;
    struct trace_location* next;  /* all trace locations, for finalisation */
} trace_location;

typedef struct trace_state {
    OTF2_Archive* archive;
    int slot;                     /* index into loc->substrate_data */
    char private_dir[4096];       /* mkdtemp directory holding the archive symlink */
    char archive_path[4096 + 16];  /* private_dir/archive -> experiment directory */
    atomic_int directory_ready;   /* 1 once full buffers can go to disk */
    int rank;                     /* known from experiment_dir_ready on */
    /* the process's event data reached SCOREP_TRACING_MAX_SIZE: every
     * location stops at its next event (trace_events.c, trace_memory.c) */
    atomic_int limit_reached;
    _Atomic(trace_location*) locations;
} trace_state;

/* hidden: the event callbacks reach it without a GOT load */
extern trace_state trace __attribute__((visibility("hidden")));

static inline trace_location* trace_location_of(scorep_location* loc)
{
    return (trace_location*)loc->substrate_data[trace.slot];
}

/* The process reached SCOREP_TRACING_MAX_SIZE (one relaxed load of a flag
 * that stays in every core's cache until then). */
static inline int trace_limit_reached(void)
{
    return atomic_load_explicit(&trace.limit_reached, memory_order_relaxed);
}

/* trace_memory.c: chunk memory for the OTF2 buffers and the raw buffers,
 * bounded by SCOREP_TOTAL_MEMORY */
uint64_t trace_memory_chunk_size(uint64_t total_memory);
void trace_memory_install(OTF2_Archive* archive, uint64_t total_memory, uint64_t chunk_size);
/* a location's raw buffer, trace_memory_chunk_bytes() long (NULL: out of memory) */
char* trace_memory_raw_buffer(void);
void trace_memory_free_raw_buffer(char* buffer);

/* trace_memory.c: SCOREP_TRACING_MAX_SIZE, counted in event chunks taken by the
 * process (0: no limit); the limit known from the experiment directory on */
void trace_memory_set_max_size(uint64_t max_size);
uint64_t trace_memory_event_chunks(void);
uint64_t trace_memory_max_size(void);     /* bytes, as set */
uint64_t trace_memory_chunk_bytes(void);  /* the size of an event chunk */

/* trace_encode.c: raw records -> OTF2 */
/* the buffer is full (event path, on tl's thread): encode it, report a flush */
void trace_raw_drain(trace_location* tl) __attribute__((visibility("hidden")));
/* at finalisation: encode what is left */
void trace_raw_drain_final(trace_location* tl);
/* after the limit, at tl's next event (time t): the first time it encodes the
 * records before the limit, leaves the regions still open in them and writes
 * the MeasurementOnOff(OFF) marker; tl records nothing more */
void trace_location_stop(trace_location* tl, uint64_t t) __attribute__((visibility("hidden")));

/* trace_flush.c: OTF2 flush callbacks and reporting a flush as a region */
void trace_flush_install(OTF2_Archive* archive);
void trace_flush_report(trace_location* tl);
void trace_flush_set_location_id(OTF2_EvtWriter* writer, const trace_location* tl);
uint64_t trace_location_global_id(const trace_location* tl);

/* trace_collectives.c: OTF2 collective callbacks over the core's multi-process ops */
OTF2_ErrorCode trace_collectives_install(OTF2_Archive* archive, const scorep_multiprocess_ops* ops);

/* trace_definitions.c */
int trace_write_mapping_tables(const scorep_finalize_context* ctx);
int trace_write_global_definitions(OTF2_Archive* archive, const scorep_finalize_context* ctx,
                                   const uint64_t* event_counts);

/* An abnormal end of a multi-rank run: ranks cannot talk, each writes alone. */
static inline int trace_is_partial(const scorep_finalize_context* ctx)
{
    return ctx->emergency && ctx->mpp == NULL;
}

/* trace_partial.c: this rank's own archive after an abnormal end of a
 * multi-rank run (no collectives possible) */
int trace_write_partial_archive(const scorep_finalize_context* ctx, const uint64_t* counts);

/* trace_events.c: the event callbacks of the substrate table */
void trace_events_fill_table(scorep_substrate* table);

/* trace_write.c: finalisation */
int trace_write(const scorep_finalize_context* ctx);
void trace_discard(void);

#endif /* SCOREP_WRAPGEN_TRACE_H */
