/* The measurement's life: one state machine, the only place that starts,
 * ends, aborts and forks the measurement (docs/MAINTAINING.md, "The
 * measurement's life cycle", draws it).
 *
 *   NOT_STARTED --first definition / MPI registration--> RUNNING
 *   RUNNING --MPI_Finalize hook, exit, _exit, _Exit------> ENDING --> ENDED
 *   RUNNING --MPI_Abort, fatal signal, _exit in a handler-> ABORTING --> ENDED
 *   any state, in the child of fork() -------------------> FORKED_CHILD (for good)
 *
 * Lower files (definitions, events, locations, substrates, unification, the
 * experiment directory, the serial/MPI process table) are called from here
 * and never call up: the event layer only sees a recording gate that this
 * file opens and closes (scorep_substrates_set_recording). What calls in here is
 * above the core: the adapter-facing definition entry points (entry.c), the
 * MPI layer, the C library (atexit, signals, fork). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "config.h"
#include "definitions.h"
#include "events.h"
#include "experiment.h"
#include "filter.h"
#include "lifecycle.h"
#include "messages.h"
#include "multiprocess.h"
#include "process_info.h"
#include "profile.h"
#include "signals.h"
#include "sampling.h"
#include "strict_metrics.h"
#include "unify.h"
#include "substrates.h"
#include "timer.h"

typedef enum measurement_state {
    NOT_STARTED = 0,
    RUNNING,
    ENDING,       /* normal end: unify and write (collectively with MPI) */
    ABORTING,     /* abnormal end: every process writes its own, marked partial */
    ENDED,
    FORKED_CHILD  /* this process is a child of fork(): records and writes nothing */
} measurement_state;

static volatile int state = NOT_STARTED;
static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int starting;
/* the process that started the measurement: a child made without the
 * fork() handlers (a raw clone) is recognised by its pid */
static pid_t measured_pid;
/* the thread that writes while ENDING/ABORTING (a signal on another thread waits for it) */
static volatile pid_t writer_tid;

static pid_t this_thread(void) { return (pid_t)syscall(SYS_gettid); }

static int is_measured_process(void)
{
    return state != FORKED_CHILD && getpid() == measured_pid;
}

/* ---- fork ---- */

/* A child of fork() without exec (a helper process, a pipe to a command the
 * C library does not spawn) must not write into the parent's experiment: it
 * records nothing and writes nothing, and its signals act as without
 * measurement. Cheap on purpose: a few stores and sigactions, no allocation. */
static void forked_child(void)
{
    scorep_substrates_set_recording(0);
    __atomic_store_n(&state, FORKED_CHILD, __ATOMIC_RELEASE);
    scorep_signals_restore();
}

/* ---- signals (signals.c decides when; this is what a signal does here) ---- */

static void finalize(int emergency);

static void on_ending_signal(int sig)
{
    if (!is_measured_process()) return;
    int now = state;
    if (now == RUNNING) {
        if (scorep_cfg.verbose) {
            char line[96];
            int n = snprintf(line, sizeof line, "[Score-P] signal %d (rank %d): writing the data recorded so far\n", sig,
                             scorep_process_rank);
            if (n > 0 && write(STDERR_FILENO, line, (size_t)n) < 0) n = 0;
        }
        finalize(1);
    } else if ((now == ENDING || now == ABORTING) && writer_tid != this_thread()) {
        /* another thread writes (a helper thread before MPI_Abort, the launcher's
         * SIGTERM arriving meanwhile): the process must not end under it. At most
         * 10 s: the writer may wait for a lock this interrupted thread holds. */
        struct timespec pause = {0, 10000000};
        for (int k = 0; k < 1000 && (state == ENDING || state == ABORTING); k++) nanosleep(&pause, NULL);
    }
}

void scorep_measurement_mpi_init_begins(void) { scorep_signals_step_aside(); }

static void mpi_init_ended(void) { scorep_signals_step_back(state == RUNNING); }

/* ---- start ---- */

#ifndef SCOREP_HAVE_TRACE
const scorep_substrate* scorep_trace_substrate(void) { return NULL; }
#endif

static void at_exit(void);
static void processes_known(void);

/* Score-P's program region: the executable's base name, the command line
 * (the executable's path and the arguments) as its canonical name, no
 * file, measurement paradigm, artificial. */
