/*
 * Internal interface of the OTF2 trace substrate (runtime/trace/).
 *
 * Lifecycle, in the order the event layer drives it (see ../substrate.h):
 *   init                  open the OTF2 archive at a private path (the
 *                         experiment directory does not exist yet)
 *   location_created      the location's state and first raw block, kept in
 *                         loc->substrate_data[slot]
 *   events                copied into the location's raw blocks (trace_events.c),
 *                         kept in memory or spilled to a file (trace_blocks.c)
 *   experiment_dir_ready  the private path becomes a symlink to the experiment
 *                         directory, where full buffers spill from then on
 *                         (before: on its parent's file system)
 *   write                 encode the raw blocks into the event writers and close
 *                         them (every rank its own files, trace_encode.c),
 *                         write the local->global mapping tables and, on rank 0,
 *                         the unified global definitions; close the archive
 *   finalize              free what is left
 *
 * The files call each other in layers, downwards only (README.md lists them
 * top first): trace_substrate.c on top, then trace_write.c, trace_partial.c,
 * the encoder and definitions, the event path and the blocks, the memory
 * and budget, and at the bottom the shared state (trace_state.c) and the
 * files that need no other (spill place, raw sizes, I/O, threads,
 * collectives). What two files both need lives in the lower one.
 */
#ifndef SCOREP_WRAPGEN_TRACE_H
#define SCOREP_WRAPGEN_TRACE_H

#include <stdatomic.h>
#include <stdint.h>

#include <otf2/otf2.h>

#include "../substrate.h"
#include "trace_raw.h"

#define UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Per-location state, owned by the location's thread. */
typedef struct trace_location {
    /* the event path's: a record is stored at raw_next; one that ends past
     * raw_full_at ends the block (trace_blocks.c), so the next record always
     * fits */
    char* raw_next;
    char* raw_full_at;
    char* room_end;       /* the end of the current block's room SCOREP_TRACING_MAX_SIZE
                           * granted (trace_budget.c), raw_full_at + RAW_MAX_BYTES */
    raw_block* current;   /* the block being written, the last of the list */
    raw_block* first;     /* the blocks in memory, oldest first */
    /* blocks spilled to the process's spill file (trace_blocks.c): the
     * newest one's offset + 1 (0: none), each pointing to the one before */
    uint64_t last_spill;
    uint64_t spilled_blocks;
    int spill_user;       /* counted among the spill file's users */
    OTF2_EvtWriter* writer;   /* at finalisation only (trace_encode.c) */
    scorep_location* location;
    int write_failed;   /* warned once about a failing OTF2 write or spill */
    int stopped;        /* SCOREP_TRACING_MAX_SIZE: records nothing more (trace_events.c) */
    struct trace_location* next;  /* all trace locations, for finalisation */
} trace_location;

typedef struct trace_state {
    OTF2_Archive* archive;
    int slot;                     /* index into loc->substrate_data */
    char private_dir[4096];       /* mkdtemp directory holding the archive symlink */
    char archive_path[4096 + 16];  /* private_dir/archive -> experiment directory */
    atomic_int directory_ready;   /* 1 once full buffers can go to disk */
    int rank;                     /* known from experiment_dir_ready on */
    /* the node's event data reached SCOREP_TRACING_MAX_SIZE: every
     * location stops at its next event (trace_events.c, trace_memory.c) */
    atomic_int limit_reached;
    _Atomic(trace_location*) locations;
} trace_state;

/* trace_state.c: the substrate's state; hidden: the event callbacks reach it
 * without a GOT load */
extern trace_state trace __attribute__((visibility("hidden")));
/* trace_state.c: the OTF2 location id of tl (rank << 32 | thread) */
uint64_t trace_location_global_id(const trace_location* tl);

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

/* trace_memory.c: SCOREP_TOTAL_MEMORY as a pool of blocks, faulted in at
 * initialisation, for the raw blocks and OTF2's event chunks (one size) */
