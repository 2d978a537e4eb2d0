/*
 * Internal interface between the event layer (runtime/core/events.c), the
 * substrate registry (runtime/core/substrates.c) and a substrate (the profile,
 * runtime/profile*.c; the trace, runtime/trace/).
 *
 * Who calls what
 *   - A substrate registers its scorep_substrate table with the registry
 *     (scorep_substrates_add; the life cycle registers the profile and the
 *     trace as the configuration asks, a test its recorder). The event layer
 *     calls the table's callbacks through the registry's dispatch tables. A
 *     NULL callback is skipped.
 *   - Event callbacks get the location of the calling thread, the timestamp in
 *     timer ticks (scorep_timer_ticks_per_second() converts) and the event data
 *     with process-local ids (region, comm, window, parameter, string ids are
 *     the ones scorep_*_define returned in this process).
 *   - At finalisation the life cycle unifies definitions across ranks and
 *     then calls write(ctx) on every substrate, on every rank, at the same
 *     time; ctx carries the unified definitions, the local->global id maps and
 *     collective operations over all ranks (for OTF2's collective callbacks).
 *
 * Threading
 *   - init, experiment_dir_ready, write and finalize: called exactly once per
 *     process, on one thread, in this order. If no experiment directory could
 *     be created, experiment_dir_ready and write are skipped and only
 *     finalize runs.
 *   - location_created: on the new location's own thread, before its first event.
 *   - every event callback for a location: on the thread that holds it only, so
 *     a substrate needs no lock for per-location state. Different locations
 *     call concurrently. A location passes from an ended thread to a new one
 *     through a lock (location.c), so the new thread sees all the old one wrote.
 *   - After write() begins no event callback runs for the process (threads still
 *     producing events then are ignored by the event layer).
 *
 * Memory: a substrate keeps per-location state in
 * loc->substrate_data[substrate slot]; its slot is passed to init().
 */
#ifndef SCOREP_WRAPGEN_SUBSTRATE_H
#define SCOREP_WRAPGEN_SUBSTRATE_H

#include <stddef.h>
#include <stdint.h>

#include "scorep_wrapgen/adapter.h"
#include "scorep_wrapgen/io_async.h"

#define SCOREP_MAX_SUBSTRATES 4

/* ---- locations -------------------------------------------------------------- */

/* One per live thread, created lazily on the thread's first event, never
 * freed before finalisation (threads that end early keep their data). A
 * thread that ends with no region open hands its location on to the next
 * new thread (location.c): the location's data goes on accumulating. */
