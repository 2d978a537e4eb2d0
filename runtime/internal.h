/* Declarations shared by the core's own files (not by substrates or adapters). */
#ifndef SCOREP_WRAPGEN_INTERNAL_H
#define SCOREP_WRAPGEN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "substrate.h"

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#define TLS_FAST __attribute__((tls_model("initial-exec")))

/* ---- configuration (config.c) ---- */
typedef enum scorep_timer_kind {
    SCOREP_TIMER_TSC = 0,
    SCOREP_TIMER_CLOCK_GETTIME = 1,
    SCOREP_TIMER_INJECTED = 2
} scorep_timer_kind;

typedef struct scorep_config {
    bool enable_profiling;
    bool enable_tracing;
    const char* experiment_directory;   /* "" if not set */
    bool overwrite_experiment_directory;
    uint64_t total_memory;
    uint64_t tracing_max_size;          /* SCOREP_TRACING_MAX_SIZE; 0: not set (the default,
                                           decided when the experiment directory exists) */
    scorep_timer_kind timer;
    const char* filtering_file;         /* "" if not set */
    bool verbose;
    const char* mpi_enable_groups;
    const char* libwrap_path;
    bool libwrap_nested;                /* also scorep_libwrap_record_nested (libwrap.h) */
    bool caf_record_mpi;                /* read by the CAF adapter (runtime/caf_adapter/) */
    const char* profiling_format;       /* SCOREP_PROFILING_FORMAT, one of Score-P's values */
    bool profiling_cube;                /* write profile.cubex (profile_cube.c) */
    bool tracing_handle_collectives;    /* SCOREP_TRACING_HANDLE_COLLECTIVES (trace/trace_events.c) */
} scorep_config;

extern scorep_config scorep_cfg;
void scorep_config_load(void);
/* scorep.cfg: one NAME=value line per variable, the effective values */
int scorep_config_write(FILE* out);
/* name, default, description of every variable, index from 0 until NULL name */
typedef struct scorep_config_var_info {
    const char* name;
    const char* type;
    const char* default_value;
    const char* description;
} scorep_config_var_info;
const scorep_config_var_info* scorep_config_vars(void);
/* parsers, exposed for tests; return false on invalid text */
bool scorep_config_parse_bool(const char* text, bool* out);
bool scorep_config_parse_size(const char* text, uint64_t* out);

/* ---- timer (timer.c) ---- */
void scorep_timer_init(scorep_timer_kind requested);
/* test hook: all timestamps come from clock() afterwards */
void scorep_timer_inject(uint64_t (*clock)(void), uint64_t ticks_per_second);
/* Refines the TSC calibration over the whole run; called once at finalisation. */
void scorep_timer_finish_calibration(void);
bool scorep_timer_tsc_is_safe(void);

/* ---- filter (filter.c) ---- */
typedef struct scorep_filter scorep_filter;
/* On error returns NULL and writes "line N: message" into error. */
scorep_filter* scorep_filter_parse(const char* text, char* error, size_t error_size);
scorep_filter* scorep_filter_load(const char* path, char* error, size_t error_size);
/* region_name and file_name may be NULL (file: also ""); mangled_name is what
 * MANGLED rules match, NULL or "" for regions without one (then the region
 * name) */
bool scorep_filter_excludes(const scorep_filter* filter, const char* region_name,
                            const char* file_name, const char* mangled_name);
void scorep_filter_free(scorep_filter* filter);
/* Edit distance, letters compared case-blind, a transposition counts one;
 * 99 for words over 63 bytes. For "did you mean" hints (filter keywords,
 * SCOREP_* variable names). */
int scorep_edit_distance(const char* a, const char* b);

/* ---- definitions (definitions.c) ---- */
/* idempotent; every definition function calls it */
void scorep_definitions_init(void);
/* The tables' own definition functions: they do not start the measurement
 * (the adapter API's scorep_*_define in entry.c start it, then call these). */
scorep_region scorep_definitions_region(const char* name, const char* file, int line, scorep_paradigm paradigm,
                                        scorep_region_role role, const char* group, const char* mangled);
/* with the line the region ends at (0: unknown); mangled is also the
 * canonical name the reports write */
scorep_region scorep_definitions_region_lines(const char* name, const char* file, int line, int end_line,
                                              scorep_paradigm paradigm, scorep_region_role role, const char* group,
                                              const char* mangled);
scorep_window scorep_definitions_window(uint64_t stable_key, scorep_comm comm, const char* name);
scorep_parameter scorep_definitions_parameter(const char* name, scorep_parameter_type type);
scorep_metric scorep_definitions_metric(const char* name, const char* unit, const char* description,
                                        scorep_metric_kind kind);