uint64_t trace_memory_chunk_size(uint64_t total_memory);
void trace_memory_install(OTF2_Archive* archive, uint64_t total_memory, uint64_t chunk_size);
void trace_memory_release_pool(void);   /* at the very end */
/* a raw block of chunk_size bytes of data: from the pool, or NULL when the
 * pool is empty and the location must spill instead; allocated beyond the
 * pool if `always` (a location's first block) or if spilling is refused
 * (trace_spill_refused), which stops the trace */
raw_block* trace_memory_take_block(int always);
/* why the trace stopped when it was not SCOREP_TRACING_MAX_SIZE, or NULL */
const char* trace_memory_stop_reason(void);
void trace_memory_give_block(raw_block* block);
/* trace_budget.c: SCOREP_TRACING_MAX_SIZE, bytes of raw records shared by the
 * processes of the node (runtime/README.md) */
/* room for up to `wanted` bytes of records (at most a slice): the bytes
 * granted, 0 once the budget is spent (then trace.limit_reached is set) */
uint64_t trace_budget_reserve(uint64_t wanted);
/* the budget in bytes, UINT64_MAX unlimited, 0 not known yet (ignored); the
 * first process of the node to set it decides */
void trace_budget_set(uint64_t budget);
/* from now on the budget is the node's: a file in directory, mapped shared */
int trace_budget_share(const char* directory);
void trace_budget_unshare(void);   /* removes that file's name (at the end) */
uint64_t trace_budget_bytes(void); /* the budget (0: none) */
uint64_t trace_memory_chunk_bytes(void);  /* the size of a raw block and of an OTF2 chunk */

/* trace_private_directory.c: trace.private_dir in $TMPDIR, made and locked
 * (abandoned ones of killed runs removed first), trace.archive_path in it;
 * -1 (warned): none. Remove: the archive symlink, the lock and the directory. */
int trace_private_directory_create(void);
void trace_private_directory_remove(void);

/* trace_spill_place.c: where spilled raw blocks go, on the experiment
 * directory's file system (before it exists: its parent's) */
void trace_spill_place_before_directory(void);   /* at initialisation */
void trace_spill_place_in_experiment(const char* directory);   /* once it exists */
int trace_spill_open(void);   /* an unnamed file for a location's blocks, or -1 (errno) */
/* NULL if a full pool may spill; else why not (the place is in memory and
 * SCOREP_TRACING_MAX_SIZE is not set, or there is none) */
const char* trace_spill_refused(void);

/* trace_blocks.c: the raw blocks of a location */
int trace_blocks_init(trace_location* tl);   /* the first block; -1: out of memory */
/* the current block is full (event path, on tl's thread): a new block, or
 * all blocks spilled to the location's file and one reused (reported as a
 * buffer flush) */
void trace_blocks_full(trace_location* tl) __attribute__((visibility("hidden")));
/* encode(tl, data, bytes) for a block of records; nonzero: it needs no more */
typedef int (*trace_block_encoder)(trace_location* tl, const char* data, uint64_t bytes);
/* calls encode for every block in record order (spilled ones first),
 * freeing them; the location records nothing after this */
void trace_blocks_drain(trace_location* tl, trace_block_encoder encode);
/* the same, keeping the blocks, until encode returns nonzero (a prefix of
 * the records, encoded before the whole: trace_partial.c) */
void trace_blocks_walk(trace_location* tl, trace_block_encoder encode);
void trace_blocks_free(trace_location* tl);  /* drops what is left, removes the spill file */
void trace_blocks_discard(trace_location* tl);  /* from now on, records go nowhere */

/* trace_encode.c: raw records -> OTF2, at finalisation: tl's event writer is
 * created, fed with its blocks and closed; *events: its record count. With
 * cut, at most cut->room raw bytes are encoded (what the disk has room for,
 * trace_room.c); cut->bytes and cut->time tell what was left out (0: none)
 * and the time of its first record. */