#define SCOREP_TEAM_SIZES_MAX 8
#define SCOREP_TEAM_LEVELS_MAX 4
typedef struct scorep_location {
    uint32_t local_id;      /* dense per process, creation order: 0 is the first thread */
    uint32_t creator;       /* local_id of the location of the thread that created this
                             * location's first thread (the thread adapter's pthread_create),
                             * SCOREP_INVALID_ID if not known */
    uint64_t begin_ticks;   /* timestamp of creation */
    uint64_t last_ticks;    /* timestamp of the location's last event */
    /* the events of the location so far: open regions, count (event_state.h) */
    struct scorep_event_state* events;
    /* the profile's current call-path node on this location (profile.c; NULL
     * without the profile): here, in the first cache line with the fields
     * above, so that the profile's short form of an enter and an exit
     * (profile_fast.c) reaches the node in one load from the thread's
     * location rather than through the profile's own state */
    struct scorep_profile_node* profile_current;
    void* substrate_data[SCOREP_MAX_SUBSTRATES];
    /* fork/join teams (scorep_thread_team_begin): the location's number in
     * the team that made it (0: a thread's own location, "Master thread"
     * or a pthread), and the locations of the members of the teams this
     * location forks, by member number (NULL until it forks one) */
    uint32_t team_member;
    uint32_t team_level;   /* ... and the level of that team among its forker's (below) */
    /* A location forks teams at levels: 0 where it forks outside any team it
     * forked itself, 1 inside such a team (nested parallelism with the
     * location as member 0 of both), ... fork_level is the level of its
     * next fork. team_members[level][member] are the members' locations. */
    uint32_t fork_level;
    struct scorep_location** team_members[SCOREP_TEAM_LEVELS_MAX];
    /* the teams it forked, in the order first seen, each as its key
     * level << 24 | size: a team is (its forker, its level, its size), its
     * members the forker and team_members[level][1 .. size - 1] (a team
     * beyond SCOREP_TEAM_SIZES_MAX is in no list: its trace records name
     * the process's thread contingent) */
    uint32_t team_keys[SCOREP_TEAM_SIZES_MAX];
    uint32_t team_key_count;
    /* its open team parts (team begin recorded, team end not yet), nested:
     * as a member of the team that made it and as member 0 of the teams it
     * forks; for each the depth of its open regions before the part */
    uint32_t team_parts;
    uint32_t team_part_depth[SCOREP_TEAM_LEVELS_MAX + 1];
    const struct scorep_thread_team* team_part_team[SCOREP_TEAM_LEVELS_MAX + 1];
    /* the synchronous strict metrics (SCOREP_METRIC_RUSAGE, _PERF) of the
     * thread at the location's last enter or leave, in the order of
     * scorep_strict_metric_ids (core/strict_metrics.h); NULL when none is
     * recorded. The event layer fills it before it dispatches an enter or
     * a leave. */
    uint64_t* metric_values;
    /* the stack unwinding of the location's enters and samples
     * (core/sampling.h); NULL without SCOREP_ENABLE_UNWINDING */
    struct scorep_unwind_state* unwind;
    struct scorep_location* next;  /* process list, newest first */
} scorep_location;

/* Global location id written to traces and profile.json rows:
 * rank << 32 | local_id. Known only once the rank is known; at finalisation
 * ctx->rank is final. */
static inline uint64_t scorep_location_global_id(uint32_t rank, uint32_t local_id)
{
    return ((uint64_t)rank << 32) | local_id;
}

/* Current thread's location, creating it if needed (never NULL while active). */
scorep_location* scorep_location_current(void);
/* All locations of the process (newest first); stable after finalisation starts. */
scorep_location* scorep_location_list(void);
uint32_t scorep_location_count(void);

/* ---- timer ------------------------------------------------------------------ */

uint64_t scorep_timer_now(void);
uint64_t scorep_timer_ticks_per_second(void);
const char* scorep_timer_name(void);  /* "tsc", "clock_gettime" or "injected" */

/* ---- definitions (process-local) ----------------------------------------------- */

typedef struct scorep_region_def {
    const char* name;
    const char* file;       /* NULL if unknown */
    const char* group;      /* NULL if none */
    scorep_paradigm paradigm;
    scorep_region_role role;
    int filtered;
    uint32_t line;          /* source line where the region begins, 0 if unknown */
    uint32_t end_line;      /* source line where it ends, 0 if unknown */
    /* Score-P's canonical name: the linker symbol (compiler and library
     * regions), the command line (the program region); NULL: the name */
    const char* canonical;
} scorep_region_def;

typedef struct scorep_comm_def {
    uint64_t stable_key;    /* see scorep_comm_define; 0 for groups */
    int is_group;
    uint32_t size;
    const int* local_to_world; /* size entries */
    const char* name;       /* may be NULL */
    /* An intercommunicator (remote_size > 0) is defined as the union of its
     * two groups, the group holding the lowest world rank first, so that
     * both sides define one communicator; the peer ranks of its messages and
     * collective roots name the remote group (MPI semantics), whose members
     * are local_to_world[remote_offset .. remote_offset + remote_size - 1]. */
    uint32_t remote_offset, remote_size;
    /* the process recorded its CommCreate (events.c): only then a CommDestroy */
    uint8_t create_recorded;
} scorep_comm_def;

typedef struct scorep_window_def {
    uint64_t stable_key;
    scorep_comm comm;
    const char* name;
} scorep_window_def;

typedef struct scorep_parameter_def {
    const char* name;
    scorep_parameter_type type;
} scorep_parameter_def;

