/* Start and end of the measurement: lazy initialisation on first use,
 * finalisation once (MPI_Finalize via the MPI layer, exit, abort, signal). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "timer.h"

scorep_region scorep_flush_region = SCOREP_INVALID_ID;

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int initialising;
static char start_time[64];
static char* command_line;

const char* scorep_process_command_line(void) { return command_line ? command_line : ""; }
const char* scorep_process_start_time(void) { return start_time; }

static void read_command_line(void)
{
    FILE* f = fopen("/proc/self/cmdline", "rb");
    if (!f) return;
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    for (size_t i = 0; i + 1 < n; i++)
        if (buf[i] == '\0') buf[i] = ' ';
    command_line = strdup(buf);
}

static void finalize(int emergency);

static void at_exit(void)
{
    scorep_multiprocess_exit_check();
    /* Ranks that leave without MPI_Finalize cannot unify: each writes its own. */
    int lonely = scorep_multiprocess_is_registered() && scorep_process_size > 1;
    finalize(lonely);
}

static const int fatal_signals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

static void on_fatal_signal(int sig)
{
    if (scorep_cfg.verbose) {
        char line[96];
        int n = snprintf(line, sizeof line, "[Score-P] signal %d (rank %d): writing the data recorded so far\n",
                         sig, scorep_process_rank);
        if (n > 0 && write(STDERR_FILENO, line, (size_t)n) < 0) n = 0;
    }
    finalize(1);
    /* delivered when the handler returns and the mask is lifted */
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_signal_handlers(void)
{
    for (size_t i = 0; i < sizeof fatal_signals / sizeof *fatal_signals; i++) {
        struct sigaction old;
        if (sigaction(fatal_signals[i], NULL, &old) != 0) continue;
        /* the program's own handlers win */
        if (old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO)) continue;
        /* Launchers often send SIGTERM twice (Open MPI does): every fatal
         * signal stays blocked while the data is written, and the handler
         * re-raises with the default action once it is done. */
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        for (size_t k = 0; k < sizeof fatal_signals / sizeof *fatal_signals; k++)
            sigaddset(&sa.sa_mask, fatal_signals[k]);
        sa.sa_flags = 0;
        sigaction(fatal_signals[i], &sa, NULL);
    }
}

static void add_substrate(const scorep_substrate* s)
{
    if (!s || scorep_substrate_count_active >= SCOREP_MAX_SUBSTRATES) return;
    int slot = scorep_substrate_count_active;
    if (s->init && s->init(slot) != 0) {
        scorep_warning("the %s substrate could not start; continuing without it", s->name);
        return;
    }
    scorep_substrates[scorep_substrate_count_active++] = s;
}

#ifndef SCOREP_HAVE_TRACE
const scorep_substrate* scorep_trace_substrate(void) { return NULL; }
#endif

void scorep_measurement_init(void)
{
    if (LIKELY(scorep_phase_now != SCOREP_PHASE_PRE_INIT) || initialising) return;
    pthread_mutex_lock(&init_lock);
    if (scorep_phase_now != SCOREP_PHASE_PRE_INIT) {
        pthread_mutex_unlock(&init_lock);
        return;
    }
    initialising = 1;
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(start_time, sizeof start_time, "%Y-%m-%dT%H:%M:%SZ", &tm);
    read_command_line();
    scorep_config_load();
    if (scorep_timer_active != SCOREP_TIMER_INJECTED) scorep_timer_init(scorep_cfg.timer);
    scorep_definitions_init();
    if (scorep_cfg.filtering_file[0]) {
        char error[600];
        scorep_filter* f = scorep_filter_load(scorep_cfg.filtering_file, error, sizeof error);
        if (!f)
            scorep_warning_all_ranks("SCOREP_FILTERING_FILE: '%s': %s; measuring without a filter",
                                     scorep_cfg.filtering_file, error);
        scorep_definitions_set_filter(f);
    }
    if (scorep_cfg.enable_profiling) add_substrate(scorep_profile_substrate());
    if (scorep_cfg.enable_tracing) {
        const scorep_substrate* trace = scorep_trace_substrate();
        if (trace)
            add_substrate(trace);
        else
            scorep_warning("SCOREP_ENABLE_TRACING: this build has no trace substrate (OTF2 missing); "
                           "tracing is disabled");
    }
    scorep_events_activate_substrates();
    scorep_flush_region =
        scorep_region_define("TRACE_BUFFER_FLUSH", NULL, SCOREP_PARADIGM_MEASUREMENT, SCOREP_ROLE_ARTIFICIAL, NULL);
    atexit(at_exit);
    install_signal_handlers();
    __atomic_store_n(&scorep_phase_now, SCOREP_PHASE_ACTIVE, __ATOMIC_RELEASE);
    initialising = 0;
    pthread_mutex_unlock(&init_lock);
    scorep_verbose("measurement started: profiling %s, tracing %s, timer %s", scorep_cfg.enable_profiling ? "on" : "off",
                   scorep_cfg.enable_tracing ? "on" : "off", scorep_timer_name());
    if (!scorep_multiprocess_is_expected()) scorep_lifecycle_processes_known();
}