static void define_program_region(void)
{
    const char* path = scorep_process_executable();
    const char* const* args;
    int n = scorep_process_arguments(&args);
    size_t length = strlen(path) + 1;
    for (int i = 0; i < n; i++) length += strlen(args[i]) + 1;
    char* canonical = malloc(length);
    if (canonical) {
        size_t at = (size_t)snprintf(canonical, length, "%s", path);
        for (int i = 0; i < n; i++) at += (size_t)snprintf(canonical + at, length - at, " %s", args[i]);
    }
    scorep_program_region = scorep_definitions_region_lines(scorep_process_executable_base_name(), NULL, 0, 0,
                                                            SCOREP_PARADIGM_MEASUREMENT, SCOREP_ROLE_ARTIFICIAL,
                                                            NULL, canonical ? canonical : path);
    free(canonical);
}

/* NOT_STARTED -> RUNNING, once: the one "ensure started" entry. Called by the
 * adapter-facing definition functions (entry.c), the MPI layer's
 * registration and explicitly by programs; a call from inside the start
 * (a definition it makes) returns at once. */
void scorep_measurement_init(void)
{
    if (LIKELY(state != NOT_STARTED) || starting) return;
    /* the start's own system calls (configuration, filter, experiment
     * directory) reach the wrappers of a preloaded system adapter (--io=posix):
     * with event generation off on this thread they call straight through,
     * define no region and record nothing */
    int generation_was_off = scorep_thread_event_generation_off;
    scorep_event_generation_off();
    pthread_mutex_lock(&start_lock);
    if (state != NOT_STARTED) {
        pthread_mutex_unlock(&start_lock);
        scorep_thread_event_generation_off = generation_was_off;
        return;
    }
    starting = 1;
    measured_pid = getpid();
    scorep_experiment_note_working_directory();
    /* before the configuration's warnings: a child's go to its log */
    if (scorep_experiment_find_parent()) scorep_messages_to_log();
    scorep_process_info_record();
    scorep_config_load();
    if (scorep_timer_active != SCOREP_TIMER_INJECTED) scorep_timer_init(scorep_cfg.timer);
    scorep_definitions_init();
    /* before the filter: the program region is never filtered */
    define_program_region();
    scorep_strict_metrics_init();
    scorep_sampling_init(scorep_events_sample_location);
    scorep_events_extras_changed();
    if (scorep_cfg.filtering_file[0]) {
        char error[600];
        scorep_filter* f = scorep_filter_load(scorep_cfg.filtering_file, error, sizeof error);
        if (!f)
            scorep_warning_all_ranks("SCOREP_FILTERING_FILE: '%s': %s; measuring without a filter",
                                     scorep_cfg.filtering_file, error);
        scorep_definitions_set_filter(f);
    }
    if (scorep_cfg.enable_profiling) scorep_substrates_add(scorep_profile_substrate());
    if (scorep_cfg.enable_tracing) {
        const scorep_substrate* trace = scorep_trace_substrate();
        if (trace)
            scorep_substrates_add(trace);
        else
            scorep_warning("SCOREP_ENABLE_TRACING: this build has no trace substrate (OTF2 missing); "
                           "tracing is disabled");
    }
    scorep_flush_region = scorep_definitions_region("TRACE_BUFFER_FLUSH", NULL, 0, SCOREP_PARADIGM_MEASUREMENT,
                                                    SCOREP_ROLE_ARTIFICIAL, NULL, NULL);
    atexit(at_exit);
    pthread_atfork(NULL, NULL, forked_child);
    scorep_signals_install(on_ending_signal);
    __atomic_store_n(&state, RUNNING, __ATOMIC_RELEASE);
    scorep_substrates_set_recording(1);
    /* the program begins: everything this thread records is below it, and
     * the end of the measurement (scorep_events_finish_open_regions) leaves it */
    scorep_enter(scorep_program_region);
    starting = 0;
    pthread_mutex_unlock(&start_lock);
    scorep_verbose("measurement started: profiling %s, tracing %s, timer %s", scorep_cfg.enable_profiling ? "on" : "off",
                   scorep_cfg.enable_tracing ? "on" : "off", scorep_timer_name());
    /* MPI is coming if the MPI layer is loaded, even before its constructor
     * (announce_mpi, mpi_layer.c) has run: the libraries the MPI library
     * depends on run their constructors first, and I/O there reaches a
     * wrapper of the I/O adapters, which starts the measurement (MPICH's
     * read /proc/sys/kernel/random/boot_id). Else every rank would create
     * the experiment directory as a serial process. */
    if (!scorep_multiprocess_is_expected()) processes_known();
    scorep_thread_event_generation_off = generation_was_off;
}