typedef struct scorep_metric_def {
    const char* name;
    const char* unit;
    const char* description;  /* "" if none was given */
    scorep_metric_kind kind;
} scorep_metric_def;

typedef struct scorep_io_handle_def {
    const char* name;       /* the file's name as opened */
    scorep_io_paradigm paradigm;
    int pre_created;        /* stdin, stdout, stderr: active without IoCreateHandle */
    scorep_io_access mode;  /* a pre-created handle's access mode */
    /* 0: the file's own handle; n: the handle of a duplicate made as
     * descriptor n - 1 (dup, dup2, dup3, fcntl F_DUPFD): same file, another
     * handle, so that the trace's IoDuplicateHandle names two */
    uint32_t duplicate;
    /* a POSIX handle of the descriptor under an ISO C stream (fopen's): the
     * stream's handle, the ISO C one of the same name, is its parent */
    int under_stream;
} scorep_io_handle_def;

/* Process-local tables. Ids are dense from 0. Entries never move and never
 * change after definition, so they may be read without a lock. */
uint32_t scorep_region_count(void);
const scorep_region_def* scorep_region_get(scorep_region id);
uint32_t scorep_comm_count(void);
const scorep_comm_def* scorep_comm_get(scorep_comm id);
/* the flag create_recorded of comm: set returns whether it was set before */
int scorep_comm_create_recorded(scorep_comm comm, int set);
/* A rank the events of comm carry (a peer or a root) as a rank of the
 * communicator the definitions describe: on an intercommunicator its place
 * in the union of both groups; anything else (and invalid ranks) unchanged. */
uint32_t scorep_comm_defined_rank(scorep_comm comm, uint32_t rank);
uint32_t scorep_window_count(void);
const scorep_window_def* scorep_window_get(scorep_window id);
uint32_t scorep_parameter_count(void);
const scorep_parameter_def* scorep_parameter_get(scorep_parameter id);
uint32_t scorep_metric_count(void);
const scorep_metric_def* scorep_metric_get(scorep_metric id);
uint32_t scorep_io_handle_count(void);
const scorep_io_handle_def* scorep_io_handle_get(scorep_io_handle id);

/* Strings: string parameter values and anything else a substrate needs. Same
 * text -> same id. Defining takes a lock (use from event callbacks only where
 * a new string is rare; the event layer already does it for string parameters). */
typedef uint32_t scorep_string;
scorep_string scorep_string_define(const char* text);
uint32_t scorep_string_count(void);
const char* scorep_string_get(scorep_string id);

/* ---- the program ---------------------------------------------------------------- */

/* The program region (Score-P's): named after the executable, entered on
 * the thread that starts the measurement as it starts and left as it ends,
 * so it is the root of that thread's call tree, above main; the trace
 * writes its enter and leave as ProgramBegin and ProgramEnd. Defined at the
 * start (lifecycle.c); SCOREP_INVALID_ID before. */
extern scorep_region scorep_program_region;

/* the executable's path (/proc/self/exe), "PROGRAM" if unknown, and its
 * last component */
const char* scorep_process_executable(void);
const char* scorep_process_executable_base_name(void);
/* the command line's arguments after argv[0] */
int scorep_process_arguments(const char* const** args);

/* ---- multi-process operations ---------------------------------------------------- */

/* Registered by the MPI layer (runtime/mpi/, over PMPI on a duplicate of
 * MPI_COMM_WORLD); without it the core uses a serial version (rank 0 of 1).
 * All calls are collective over all ranks except send/recv. Buffers are bytes. */