typedef struct trace_encode_cut {
    uint64_t room;
    uint64_t bytes, time;
} trace_encode_cut;
int trace_encode_location(trace_location* tl, uint64_t* events, trace_encode_cut* cut);
/* the same for the first `room` raw bytes only, keeping the raw blocks for a
 * later trace_encode_location; a prefix that is cut ends like a cut trace,
 * with a MeasurementOnOff(OFF) record */
int trace_encode_prefix(trace_location* tl, uint64_t* events, uint64_t room);
/* the strings a ProgramBegin record names (the executable, its arguments),
 * defined at initialisation so that they are unified with the others */
void trace_program_strings_define(void);
/* the time of the record being encoded (OTF2's flushes take no time of the run) */
uint64_t trace_encode_time(void);

/* trace_room.c: the room on the disk at finalisation. The raw bytes tl holds
 * (in memory and spilled), and all locations of the process together */
uint64_t trace_location_raw_bytes(const trace_location* tl);
uint64_t trace_process_raw_bytes(void);
/* the free bytes of directory's file system (UINT64_MAX: not known) */
uint64_t trace_free_bytes(const char* directory);
/* the raw bytes this rank's events may take so that the trace and its
 * definitions fit on the disk (UINT64_MAX: all): mine this rank's raw bytes,
 * all every rank's on the same file system, free its free bytes */
uint64_t trace_rank_room(const scorep_finalize_context* ctx, uint64_t mine, uint64_t all, uint64_t free);
/* tl's share of rank_room, in proportion to its raw bytes among mine */
uint64_t trace_location_room(uint64_t rank_room, uint64_t mine, const trace_location* tl);
/* the warning when the disk had no room for all of tl's events */
void trace_report_cut(const scorep_finalize_context* ctx, const trace_location* tl,
                      const trace_encode_cut* cut);

/* trace_clock_condition.c: collective, before the locations are encoded:
 * receives still before their sends after the clock offsets' correction
 * are moved after them; returns the largest move (master ticks). Then, per
 * location: begin, and every record's time to write; the events moved. */
typedef struct trace_clock_summary {
    uint64_t receives;  /* receives moved */
    uint64_t largest;   /* the largest move */
    uint64_t latency;   /* the smallest latency seen, which they keep after their sends */
    uint64_t collectives; /* collective leaves moved (after the enters they wait for) */
} trace_clock_summary;
uint64_t trace_clock_condition(const scorep_finalize_context* ctx, trace_clock_summary* summary);
void trace_clock_begin_location(trace_location* tl);
uint64_t trace_clock_time(const raw_record* r);
uint64_t trace_clock_moved_events(void);
extern const char* trace_hosts __attribute__((visibility("hidden")));  /* trace_definitions.c */
/* how far trace_clock_condition moved events (master ticks; set by trace_write.c) */
extern uint64_t trace_clock_moved_span __attribute__((visibility("hidden")));

/* trace_events.c: after the limit: 1 if tl records nothing more; the first
 * time it closes tl's open regions (all but the newest if skip_newest: its
 * enter is the event declined) and records the MeasurementOnOff(OFF) marker */
int trace_location_stop(trace_location* tl, uint64_t t, int skip_newest) __attribute__((visibility("hidden")));

/* trace_flush.c: OTF2 flush callbacks */
void trace_flush_install(OTF2_Archive* archive);

/* trace_collectives.c: OTF2 collective callbacks over the core's multi-process ops */
OTF2_ErrorCode trace_collectives_install(OTF2_Archive* archive, const scorep_multiprocess_ops* ops);

/* trace_definitions.c: each location of this process gets its local
 * definition file with the local -> global mapping tables (the archive's
 * definition files open); all of them in the shared archive */
int trace_write_location_definitions(OTF2_Archive* archive, const scorep_unified_definitions* defs);
int trace_write_mapping_tables(const scorep_finalize_context* ctx);
int trace_write_global_definitions(OTF2_Archive* archive, const scorep_finalize_context* ctx,
                                   const uint64_t* event_counts);