int scorep_measurement_is_active(void) { return state == RUNNING; }

/* ---- the process layer (MPI) registers: rank and size are known ---- */

/* rank and size are final: create the experiment directory, tell substrates */
static void processes_known(void)
{
    const char* dir = scorep_experiment_create();
    if (!dir) return;
    const scorep_multiprocess_ops* mp = scorep_multiprocess();
    scorep_substrates_experiment_dir_ready(dir, mp->rank, mp->size);
}

void scorep_multiprocess_register(const scorep_multiprocess_ops* ops)
{
    scorep_measurement_init();
    mpi_init_ended();
    if (!scorep_multiprocess_adopt(ops)) return;
    scorep_verbose("rank %d of %d", ops->rank, ops->size);
    processes_known();
}

void scorep_multiprocess_register_deferred(const scorep_multiprocess_ops* ops)
{
    scorep_measurement_init();
    mpi_init_ended();
    if (scorep_multiprocess_adopt(ops))
        scorep_verbose("rank %d of %d (experiment directory at the end)", ops->rank, ops->size);
}

/* ---- end ---- */

static void at_exit(void)
{
    if (!is_measured_process()) return;
    scorep_multiprocess_exit_check();
    /* Ranks that leave without MPI_Finalize cannot unify: each writes its own. */
    int lonely = scorep_multiprocess_is_registered() && scorep_process_size > 1;
    finalize(lonely);
}

/* scorep_at_measurement_end (adapter.h) */
static void (*end_hooks[8])(void);
static int end_hook_count;

void scorep_at_measurement_end(void (*fn)(void))
{
    int i = __atomic_fetch_add(&end_hook_count, 1, __ATOMIC_ACQ_REL);
    if (i < 8) __atomic_store_n(&end_hooks[i], fn, __ATOMIC_RELEASE);
}

/* RUNNING -> ENDING (emergency 0) or ABORTING (1, 2) -> ENDED.
 * emergency: 0 normal end, 1 abnormal end from a thread that records events
 * (or from a signal handler on it), 2 abnormal end from a helper thread while
 * the program's threads may be inside an event */