typedef struct scorep_multiprocess_ops {
    int rank;
    int size;
    void (*barrier)(void);
    void (*bcast)(void* buffer, size_t bytes, int root);
    /* recv_buffer: size * bytes on root, ignored elsewhere */
    void (*gather)(const void* send_buffer, size_t bytes, void* recv_buffer, int root);
    /* counts and displacements in bytes, significant on root */
    void (*gatherv)(const void* send_buffer, size_t bytes, void* recv_buffer,
                    const size_t* recv_counts, const size_t* displacements, int root);
    void (*scatter)(const void* send_buffer, void* recv_buffer, size_t bytes, int root);
    void (*scatterv)(const void* send_buffer, const size_t* send_counts,
                     const size_t* displacements, void* recv_buffer, size_t bytes, int root);
    void (*allreduce_u64)(uint64_t* values, size_t count, int op); /* op: 0 sum, 1 min, 2 max */
    /* point to point byte messages (used by the tree unification) */
    void (*send)(const void* buffer, size_t bytes, int dest);
    /* receives one message from source; returns a malloc'ed buffer, *bytes set */
    void* (*recv)(int source, size_t* bytes);
    /* terminate all ranks (used only on unrecoverable errors) */
    void (*abort)(int code);
} scorep_multiprocess_ops;

/* The ops in effect (serial ones until the MPI layer registers). */
const scorep_multiprocess_ops* scorep_multiprocess(void);

/* ---- finalisation context ---------------------------------------------------------- */

/* Unified definitions. Global tables are complete on rank 0 only (NULL/0
 * elsewhere); the *_map arrays are valid on every rank and map this process's
 * local ids to global ids. Global ids are dense from 0. */
typedef struct scorep_unified_definitions {
    /* global tables (rank 0) */
    uint32_t string_count;      const char* const* strings;
    uint32_t region_count;      const scorep_region_def* regions;
    uint32_t comm_count;        const scorep_comm_def* comms;    /* groups too */
    uint32_t window_count;      const scorep_window_def* windows; /* .comm is a global id */
    uint32_t parameter_count;   const scorep_parameter_def* parameters;
    uint32_t metric_count;      const scorep_metric_def* metrics;
    uint32_t io_handle_count;   const scorep_io_handle_def* io_handles;
    /* every location of every rank (rank 0): parallel arrays */
    uint32_t location_count;
    const uint32_t* location_rank;
    const uint32_t* location_thread;  /* local_id within its rank */
    const uint64_t* location_event_count; /* events the location recorded (0 if unknown) */
    const uint32_t* location_creator; /* the creator's thread (local_id, same rank), or SCOREP_INVALID_ID */
    const uint32_t* location_team_member; /* scorep_location.team_member */
    const uint32_t* location_team_level;  /* scorep_location.team_level */
    const uint32_t* location_team_key_count;  /* scorep_location.team_key_count ... */
    const uint32_t (*location_team_keys)[SCOREP_TEAM_SIZES_MAX];  /* ... and team_keys */
    /* fork/join teams (every rank): the process's first team's number
     * among the run's teams (ranks in order, then forkers by thread, then
     * sizes in their list's order) and the run's number of teams */
    uint32_t team_offset, team_total;

    /* local -> global maps (every rank) */
    const uint32_t* string_map;     /* [scorep_string_count()] */
    const uint32_t* region_map;     /* [scorep_region_count()] */
    const uint32_t* comm_map;       /* [scorep_comm_count()] */
    const uint32_t* window_map;     /* [scorep_window_count()] */
    const uint32_t* parameter_map;  /* [scorep_parameter_count()] */
    const uint32_t* metric_map;     /* [scorep_metric_count()] */
    const uint32_t* io_handle_map;  /* [scorep_io_handle_count()] */
    /* the global communicators (comms without MPI groups: global ids
     * 0..communicator_count-1), on every rank: the trace's thread
     * contingents follow them (trace/trace_threads.c) */
    uint32_t communicator_count;
} scorep_unified_definitions;

typedef struct scorep_finalize_context {
    const char* directory;      /* the experiment directory (exists) */
    int rank, size;
    const scorep_multiprocess_ops* mpp;
    const scorep_unified_definitions* defs;
    /* timer: resolution and the global time span (min begin / max end over
     * all ranks, in ticks of this process's timer) */
    uint64_t ticks_per_second;
    uint64_t global_begin_ticks, global_end_ticks;
    /* how finalisation was triggered: 0 normal, 1 abort/signal (partial data;
     * write what is there, quickly). mpp is NULL when the ranks can no longer
     * talk (abnormal end with more than one process): no collective calls
     * then, and defs holds only this process's definitions (identity maps).
     * A single process gets mpp (serial ops) even after an abnormal end. */
    int emergency;
} scorep_finalize_context;