int scorep_measurement_is_active(void) { return scorep_phase_now == SCOREP_PHASE_ACTIVE; }

void scorep_lifecycle_processes_known(void)
{
    const char* dir = scorep_experiment_create();
    if (!dir) return;
    const scorep_multiprocess_ops* mp = scorep_multiprocess();
    for (int i = 0; i < scorep_substrate_count_active; i++)
        if (scorep_substrates[i]->experiment_dir_ready)
            scorep_substrates[i]->experiment_dir_ready(dir, mp->rank, mp->size);
}

/* emergency: 0 normal end, 1 abnormal end from a thread that records events
 * (or from a signal handler on it), 2 abnormal end from a helper thread while
 * the program's threads may be inside an event */
static void finalize(int emergency)
{
    int expected = SCOREP_PHASE_ACTIVE;
    if (!__atomic_compare_exchange_n(&scorep_phase_now, &expected, SCOREP_PHASE_FINALIZING, false,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return;
    if (emergency == 2) {
        /* no new event starts now; one already past its phase check ends within nanoseconds */
        struct timespec pause = {0, 2000000};
        nanosleep(&pause, NULL);
        emergency = 1;
    }
    uint64_t t = scorep_timer_read();
    scorep_events_finish_open_regions(t);
    scorep_timer_finish_calibration();
    const scorep_multiprocess_ops* mp = scorep_multiprocess();
    bool communicate = !emergency && mp->size > 1;

    const char* dir = scorep_experiment_directory();
    if (!dir) {
        bool had_ready = false;
        if (communicate || !scorep_multiprocess_is_registered() || mp->size == 1)
            dir = scorep_experiment_create();
        else
            dir = scorep_experiment_create_local();
        if (dir && !emergency)
            for (int i = 0; i < scorep_substrate_count_active; i++)
                if (scorep_substrates[i]->experiment_dir_ready) {
                    scorep_substrates[i]->experiment_dir_ready(dir, mp->rank, mp->size);
                    had_ready = true;
                }
        (void)had_ready;
    }

    scorep_unified_definitions* defs = communicate ? scorep_unify_definitions() : scorep_local_definitions();
    uint64_t span[2] = {UINT64_MAX, t};
    for (scorep_location* l = scorep_location_list(); l; l = l->next)
        if (l->begin_ticks < span[0]) span[0] = l->begin_ticks;
    if (span[0] == UINT64_MAX) span[0] = t;
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
        for (int i = 0; i < scorep_substrate_count_active; i++)
            if (scorep_substrates[i]->write && scorep_substrates[i]->write(&ctx) != 0)
                scorep_warning("the %s substrate could not write all its data", scorep_substrates[i]->name);
    for (int i = 0; i < scorep_substrate_count_active; i++)
        if (scorep_substrates[i]->finalize) scorep_substrates[i]->finalize();
    if (dir && mp->rank == 0) scorep_verbose("experiment written to %s", dir);
    __atomic_store_n(&scorep_phase_now, SCOREP_PHASE_DONE, __ATOMIC_RELEASE);
}

void scorep_measurement_finalize(void)
{
    if (scorep_phase_now == SCOREP_PHASE_PRE_INIT) return;
    finalize(0);
}

void scorep_measurement_abort(void) { finalize(1); }

void scorep_measurement_abort_beside_running_threads(void) { finalize(2); }