void scorep_definitions_set_filter(scorep_filter* filter);
/* scorep_region_define for a region with a linker symbol of its own (a
 * library function; for C++ the mangled name): the symbol is what MANGLED
 * filter rules match and is part of the region's identity. NULL, "" or the
 * name itself: no separate symbol (the same as scorep_region_define). */
scorep_region scorep_region_define_mangled(const char* name, const char* file, scorep_paradigm paradigm,
                                           scorep_region_role role, const char* group, const char* mangled);
/* Both: symbol and source line (scorep_region_define_at; line <= 0: unknown). */
scorep_region scorep_region_define_mangled_at(const char* name, const char* file, int line,
                                              scorep_paradigm paradigm, scorep_region_role role,
                                              const char* group, const char* mangled);
/* The same with the line the region ends at (compiler regions). */
scorep_region scorep_region_define_lines(const char* name, const char* file, int line, int end_line,
                                        scorep_paradigm paradigm, scorep_region_role role, const char* group,
                                        const char* mangled);
/* indexed by region id; an array in the library's own data, hidden: the
 * event path reads a flag with one load, no GOT entry and pointer before it */
extern uint8_t scorep_region_filtered_flags[] __attribute__((visibility("hidden")));
#define SCOREP_MAX_REGIONS (1u << 20)

/* the measurement's own region of a trace buffer's flush (definitions.c;
 * defined at the start, lifecycle.c) */
extern scorep_region scorep_flush_region;

/* ---- locations (location.c) ---- */
extern __thread scorep_location* scorep_tls_location TLS_FAST;
/* A created thread's location while its start routine's region waits for
 * the thread's next event (events.c, scorep_enter_thread_start): the
 * thread's own pointer is NULL meanwhile, so that its next event takes the
 * event layer's slow way, which alone takes it back. */
extern __thread scorep_location* scorep_location_parked TLS_FAST;
/* the thread's new (or an ended thread's) location; NULL on a thread that
 * handed its location back */
scorep_location* scorep_location_create_for_thread(void);
/* The thread's ThreadEnd (thread adapter) was recorded on loc: its location
 * is handed back for reuse, the thread records nothing more. */
void scorep_location_thread_ends(scorep_location* loc);
uint64_t scorep_location_event_count(const scorep_location* loc);

/* ---- event layer (events.c) ---- */
/* POSIX aio's events (events.c), for io_async.c, which keeps the operations
 * in flight: begin, issued, test or cancelled at time t; the complete of an
 * operation that began at `began` */
void scorep_io_async_record(uint64_t t, scorep_io_async_event event, scorep_io_handle handle,
                           scorep_io_operation mode, uint64_t bytes_request, uint64_t matching_id)
    __attribute__((visibility("hidden")));
void scorep_io_async_complete(scorep_io_handle handle, scorep_io_operation mode, uint64_t began,
                              uint64_t bytes_done, uint64_t matching_id) __attribute__((visibility("hidden")));
/* Leaves every region still open, newest first, at time t (finalisation) */
void scorep_events_finish_open_regions(uint64_t t);

/* ---- profile substrate (profile.c) ---- */
const scorep_substrate* scorep_profile_substrate(void);

/* Walk a location's call-path tree: the profile's per-node numbers. */
typedef struct scorep_profile_numbers {
    uint64_t visits;
    uint64_t time_incl;      /* ticks */
    uint64_t time_min, time_max;  /* ticks, of one visit */
    uint64_t bytes_sent, bytes_received;
    uint64_t messages_sent, messages_received;
    uint64_t bytes_read, bytes_written;
    uint64_t collectives;
    /* one-sided (RMA) bytes, apart from bytes_sent/received as in Score-P */
    uint64_t bytes_put, bytes_get;
} scorep_profile_numbers;
#define SCOREP_PROFILE_MAX_METRICS 8
typedef struct scorep_profile_node scorep_profile_node;
struct scorep_profile_node {
    scorep_region region;          /* for parameter nodes: the parameterised region */
    uint32_t parameter;            /* SCOREP_INVALID_ID unless a parameter node */
    int64_t parameter_value;       /* int value or string id */
    scorep_profile_node* parent;
    scorep_profile_node* first_child;
    scorep_profile_node* next_sibling;
    scorep_profile_node* cached_child[2];  /* the two children entered last, newest first */
    uint64_t enter_ticks;
    scorep_profile_numbers n;
    int64_t metrics[SCOREP_PROFILE_MAX_METRICS];
};
/* root of the location's tree (region SCOREP_INVALID_ID); NULL if the
 * profile substrate is not active */
scorep_profile_node* scorep_profile_root(scorep_location* loc);