/* ---- the substrate table ----------------------------------------------------------- */

typedef enum scorep_comm_event {
    SCOREP_COMM_EVENT_HANDLE_BEGIN,
    SCOREP_COMM_EVENT_CREATE,
    SCOREP_COMM_EVENT_DESTROY,
    SCOREP_COMM_EVENT_HANDLE_END_CREATE,
    SCOREP_COMM_EVENT_HANDLE_END_DESTROY
} scorep_comm_event;

typedef struct scorep_substrate {
    const char* name;
    /* non-zero if the substrate records when every event happened (a trace).
     * Without such a substrate only enter, exit and parameter events read the
     * clock: the others' t is the location's last timestamp. */
    int needs_event_times;
    /* non-zero if the substrate's one-sided events carry their target (a
     * trace's RmaPut/RmaGet/RmaAtomic): the target parameter of the
     * scorep_rma_*_at_call_start events is not given to it */
    int rma_events_carry_target;
    /* non-zero if the substrate needs the I/O adapters' handles also where
     * no substrate records IoOperationBegin/Complete (the profile's per-file
     * totals): the wrappers then make them (scorep_io_operations_recorded) */
    int needs_io_handles;

    /* once; slot indexes loc->substrate_data. Return 0 on success; non-zero
     * disables the substrate (with a warning printed by the substrate). */
    int (*init)(int slot);
    /* once per process as soon as the experiment directory exists (serial:
     * at first need or at finalisation; MPI: right after MPI_Init). A trace
     * substrate that must flush before this point has to keep buffering or
     * use a temporary place. */
    void (*experiment_dir_ready)(const char* directory, int rank, int size);
    void (*location_created)(scorep_location* loc);
    /* the substrate records alone (no other is registered) and recording
     * is on or off: at registration and at every switch of recording */
    void (*activation_changed)(int alone, int recording);

    void (*enter)(scorep_location* loc, uint64_t t, scorep_region region);
    void (*leave)(scorep_location* loc, uint64_t t, scorep_region region);

    /* peer: rank in comm (its world rank: scorep_comm_world_rank, if a
     * substrate needs it; none does per event) */
    void (*mpi_send)(scorep_location* loc, uint64_t t, scorep_comm comm, int peer, int tag,
                     uint64_t bytes);
    void (*mpi_recv)(scorep_location* loc, uint64_t t, scorep_comm comm, int peer, int tag,
                     uint64_t bytes);
    /* request_id: a process-unique number chosen by the event layer (not the
     * adapter's handle), increasing, never reused within the process */
    void (*mpi_isend)(scorep_location* loc, uint64_t t, scorep_comm comm, int peer, int tag,
                      uint64_t bytes, uint64_t request_id);
    void (*mpi_isend_complete)(scorep_location* loc, uint64_t t, uint64_t request_id);
    void (*mpi_irecv_request)(scorep_location* loc, uint64_t t, uint64_t request_id);
    void (*mpi_irecv)(scorep_location* loc, uint64_t t, scorep_comm comm, int peer, int tag,
                      uint64_t bytes, uint64_t request_id);
    void (*mpi_request_test)(scorep_location* loc, uint64_t t, uint64_t request_id);
    void (*mpi_request_cancelled)(scorep_location* loc, uint64_t t, uint64_t request_id);
    void (*mpi_collective_begin)(scorep_location* loc, uint64_t t);
    /* root: rank in comm or SCOREP_NO_ROOT */
    void (*mpi_collective_end)(scorep_location* loc, uint64_t t, scorep_collective_kind kind,
                               scorep_comm comm, int root, uint64_t bytes_sent,
                               uint64_t bytes_received);

    void (*rma_win_create)(scorep_location* loc, uint64_t t, scorep_window win);
    void (*rma_win_destroy)(scorep_location* loc, uint64_t t, scorep_window win);
    /* target: rank in the window's communicator */
    void (*rma_put)(scorep_location* loc, uint64_t t, scorep_window win, int target,
                    uint64_t bytes, uint64_t matching_id);
    void (*rma_get)(scorep_location* loc, uint64_t t, scorep_window win, int target,
                    uint64_t bytes, uint64_t matching_id);
    void (*rma_atomic)(scorep_location* loc, uint64_t t, scorep_window win, int target,
                       scorep_rma_atomic_kind kind, uint64_t bytes_sent,
                       uint64_t bytes_received, uint64_t matching_id);
    void (*rma_op_complete)(scorep_location* loc, uint64_t t, scorep_window win,
                            uint64_t matching_id, int blocking);
    void (*rma_collective_begin)(scorep_location* loc, uint64_t t);
    void (*rma_collective_end)(scorep_location* loc, uint64_t t, scorep_collective_kind kind,
                               scorep_rma_sync_level level, scorep_window win, int root,
                               uint64_t bytes_sent, uint64_t bytes_received);
    void (*rma_group_sync)(scorep_location* loc, uint64_t t, scorep_rma_sync_level level,
                           scorep_window win, scorep_comm group);
    void (*rma_lock)(scorep_location* loc, uint64_t t, scorep_window win, int target,
                     int exclusive);
    void (*rma_unlock)(scorep_location* loc, uint64_t t, scorep_window win, int target);
    void (*rma_sync)(scorep_location* loc, uint64_t t, scorep_window win, int target);

    void (*io_bytes)(scorep_location* loc, uint64_t t, uint64_t bytes_read,
                     uint64_t bytes_written);
    /* the I/O adapters' handle events (adapter.h) */
    void (*io_create_handle)(scorep_location* loc, uint64_t t, scorep_io_handle handle, scorep_io_access mode,
                             uint32_t open_flags);
    void (*io_destroy_handle)(scorep_location* loc, uint64_t t, scorep_io_handle handle);
    void (*io_duplicate_handle)(scorep_location* loc, uint64_t t, scorep_io_handle old_handle,
                                scorep_io_handle new_handle, int close_on_exec);
    void (*io_operation_begin)(scorep_location* loc, uint64_t t, scorep_io_handle handle,
                               scorep_io_operation mode, uint64_t bytes_request, uint64_t matching_id);
    void (*io_operation_complete)(scorep_location* loc, uint64_t t, scorep_io_handle handle,
                                  uint64_t bytes_result, uint64_t matching_id);
    void (*io_seek)(scorep_location* loc, uint64_t t, scorep_io_handle handle, int64_t offset_request,
                    int whence, uint64_t offset_result);
    /* A transfer on a handle for substrates that sum per file (the profile's
     * per-file totals, io_files.c): its begin (t: the time of the region's
     * enter; SCOREP_TIME_OF_ENTER: the enter of the region open innermost
     * on loc, which the substrate knows) and its end with the bytes moved.
     * Called whether or not a substrate records IoOperationBegin. */
    void (*io_transfer_begin)(scorep_location* loc, uint64_t t, scorep_io_handle handle,
                              scorep_io_operation mode);
    void (*io_transfer_end)(scorep_location* loc, uint64_t t, scorep_io_handle handle, uint64_t bytes);
    /* POSIX aio's records but the complete (io_async.c): begin (with the
     * bytes requested), issued, test, cancelled of the operation matching_id */
    void (*io_operation_async)(scorep_location* loc, uint64_t t, scorep_io_async_event event,
                               scorep_io_handle handle, scorep_io_operation mode, uint64_t bytes_request,
                               uint64_t matching_id);
    /* the thread adapter's create/begin/end/wait and lock events (adapter.h) */
    void (*thread_event)(scorep_location* loc, uint64_t t, scorep_thread_event_kind kind, uint64_t sequence);
    /* loc forks the team (before its ThreadFork's thread_event): a
     * substrate may note the forker's state in it (forker_path) */
    void (*thread_fork)(scorep_location* loc, uint64_t t, scorep_thread_team* team);
    /* a member's part of a fork/join team begins on loc (the member's
     * location) and ends (adapter.h: scorep_thread_team_begin, _end) */
    void (*thread_team_begin)(scorep_location* loc, uint64_t t, const scorep_thread_team* team);
    void (*thread_team_end)(scorep_location* loc, uint64_t t, const scorep_thread_team* team);
    /* an OpenMP task's create, switch or complete on loc (adapter.h,
     * scorep_thread_task_event; creator is the location's number for its
     * implicit task) */
    void (*thread_task)(scorep_location* loc, uint64_t t, scorep_thread_event_kind kind,
                        const scorep_thread_team* team, uint32_t creator, uint32_t generation);
    /* communicators' life cycle (adapter.h, scorep_mpi_handle_begin/end):
     * the collective's begin, CommCreate or CommDestroy of comm, the
     * collective's end over comm (kind CREATE_HANDLE or DESTROY_HANDLE) */
    void (*comm_event)(scorep_location* loc, uint64_t t, scorep_comm_event kind, scorep_comm comm);
    /* an attribute of loc's next enter or leave (adapter.h, scorep_attribute) */
    void (*attribute)(scorep_location* loc, scorep_attribute_kind kind, uint64_t value);

    void (*parameter_int)(scorep_location* loc, uint64_t t, scorep_parameter param,
                          int64_t value);
    /* value is a string id (scorep_string_get) */
    void (*parameter_string)(scorep_location* loc, uint64_t t, scorep_parameter param,
                             scorep_string value);
    void (*metric_add)(scorep_location* loc, uint64_t t, scorep_metric metric, int64_t value);

    /* A trace buffer of loc was flushed to disk between t_begin and t_end (on
     * loc's thread). The trace substrate reports its own flushes by calling
     * scorep_event_buffer_flush(); the event layer then calls buffer_flush on
     * every substrate (the profile shows it as region "TRACE_BUFFER_FLUSH"). */
    void (*buffer_flush)(scorep_location* loc, uint64_t t_begin, uint64_t t_end);

    /* Leaves every region open on loc at t by the substrate's own record of
     * them, innermost first, at the end of recording; without it the event
     * layer calls leave for each region on the location's stack. */
    void (*close_open)(scorep_location* loc, uint64_t t);

    /* Recording has ended on every location (their open regions closed,
     * the adapters' end hooks run), before the definitions are unified:
     * the last point at which a substrate may define a region. emergency:
     * as in scorep_finalize_context (an abnormal end, maybe in a signal
     * handler: quickly, without malloc). */
    void (*recording_ended)(int emergency);
    /* Collective over all ranks (see context). Return 0 on success. */
    int (*write)(const scorep_finalize_context* ctx);
    /* release everything; once, after write (or instead of it if the
     * measurement ended without a directory) */
    void (*finalize)(void);

    /* A sample of loc's thread (SCOREP_ENABLE_UNWINDING) at t: the frames
     * below the innermost open region, outermost first, as code addresses
     * (none: the region itself); ticks: the time it stands for (since the
     * thread's last sample or event). Called in a signal handler that
     * interrupted the program (never the measurement), inside the
     * measurement: no lock, no allocation but the arena's. */
    void (*sample)(scorep_location* loc, uint64_t t, const uintptr_t* frames, uint32_t count, uint64_t ticks);
} scorep_substrate;