static void finalize(int emergency)
{
    int expected = RUNNING;
    if (!is_measured_process()) return;
    if (!__atomic_compare_exchange_n(&state, &expected, emergency ? ABORTING : ENDING, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
        return;
    writer_tid = this_thread();
    scorep_substrates_set_recording(0);
    scorep_sampling_end();
    /* the files written now are the measurement's: a preloaded system
     * adapter's wrappers call straight through (see scorep_measurement_init) */
    int generation_was_off = scorep_thread_event_generation_off;
    scorep_event_generation_off();
    if (emergency == 2) {
        /* no new event starts now; one already past its gate ends within nanoseconds */
        struct timespec pause = {0, 2000000};
        nanosleep(&pause, NULL);
        emergency = 1;
    }
    uint64_t t = scorep_timer_read();
    scorep_events_finish_open_regions(t);
    for (int i = 0; i < end_hook_count && i < 8; i++)
        if (end_hooks[i]) end_hooks[i]();
    scorep_substrates_recording_ended(emergency);
    scorep_timer_finish_calibration();
    const scorep_multiprocess_ops* mp = scorep_multiprocess();
    bool communicate = !emergency && mp->size > 1;

    const char* dir = scorep_experiment_directory();
    if (!dir) {
        if (communicate || !scorep_multiprocess_is_registered() || mp->size == 1)
            dir = scorep_experiment_create();
        else
            dir = scorep_experiment_create_local();
        if (dir && !emergency)
            scorep_substrates_experiment_dir_ready(dir, mp->rank, mp->size);
    }

    scorep_unified_definitions* defs = communicate ? scorep_unify_definitions() : scorep_local_definitions();
    uint64_t span[2] = {UINT64_MAX, t};
    for (scorep_location* l = scorep_location_list(); l; l = l->next)
        if (l->begin_ticks < span[0]) span[0] = l->begin_ticks;
    if (span[0] == UINT64_MAX) span[0] = t;
    /* the ranks' clocks differ (nodes): the span is taken on rank 0's clock,
     * as OTF2 readers see the events (docs/CLOCKS.md) */
    span[0] = scorep_timer_to_master(span[0]);
    span[1] = scorep_timer_to_master(span[1]);
    if (communicate) {
        mp->allreduce_u64(&span[0], 1, 1);
        mp->allreduce_u64(&span[1], 1, 2);
    }
    scorep_finalize_context ctx = {
        .directory = dir,
        .rank = mp->rank,
        .size = mp->size,
        /* one process needs no communication, so even an abnormal end can
         * write complete output; several processes can no longer talk */
        .mpp = emergency && mp->size > 1 ? NULL : mp,
        .defs = defs,
        .ticks_per_second = scorep_timer_ticks_per_second(),
        .global_begin_ticks = span[0],
        .global_end_ticks = span[1],
        .emergency = emergency,
    };
    if (dir)
        scorep_substrates_write_and_finalize(&ctx);
    else
        scorep_substrates_finalize();
    if (dir && mp->rank == 0) scorep_verbose("experiment written to %s", dir);
    __atomic_store_n(&state, ENDED, __ATOMIC_RELEASE);
    scorep_thread_event_generation_off = generation_was_off;
    /* abnormal end: the process layer keeps this process alive (bounded)
     * until the other ranks on the node wrote theirs (mpi/abort_peers.c) */
    if (emergency) scorep_multiprocess_abnormal_end_written();
}

/* ---- the process ends without exit handlers: _exit, _Exit ----
 * Open MPI's fatal error handler (MPI_ERRORS_ARE_FATAL, the default) ends a
 * rank with _exit from its run-time; a program's signal handler often ends
 * with _exit; /bin/sh (dash) ends every run with _exit; some programs end so
 * to skip their destructors. No exit handler runs, so without the
 * process-end component (runtime/process_end/), which interposes _exit and
 * _Exit and calls here, the process would leave nothing: the data recorded
 * so far is written (a rank's by the MPI layer), then the C library's _exit
 * ends the process as asked. A child of fork() or vfork() writes nothing and
 * passes through without lock or allocation: _exit is called there, and in
 * signal handlers, where only async-signal-safe code may run.
 * A process that ends so of its own accord ends normally: its data is whole.
 * Abnormal (written as partial) are an _exit from inside a handler of a
 * signal (the signal ended it) and a rank of several that leaves without
 * MPI_Finalize (it cannot unify, as at exit). */
void scorep_measurement_process_ends(void)
{
    if (!is_measured_process() || state != RUNNING) return;
    if (scorep_multiprocess_process_ends()) return;
    int abnormal = scorep_signals_program_handler_running()
                   || (scorep_multiprocess_is_registered() && scorep_process_size > 1);
    scorep_verbose("the process ends without exit handlers (_exit%s): writing the data recorded so far",
                   abnormal ? " in a signal handler" : "");
    finalize(abnormal);
}

void scorep_process_ends_without_exit_handlers(const char* name, int status)
{
    (void)name;   /* _exit and _Exit end the process alike */
    scorep_measurement_process_ends();
    scorep_signals_end_process(status);
}

void scorep_measurement_finalize(void)
{
    if (state == NOT_STARTED) return;
    finalize(0);
}

void scorep_measurement_abort(void) { finalize(1); }

void scorep_measurement_abort_beside_running_threads(void) { finalize(2); }

/* A program nothing else measures (an unmodified one under scorep-exec
 * without adapters) is sampled all the same (SCOREP_ENABLE_UNWINDING,
 * core/sampling.h): the measurement starts when the core is loaded. */
__attribute__((constructor)) static void start_when_sampled(void)
{
    bool enabled = false;
    const char* value = getenv("SCOREP_ENABLE_UNWINDING");
    if (value && scorep_config_parse_bool(value, &enabled) && enabled) scorep_measurement_init();
}