/* ---- byte buffers (buffer.c) ---- */
typedef struct scorep_buffer {
    uint8_t* data;
    size_t size, capacity;
    size_t read_pos;
    bool read_error;
} scorep_buffer;
void scorep_buffer_put(scorep_buffer* b, const void* data, size_t n);
void scorep_buffer_put_u64(scorep_buffer* b, uint64_t v);
void scorep_buffer_put_str(scorep_buffer* b, const char* s); /* NULL allowed */
uint64_t scorep_buffer_get_u64(scorep_buffer* b);
/* returns a pointer into the buffer (NUL-terminated) or NULL for a NULL string */
const char* scorep_buffer_get_str(scorep_buffer* b);
void scorep_buffer_free(scorep_buffer* b);

/* ---- multi-process (multiprocess.c) ---- */
/* world communicator size / own rank, final after MPI registration */
extern int scorep_process_rank;
extern int scorep_process_size;
/* The MPI layer is linked: wait for its registration before creating the
 * experiment directory (called from the layer's constructor). Expected also
 * when the layer is in the process before its constructor has run. */
void scorep_multiprocess_expect(void);
int scorep_multiprocess_is_expected(void);
/* Adopts a process layer's rank, size and collectives; 0 if one was adopted
 * already. Only the life cycle calls it (scorep_multiprocess_register*). */
int scorep_multiprocess_adopt(const scorep_multiprocess_ops* ops);
/* A check the MPI layer runs when the process exits, before the data is
 * written (did MPI run without the adapter seeing it?). */
void scorep_multiprocess_set_exit_check(void (*check)(void));
void scorep_multiprocess_exit_check(void);
/* The MPI layer's step when the process ends without exit handlers (_exit):
 * returns 0 if MPI was not initialised (the process is no rank), else 1
 * (it wrote this rank's data if MPI ran). */
void scorep_multiprocess_set_process_ends(int (*hook)(void));
int scorep_multiprocess_process_ends(void);
/* The process layer's step after this process wrote its data at an abnormal
 * end (the MPI layer: tell the ranks on this node, and wait, bounded, until
 * they have written theirs, so that the launcher does not kill them meanwhile). */
void scorep_multiprocess_set_abnormal_end_written(void (*hook)(void));
void scorep_multiprocess_abnormal_end_written(void);
int scorep_multiprocess_is_registered(void);

/* ---- signals (signals.c): the life cycle's handlers for the signals that
 * end a process; write is what a signal does to the measurement ---- */
void scorep_signals_install(void (*write)(int sig));
void scorep_signals_restore(void);
void scorep_signals_step_aside(void);
void scorep_signals_step_back(int measurement_running);
/* a program's handler of a handled signal is running on this thread */
int scorep_signals_program_handler_running(void);

/* ---- life cycle (lifecycle.c): called from above the core only ---- */
/* The MPI layer after PMPI_Init: switch to the MPI ops (starts the
 * measurement if needed); creates the experiment directory collectively.
 * ops must stay valid until finalisation. */
void scorep_multiprocess_register(const scorep_multiprocess_ops* ops);
/* The same, but the ops cannot communicate yet (MPI was initialised behind
 * the adapter's back and the ranks cannot agree now without risking a
 * deadlock): rank and size are known, the experiment directory is created at
 * finalisation, when the ops work. */
void scorep_multiprocess_register_deferred(const scorep_multiprocess_ops* ops);
/* The MPI layer just before PMPI_Init: the measurement's crash handlers step
 * aside so that MPI installs its own; registration puts ours back on top,
 * chaining to MPI's. */
void scorep_measurement_mpi_init_begins(void);
/* scorep_measurement_abort for a helper thread that records no events, while
 * the program's threads may still be recording: stops recording, lets events
 * under way finish, then writes. */
void scorep_measurement_abort_beside_running_threads(void);
/* Whether MPI calls, and so the request table's uses, can run at the same time
 * (MPI_THREAD_MULTIPLE); the table is locked only then. Set once, before the
 * first request; the default is 1. */
void scorep_requests_concurrent(int concurrent);
/* collective: rank 0 ends with the concatenation of every rank's blob in rank
 * order, gathered up a binomial tree; returns true on rank 0 */
bool scorep_tree_gather(scorep_buffer* mine, scorep_buffer* all_on_root);
/* collective: up a binomial tree, merge(child, into) at each parent */
void scorep_tree_reduce(scorep_buffer* mine, void (*merge)(scorep_buffer* child,
                                                           scorep_buffer* into));
void scorep_bcast_buffer(scorep_buffer* b, int root);