/* io_transfer_begin's t when the time is the enter of the innermost region */
#define SCOREP_TIME_OF_ENTER UINT64_MAX

/* The regions loc has entered and not yet left, outermost first: *regions
 * points to them (valid until loc's next enter or exit), the count is
 * returned. For a substrate that stops recording in the middle of a run and
 * closes what is open (the trace at SCOREP_TRACING_MAX_SIZE). On loc's thread. */
uint32_t scorep_location_open_regions(const scorep_location* loc, const scorep_region** regions);

/* Called by the trace substrate on loc's thread after it flushed loc's buffer. */
void scorep_event_buffer_flush(scorep_location* loc, uint64_t t_begin, uint64_t t_end);

/* Configuration a substrate may read (runtime/config.h has the full set). */
uint64_t scorep_config_total_memory(void);   /* SCOREP_TOTAL_MEMORY in bytes */
/* SCOREP_TRACING_MAX_SIZE in bytes; 0 if not set, UINT64_MAX for unlimited */
uint64_t scorep_config_tracing_max_size(void);
int scorep_config_tracing_handle_collectives(void);  /* SCOREP_TRACING_HANDLE_COLLECTIVES */
int scorep_config_verbose(void);             /* SCOREP_VERBOSE */

/* Messages with the "[Score-P] " prefix on stderr, "[Score-P] rank R: " in a
 * parallel run (messages.c). */