/* An abnormal end of a multi-rank run: ranks cannot talk, each writes alone. */
static inline int trace_is_partial(const scorep_finalize_context* ctx)
{
    return ctx->emergency && ctx->mpp == NULL;
}

/* trace_partial.c: this rank's own archive after an abnormal end of a
 * multi-rank run (no collectives possible), readable after every step; it
 * encodes the locations' events itself (counts: per location, in the order
 * of trace.locations) */
int trace_write_partial_archive(const scorep_finalize_context* ctx, uint64_t* counts,
                                int* locations_written);

/* trace_io.c: the I/O adapters' global definitions (IoParadigm, IoRegularFile,
 * IoHandle; strings from *next_string on) and their events' OTF2 values */
int trace_io_write_definitions(OTF2_GlobalDefWriter* writer, const scorep_unified_definitions* defs,
                               uint32_t* next_string);
OTF2_IoAccessMode trace_io_access_mode(uint64_t mode);
OTF2_IoSeekOption trace_io_seek_option(int64_t whence);
/* scorep_io_open_flag bits as OTF2 IoCreateHandle creation and status flags */
OTF2_IoCreationFlag trace_io_creation_flags(uint32_t open_flags);
OTF2_IoStatusFlag trace_io_status_flags(uint32_t open_flags);
/* a RAW_IO_OPERATION_ASYNC record's OTF2 record (POSIX aio: begin, issued, test, cancelled) */
OTF2_ErrorCode trace_io_async_encode(OTF2_EvtWriter* w, uint64_t t, uint32_t handle, uint64_t event_mode,
                                     uint64_t bytes_request, uint64_t matching_id);

/* trace_threads.c: the thread adapter's thread contingents (global
 * definitions, strings from *next_string on, when the run has a pthread
 * region), the global comm id of a process's contingent (its location
 * maps' extra comm entry) and the events' OTF2 records */
int trace_threads_in_use(const scorep_unified_definitions* defs);
extern int trace_thread_events;   /* this process recorded one (trace_events.c) */
uint32_t trace_thread_contingent(const scorep_unified_definitions* defs, uint32_t rank);
int trace_threads_write_definitions(OTF2_GlobalDefWriter* writer, const scorep_finalize_context* ctx,
                                    uint32_t* next_string);
OTF2_ErrorCode trace_thread_encode(OTF2_EvtWriter* w, OTF2_TimeStamp t, scorep_thread_event_kind kind,
                                   uint64_t sequence);
/* a task's record: team is the team's word (0: none), task creator << 32 | generation */
OTF2_ErrorCode trace_thread_task_encode(OTF2_EvtWriter* w, OTF2_TimeStamp t, scorep_thread_event_kind kind,
                                        uint64_t team, uint64_t task);
/* the process's fork/join teams (after recording ended) and the global
 * comm id of the process's team number team (its location maps' entries
 * after the contingent's) */
uint32_t trace_local_team_count(void);
uint32_t trace_team_comm(const scorep_unified_definitions* defs, uint32_t team);

/* trace_events.c: SCOREP_TRACING_HANDLE_COLLECTIVES (set at initialisation);
 * this process recorded an attribute (the memory adapter's) */
extern int trace_handle_collectives __attribute__((visibility("hidden")));
extern int trace_attributes_used __attribute__((visibility("hidden")));
/* trace_definitions.c: the OTF2 attribute definitions (global ids: the
 * scorep_attribute_kind values), written when the run recorded memory regions */
int trace_attributes_write_definitions(OTF2_GlobalDefWriter* writer, const scorep_unified_definitions* defs,
                                       uint32_t* next_string);

/* trace_events.c: the event callbacks of the substrate table */
void trace_events_fill_table(scorep_substrate* table);

/* trace_write.c: finalisation */
int trace_write(const scorep_finalize_context* ctx);
void trace_discard(void);

#endif /* SCOREP_WRAPGEN_TRACE_H */