/* ---- unification (unify.c) ---- */
scorep_unified_definitions* scorep_unify_definitions(void);
/* emergency: identity maps, local tables as global, no communication */
scorep_unified_definitions* scorep_local_definitions(void);
void scorep_unified_definitions_free(scorep_unified_definitions* d);

/* ---- experiment directory (experiment.c) ---- */
/* at the start: the working directory every experiment name is taken against */
void scorep_experiment_note_working_directory(void);
/* At the start: is this process a child of a measured process whose run it
 * joins (its experiment goes into the parent's, its messages to a log)? */
int scorep_experiment_find_parent(void);

/* ---- messages (messages.c) ---- */
/* kept until scorep_messages_log_in says where: <dir>/scorep.log, or
 * (NULL) stderr again */
void scorep_messages_to_log(void);
/* SCOREP_VERBOSE: whether scorep_verbose prints (the configuration sets it) */
void scorep_messages_set_verbose(bool on);
void scorep_messages_log_in(const char* dir);
/* collective when an MPI layer is registered; returns the path or NULL */
const char* scorep_experiment_create(void);
/* without communication (abnormal end before the ranks agreed on one) */
const char* scorep_experiment_create_local(void);
/* This process was started by MPI_Comm_spawn: where the configured directory
 * exists (the parent's), the experiment goes inside it, never replacing it. */
void scorep_experiment_spawned(void);

/* ---- reports ---- */
/* A whole-experiment profile as rank 0 sees it after unification. */
typedef struct scorep_report_row {
    uint32_t location;   /* index into the unified location arrays */
    uint32_t callpath;
    scorep_profile_numbers n;  /* times already in ns */
    uint64_t time_excl;        /* ns */
    int64_t metrics[SCOREP_PROFILE_MAX_METRICS]; /* indexed by global metric id */
} scorep_report_row;
typedef struct scorep_report_callpath {
    uint32_t region;     /* global region id */
    uint32_t parent;     /* SCOREP_INVALID_ID for roots */
    uint32_t parameter;  /* global parameter id or SCOREP_INVALID_ID */
    int64_t parameter_value; /* int, or global string id */
} scorep_report_callpath;
/* ---- per-file I/O totals (io_files.c) ---- */
typedef struct scorep_io_file_total {
    const char* name;   /* the file's name; NULL: the files beyond the per-process table */
    uint64_t visits, bytes_read, bytes_written, time_ns;
} scorep_io_file_total;
/* the I/O operation events' hooks (events.c), on the transfer's thread */
/* hidden: called per transfer from events.c, directly (no PLT jump; after
 * the transfer's system call an indirect jump is predicted badly) */
__attribute__((visibility("hidden"))) void scorep_io_files_begin(uint64_t t, scorep_io_handle handle,
                                                                 scorep_io_operation mode);
__attribute__((visibility("hidden"))) void scorep_io_files_complete(uint64_t t, scorep_io_handle handle,
                                                                    uint64_t bytes);
__attribute__((visibility("hidden"))) void scorep_io_files_transfer(uint64_t t_begin, uint64_t t_end,
                                                                    scorep_io_handle handle,
                                                                    scorep_io_operation mode, uint64_t bytes);
/* collective: the totals per file name on rank 0 (malloc'ed, *count entries) */
scorep_io_file_total* scorep_io_files_collect(const scorep_finalize_context* ctx, size_t* count);

typedef struct scorep_report {
    const scorep_unified_definitions* defs;
    int ranks;
    const char* timer;
    const char* start;     /* ISO time */
    const char* command;
    int partial;           /* 1: written after abort/signal */
    const char* hosts;     /* host name of each rank (profile_cube.h), or NULL */
    /* each rank's two clock offsets to rank 0 (timer.h; docs/CLOCKS.md), or NULL */
    const struct scorep_clock_offset* clock_offsets;
    uint64_t ticks_per_second;
    uint32_t callpath_count;
    scorep_report_callpath* callpaths;
    size_t row_count;
    scorep_report_row* rows;
    /* per-file I/O totals (io_files.c), or NULL */
    size_t io_file_count;
    scorep_io_file_total* io_files;
} scorep_report;
/* collective: gather all profiles to rank 0; returns the report on rank 0 */
scorep_report* scorep_profile_collect(const scorep_unified_definitions* defs, bool emergency);
void scorep_report_free(scorep_report* r);
int scorep_report_write_json(const scorep_report* r, const char* path);
int scorep_report_write_text(const scorep_report* r, const char* path);
int scorep_report_write_folded(const scorep_report* r, const char* path);

/* ---- process info (process_info.c) ---- */
void scorep_process_info_record(void);
const char* scorep_process_command_line(void);
const char* scorep_process_start_time(void);

#endif