void scorep_warning(const char* format, ...) __attribute__((format(printf, 1, 2)));
/* What every rank finds alike (the environment): printed by rank 0 only, with
 * the number of ranks it concerns. */
void scorep_warning_all_ranks(const char* format, ...) __attribute__((format(printf, 1, 2)));
void scorep_verbose(const char* format, ...) __attribute__((format(printf, 1, 2)));
/* A test-only hold (config.c): sleeps variable's microseconds, read once into *cached (-1 at first) */
void scorep_test_hold(const char* variable, long* cached);

/* Memory for what lives as long as the process (arena.c): from mmap, never
 * malloc, so that an event in a signal handler may need it while the
 * interrupted code is inside malloc. Zero-filled, 16-byte aligned, NULL when
 * the system has none; never freed: release gives back only large blocks
 * (a grown table's old one). */
void* scorep_arena_alloc(size_t size);
char* scorep_arena_strdup(const char* text);
void scorep_arena_release(void* block, size_t size);

/* ---- the trace substrate's entry point ------------------------------------------------ */

/* Defined in runtime/trace/ when it is built (meson sets SCOREP_HAVE_TRACE=1);
 * returns its table, or NULL if tracing cannot work. */
const scorep_substrate* scorep_trace_substrate(void);

/* ---- inside the measurement ----
 * While a thread does the measurement's own work that other code must not
 * interleave with (an event on its way through the substrates, a new call
 * path's node, a definition, the trace's memory, a new location), its
 * event-generation flag (adapter.h) has bit 0 and SCOREP_INSIDE_MEASUREMENT
 * set. Bit 0 makes every wrapper and hook pass straight through: a signal
 * handler that interrupts the thread there records nothing, so an event in
 * progress keeps its records whole and in time order, and a handler never
 * waits for a lock its own thread holds. The second bit tells the handlers
 * of signals that end the process (signals.c) that the data cannot be
 * written from here: such a signal waits until the thread leaves, where
 * scorep_inside_end delivers it. The profile's short form of an enter and an
 * exit (events.c) does without: a handler's events between two of its
 * stores leave the tree as they found it. */
#define SCOREP_INSIDE_MEASUREMENT 8
/* hidden: one load without the GOT on every event of the general way */
extern volatile int scorep_signal_deferred __attribute__((visibility("hidden")));
void scorep_signals_deliver_deferred(void) __attribute__((visibility("hidden")));

static inline int scorep_inside_begin(void)
{
    int was = scorep_thread_event_generation_off;
    scorep_thread_event_generation_off = was | 1 | SCOREP_INSIDE_MEASUREMENT;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    return was;
}

static inline void scorep_inside_end(int was)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    scorep_thread_event_generation_off = was;
    if (__builtin_expect(scorep_signal_deferred, 0) && !(was & SCOREP_INSIDE_MEASUREMENT))
        scorep_signals_deliver_deferred();
}

static inline int scorep_inside(void) { return scorep_thread_event_generation_off & SCOREP_INSIDE_MEASUREMENT; }

static inline void scorep_inside_end_at(const int* was) { scorep_inside_end(*was); }
/* the rest of the enclosing block is inside the measurement */
#define INSIDE_MEASUREMENT \
    const int scorep_inside_was_ __attribute__((cleanup(scorep_inside_end_at), unused)) = scorep_inside_begin()

#endif /* SCOREP_WRAPGEN_SUBSTRATE_H */
