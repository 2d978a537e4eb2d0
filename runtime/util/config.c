/* Configuration from SCOREP_* environment variables, Score-P names and syntax.
 * An invalid value never stops the program: it is reported with the value
 * used instead, because the measurement should still happen. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "internal.h"
#include "config.h"
#include "filter.h"
#include "messages.h"
#include "timer.h"
#include "scorep_wrapgen/libwrap.h"

extern char** environ;

/* SCOREP_LIBWRAP_NESTED for the wrappers' inline test (libwrap.h); kept here, where it
 * is set, so that the configuration does not depend on the library wrapping code */
int scorep_libwrap_record_nested;

scorep_config scorep_cfg = {
    .enable_profiling = true,
    .enable_tracing = false,
    .experiment_directory = "",
    .overwrite_experiment_directory = false,
    .total_memory = 16384000,
    .timer = SCOREP_TIMER_TSC,
    .filtering_file = "",
    .verbose = false,
    .profiling_format = "cube4",
    .profiling_cube = true,
    .mpi_enable_groups = "DEFAULT",
    .libwrap_path = "",
    .libwrap_nested = false,
    .enable_unwinding = false,
    .sampling_events = "timer@1000",
    .sampling_sep = ",",
};

static const scorep_config_var_info config_vars[] = {
    {"SCOREP_ENABLE_PROFILING", "boolean", "true", "Write a call-path profile (profile.json, profile.txt, profile.folded; profile.cubex: SCOREP_PROFILING_FORMAT)"},
    {"SCOREP_ENABLE_TRACING", "boolean", "false", "Write an OTF2 event trace (traces.otf2)"},
    {"SCOREP_EXPERIMENT_DIRECTORY", "path", "", "Experiment directory; default scorep-<YYYYMMDD>_<HHMM>_<id>"},
    {"SCOREP_OVERWRITE_EXPERIMENT_DIRECTORY", "boolean", "false", "Replace an earlier experiment of this measurement with the same name (it is kept, renamed to <name>-old-<date>_<time>_<id>); other directories are never touched"},
    {"SCOREP_TOTAL_MEMORY", "size", "16000k", "Memory for trace buffers per process (suffixes k, M, G), taken when tracing starts (up to 256M of it faulted in then); when it is full, a thread spills its buffers to disk"},
    {"SCOREP_TRACING_MAX_SIZE", "size|unlimited", "free space / 2, per node", "Bytes of event data of all processes of a node together after which tracing stops (a warning, a MeasurementOnOff marker in the trace; the profile goes on); default: half the free space on the experiment's file system, for the node"},
    {"SCOREP_TRACING_HANDLE_COLLECTIVES", "boolean", "false", "The trace also has the MpiCollectiveBegin/End pair (OTF2's CREATE_HANDLE and DESTROY_HANDLE operations) around MPI_Init, MPI_Finalize and each call that creates or frees a communicator, as Score-P 8.4 writes it; off by default because Scalasca 2.6 stops on them (CommCreate and CommDestroy are written either way)"},
    {"SCOREP_TIMER", "tsc|clock_gettime", "tsc if invariant, else clock_gettime", "Timer used for timestamps"},
    {"SCOREP_FILTERING_FILE", "path", "", "Score-P filter file (SCOREP_REGION_NAMES_BEGIN ... / SCOREP_FILE_NAMES_BEGIN ...)"},
    {"SCOREP_VERBOSE", "boolean", "false", "Print what the measurement does"},
    {"SCOREP_MPI_ENABLE_GROUPS", "list", "DEFAULT", "MPI function groups to record (read by the MPI adapter): ALL, DEFAULT, CG, COLL, ENV, ERR, EXT, IO, MISC, P2P, RMA, SPAWN, TOPO, TYPE, XNONBLOCK, XREQTEST, ...; prefix a group with ~ to disable it"},
    {"SCOREP_LIBWRAP_PATH", "path list", "", "Directories searched for installed library wrappers"},
    {"SCOREP_LIBWRAP_NESTED", "boolean", "false", "Library wrappers also record library calls made inside a recorded library call, as nested regions (default: only the outermost call)"},
    {"SCOREP_PROFILING_FORMAT", "cube4|cube_tuple|default|tau_snapshot|none", "cube4", "Score-P's profile format: cube4 (also cube_tuple, default) writes profile.cubex besides profile.json/txt/folded; none writes only those (tau_snapshot is not written: as none)"},
    {"SCOREP_METRIC_RUSAGE", "list", "", "Resource usage fields (getrusage, per thread) recorded at every enter and leave, Score-P's names: ru_utime, ru_stime, ru_minflt, ..., or all (docs/METRICS.md)"},
    {"SCOREP_METRIC_RUSAGE_SEP", "string", ",", "Separator of the entries of SCOREP_METRIC_RUSAGE"},
    {"SCOREP_METRIC_PERF", "list", "", "Linux perf events (perf_event_open, per thread) recorded at every enter and leave: task-clock, page-faults, context-switches, ...; hardware events (cycles, instructions, ...) where the machine counts them (docs/METRICS.md)"},
    {"SCOREP_METRIC_PERF_SEP", "string", ",", "Separator of the entries of SCOREP_METRIC_PERF"},
    {"SCOREP_METRIC_PAPI", "list", "", "PAPI events (preset or native, per thread) recorded at every enter and leave where PAPI is installed: PAPI_TOT_CYC, PAPI_TOT_INS, ... (docs/METRICS.md)"},
    {"SCOREP_METRIC_PAPI_SEP", "string", ",", "Separator of the entries of SCOREP_METRIC_PAPI"},
    {"SCOREP_ENABLE_UNWINDING", "boolean", "false", "Sample each thread and unwind its stack: the functions the samples see join the call tree beside the recorded regions, with Score-P's hits metric (docs/SAMPLING.md)"},
    {"SCOREP_SAMPLING_EVENTS", "list", "timer@1000", "Sources of the samples with unwinding: timer@<microseconds of the thread's CPU time> (docs/SAMPLING.md)"},
    {"SCOREP_SAMPLING_SEP", "string", ",", "Separator of the entries of SCOREP_SAMPLING_EVENTS"},
    {"SCOREP_CAF_RECORD_MPI", "boolean", "false", "The CAF adapter also records the MPI calls OpenCoarrays makes inside a CAF call, nested in its region (default: one CAF statement, one region)"},
    {NULL, NULL, NULL, NULL},
};

/* Hooks for the tests only: each widens a race window or fakes a clock error
 * so that a test on one machine can provoke what a real run meets by chance.
 * They are read where they act (timer.c, mpi/clock_sync.c, experiment.c,
 * io_async.c, trace/trace_memory.c) and are kept out of config_vars, so that
 * scorep-info and its mirror list only what a user may set; known here so
 * that setting one draws no "not used" warning, and written to scorep.cfg
 * only when set, so that an experiment shows a hook was at work. */
static const scorep_config_var_info test_hook_vars[] = {
    {"SCOREP_TIMER_TEST_SKEW_NS", "integer", "0", "add this many ns times the process's rank (from the launcher: OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK, SLURM_PROCID) to every timestamp, to show the clock synchronisation on one machine (docs/CLOCKS.md)"},
    {"SCOREP_TIMER_TEST_DRIFT_PPM", "integer", "0", "make the process's clock run this many ppm times its rank fast (docs/CLOCKS.md)"},
    {"SCOREP_TIMER_TEST_OFFSET_ERROR_NS", "integer", "0", "add this many ns times the rank to the clock offset each rank measures, so that the trace's post-mortem correction of the clock condition has work (docs/CLOCKS.md)"},
    {"SCOREP_EXPERIMENT_TEST_LOCK_HOLD_US", "integer", "0", "wait this many microseconds between opening an earlier experiment's marker and locking it, a moment where runs started together with one SCOREP_EXPERIMENT_DIRECTORY race"},
    {"SCOREP_EXPERIMENT_TEST_MARK_HOLD_US", "integer", "0", "wait this many microseconds between making the experiment directory and marking it, a moment where runs started together with one SCOREP_EXPERIMENT_DIRECTORY race"},
    {"SCOREP_IO_TEST_AIO_LOCK_HOLD_US", "integer", "0", "hold the POSIX aio operations' table this many microseconds at each use, so that a test's completion signals arrive while it is held"},
    {"SCOREP_TRACING_TEST_POOL_HOLD_US", "integer", "0", "hold the lock of the trace memory's pool this many microseconds each time a block is taken, so that a test's signal arrives while the measurement holds it"},
    {NULL, NULL, NULL, NULL},
};

const scorep_config_var_info* scorep_config_vars(void) { return config_vars; }

static char* trimmed_copy(const char* text)
{
    while (isspace((unsigned char)*text)) text++;
    char* copy = strdup(text);
    size_t n = strlen(copy);
    while (n > 0 && isspace((unsigned char)copy[n - 1])) copy[--n] = '\0';
    return copy;
}

bool scorep_config_parse_bool(const char* text, bool* out)
{
    static const char* const yes[] = {"true", "yes", "on", "1", NULL};
    static const char* const no[] = {"false", "no", "off", "0", NULL};
    char* t = trimmed_copy(text);
    bool ok = false;
    for (int i = 0; yes[i]; i++)
        if (strcasecmp(t, yes[i]) == 0) { *out = true; ok = true; }
    for (int i = 0; no[i]; i++)
        if (strcasecmp(t, no[i]) == 0) { *out = false; ok = true; }
    free(t);
    return ok;
}

bool scorep_config_parse_size(const char* text, uint64_t* out)
{
    char* t = trimmed_copy(text);
    char* end = NULL;
    errno = 0;
    unsigned long long value = strtoull(t, &end, 10);
    bool ok = end != t && errno == 0 && t[0] != '-';
    uint64_t factor = 1;
    if (ok) {
        while (isspace((unsigned char)*end)) end++;
        switch (toupper((unsigned char)*end)) {
        case '\0': break;
        case 'K': factor = 1024ull; end++; break;
        case 'M': factor = 1024ull * 1024; end++; break;
        case 'G': factor = 1024ull * 1024 * 1024; end++; break;
        default: ok = false;
        }
        if (ok && (*end == 'b' || *end == 'B')) end++;
        if (ok && *end != '\0') ok = false;
    }
    if (ok && value > UINT64_MAX / factor) ok = false;
    if (ok) *out = (uint64_t)value * factor;
    free(t);
    return ok;
}

void scorep_config_for_each_entry(const char* list, const char* separators, void (*entry)(const char*))
{
    if (list == NULL) return;
    if (separators == NULL || !separators[0]) separators = ",";
    char* copy = strdup(list);
    if (copy == NULL) return;
    char* save = NULL;
    for (char* e = strtok_r(copy, separators, &save); e; e = strtok_r(NULL, separators, &save)) {
        while (isspace((unsigned char)*e)) e++;
        size_t n = strlen(e);
        while (n && isspace((unsigned char)e[n - 1])) e[--n] = 0;
        if (n) entry(e);
    }
    free(copy);
}

static void read_bool(const char* name, bool* field)
{
    const char* v = getenv(name);
    if (!v) return;
    if (!scorep_config_parse_bool(v, field))
        scorep_warning_all_ranks("%s: invalid value '%s' (expected true or false), using '%s'", name, v,
                                 *field ? "true" : "false");
}

static void read_string(const char* name, const char** field)
{
    const char* v = getenv(name);
    if (v) *field = strdup(v);
}

/* Variables of the toolchain's own tools and tests, not of the measurement:
 * they are in the environment of measured programs and are no typo. */
static const char* const tool_prefixes[] = {"SCOREP_WRAPGEN_", "SCOREP_VIEW_", "SCOREP_INSTALLCHECK_",
                                            "SCOREP_LIBWRAP_LIBCLANG", "SCOREP_CAF_HEADER", NULL};

/* A SCOREP_* variable this measurement does not read is silently without effect,
 * so one warning per name: with the nearest variable it does read when one is
 * a typing error or two away (SCOREP_ENABLE_TRACNG), otherwise a plain "not
 * used" (a Score-P variable of a feature this measurement does not have). */
static void warn_unknown_variables(void)
{
    for (char** e = environ; e && *e; e++) {
        if (strncmp(*e, "SCOREP_", 7) != 0) continue;
        const char* eq = strchr(*e, '=');
        size_t n = eq ? (size_t)(eq - *e) : strlen(*e);
        char name[128];
        if (n >= sizeof name) n = sizeof name - 1;
        memcpy(name, *e, n);
        name[n] = '\0';
        bool known = false;
        for (int i = 0; tool_prefixes[i] && !known; i++)
            known = strncmp(name, tool_prefixes[i], strlen(tool_prefixes[i])) == 0;
        for (const scorep_config_var_info* v = test_hook_vars; v->name && !known; v++)
            known = strcmp(v->name, name) == 0;
        const char* nearest = NULL;
        int best = 99;
        for (const scorep_config_var_info* v = config_vars; v->name && !known; v++) {
            if (strcmp(v->name, name) == 0) known = true;
            int d = scorep_edit_distance(name, v->name);
            /* a name cut short or run on (SCOREP_OVERWRITE_EXPERIMENT_DIR) is as near as a typo */
            size_t common = strlen(v->name) < n ? strlen(v->name) : n;
            if (common >= 14 && strncmp(name, v->name, common) == 0) d = 1;
            if (d < best) best = d, nearest = v->name;
        }
        if (known) continue;
        if (best <= 2 || (best <= 3 && strlen(name) > 20))
            scorep_warning_all_ranks("%s is not a variable of this measurement and has no effect; did you mean %s?", name,
                                     nearest);
        else
            scorep_warning_all_ranks("%s is not used by this measurement and has no effect (scorep-info config-vars lists the "
                                     "variables it reads)",
                                     name);
    }
}

/* Score-P's values, so that a Score-P job script runs unchanged: its cube4
 * (default), cube_tuple and default are all written as profile.cubex with
 * plain values (the tuple form needs statistics per visit we do not keep);
 * tau_snapshot is a format we do not write, said once, and acts as none. */
static void read_profiling_format(void)
{
    const char* v = getenv("SCOREP_PROFILING_FORMAT");
    if (!v) return;
    char* t = trimmed_copy(v);
    static const char* const cube[] = {"cube4", "cube_tuple", "default", NULL};
    bool known = false;
    for (int i = 0; cube[i]; i++)
        if (strcasecmp(t, cube[i]) == 0) scorep_cfg.profiling_format = cube[i], scorep_cfg.profiling_cube = true, known = true;
    if (strcasecmp(t, "none") == 0)
        scorep_cfg.profiling_format = "none", scorep_cfg.profiling_cube = false, known = true;
    if (strcasecmp(t, "tau_snapshot") == 0) {
        scorep_warning_all_ranks("SCOREP_PROFILING_FORMAT: 'tau_snapshot' is not written by this measurement; writing "
                                 "profile.json, profile.txt and profile.folded only (cube4 adds profile.cubex)");
        scorep_cfg.profiling_format = "tau_snapshot", scorep_cfg.profiling_cube = false, known = true;
    }
    if (!known)
        scorep_warning_all_ranks("SCOREP_PROFILING_FORMAT: invalid value '%s' (expected cube4, cube_tuple, default, "
                                 "tau_snapshot or none), using '%s'",
                                 v, scorep_cfg.profiling_format);
    free(t);
}

/* Smaller buffers than this cannot hold even the per-location chunk. */
#define MIN_TOTAL_MEMORY (512u * 1024u)

void scorep_config_load(void)
{
    warn_unknown_variables();
    read_bool("SCOREP_ENABLE_PROFILING", &scorep_cfg.enable_profiling);
    read_bool("SCOREP_ENABLE_TRACING", &scorep_cfg.enable_tracing);
    read_string("SCOREP_EXPERIMENT_DIRECTORY", &scorep_cfg.experiment_directory);
    read_bool("SCOREP_OVERWRITE_EXPERIMENT_DIRECTORY", &scorep_cfg.overwrite_experiment_directory);
    read_bool("SCOREP_VERBOSE", &scorep_cfg.verbose);
    scorep_messages_set_verbose(scorep_cfg.verbose);
    read_string("SCOREP_FILTERING_FILE", &scorep_cfg.filtering_file);
    read_string("SCOREP_MPI_ENABLE_GROUPS", &scorep_cfg.mpi_enable_groups);
    read_string("SCOREP_LIBWRAP_PATH", &scorep_cfg.libwrap_path);
    read_bool("SCOREP_LIBWRAP_NESTED", &scorep_cfg.libwrap_nested);
    scorep_libwrap_record_nested = scorep_cfg.libwrap_nested;
    read_bool("SCOREP_CAF_RECORD_MPI", &scorep_cfg.caf_record_mpi);
    read_bool("SCOREP_TRACING_HANDLE_COLLECTIVES", &scorep_cfg.tracing_handle_collectives);
    read_bool("SCOREP_ENABLE_UNWINDING", &scorep_cfg.enable_unwinding);
    read_string("SCOREP_SAMPLING_EVENTS", &scorep_cfg.sampling_events);
    read_string("SCOREP_SAMPLING_SEP", &scorep_cfg.sampling_sep);

    const char* mem = getenv("SCOREP_TOTAL_MEMORY");
    if (mem) {
        uint64_t bytes;
        if (!scorep_config_parse_size(mem, &bytes))
            scorep_warning_all_ranks("SCOREP_TOTAL_MEMORY: invalid value '%s' (expected a size like 16000k, 64M), using '%llu'",
                                     mem, (unsigned long long)scorep_cfg.total_memory);
        else if (bytes < MIN_TOTAL_MEMORY) {
            scorep_warning_all_ranks("SCOREP_TOTAL_MEMORY: value '%s' is below the minimum, using '%u'", mem,
                                     MIN_TOTAL_MEMORY);
            scorep_cfg.total_memory = MIN_TOTAL_MEMORY;
        } else
            scorep_cfg.total_memory = bytes;
    }

    const char* max_size = getenv("SCOREP_TRACING_MAX_SIZE");
    if (max_size) {
        uint64_t bytes;
        char* t = trimmed_copy(max_size);
        if (strcasecmp(t, "unlimited") == 0)
            scorep_cfg.tracing_max_size = UINT64_MAX;
        else if (scorep_config_parse_size(t, &bytes) && bytes > 0)
            scorep_cfg.tracing_max_size = bytes;
        else
            scorep_warning_all_ranks("SCOREP_TRACING_MAX_SIZE: invalid value '%s' (expected a size like 512M, 4G, or "
                                     "unlimited), using 'auto'", max_size);
        free(t);
    }

    read_profiling_format();

    bool tsc_safe = scorep_timer_tsc_is_safe();
    scorep_cfg.timer = tsc_safe ? SCOREP_TIMER_TSC : SCOREP_TIMER_CLOCK_GETTIME;
    const char* timer = getenv("SCOREP_TIMER");
    if (timer) {
        char* t = trimmed_copy(timer);
        if (strcasecmp(t, "tsc") == 0) {
            if (tsc_safe)
                scorep_cfg.timer = SCOREP_TIMER_TSC;
            else
                scorep_warning_all_ranks("SCOREP_TIMER: value 'tsc' is not safe here (no invariant TSC), using 'clock_gettime'");
        } else if (strcasecmp(t, "clock_gettime") == 0 || strcasecmp(t, "monotonic") == 0) {
            scorep_cfg.timer = SCOREP_TIMER_CLOCK_GETTIME;
        } else {
            scorep_warning_all_ranks("SCOREP_TIMER: invalid value '%s' (expected tsc or clock_gettime), using '%s'",
                                     timer, tsc_safe ? "tsc" : "clock_gettime");
        }
        free(t);
    }
}

const char* scorep_config_value(const char* name)
{
    static _Thread_local char number[32];
    if (!name) return NULL;
    if (strcmp(name, "SCOREP_ENABLE_PROFILING") == 0) return scorep_cfg.enable_profiling ? "true" : "false";
    if (strcmp(name, "SCOREP_ENABLE_TRACING") == 0) return scorep_cfg.enable_tracing ? "true" : "false";
    if (strcmp(name, "SCOREP_EXPERIMENT_DIRECTORY") == 0) return scorep_cfg.experiment_directory;
    if (strcmp(name, "SCOREP_OVERWRITE_EXPERIMENT_DIRECTORY") == 0)
        return scorep_cfg.overwrite_experiment_directory ? "true" : "false";
    if (strcmp(name, "SCOREP_TOTAL_MEMORY") == 0) {
        snprintf(number, sizeof number, "%llu", (unsigned long long)scorep_cfg.total_memory);
        return number;
    }
    if (strcmp(name, "SCOREP_TRACING_MAX_SIZE") == 0) {
        if (scorep_cfg.tracing_max_size == 0) return "auto";
        if (scorep_cfg.tracing_max_size == UINT64_MAX) return "unlimited";
        snprintf(number, sizeof number, "%llu", (unsigned long long)scorep_cfg.tracing_max_size);
        return number;
    }
    if (strcmp(name, "SCOREP_TRACING_HANDLE_COLLECTIVES") == 0)
        return scorep_cfg.tracing_handle_collectives ? "true" : "false";
    if (strcmp(name, "SCOREP_TIMER") == 0)
        return scorep_cfg.timer == SCOREP_TIMER_TSC ? "tsc" : "clock_gettime";
    for (const scorep_config_var_info* v = test_hook_vars; v->name; v++)
        if (strcmp(name, v->name) == 0) {
            const char* set = getenv(name);
            return set && *set ? set : v->default_value;
        }
    if (strcmp(name, "SCOREP_FILTERING_FILE") == 0) return scorep_cfg.filtering_file;
    if (strcmp(name, "SCOREP_VERBOSE") == 0) return scorep_cfg.verbose ? "true" : "false";
    if (strcmp(name, "SCOREP_MPI_ENABLE_GROUPS") == 0) return scorep_cfg.mpi_enable_groups;
    if (strcmp(name, "SCOREP_LIBWRAP_PATH") == 0) return scorep_cfg.libwrap_path;
    if (strcmp(name, "SCOREP_LIBWRAP_NESTED") == 0) return scorep_cfg.libwrap_nested ? "true" : "false";
    if (strcmp(name, "SCOREP_PROFILING_FORMAT") == 0) return scorep_cfg.profiling_format;
    if (strcmp(name, "SCOREP_CAF_RECORD_MPI") == 0) return scorep_cfg.caf_record_mpi ? "true" : "false";
    if (strcmp(name, "SCOREP_ENABLE_UNWINDING") == 0) return scorep_cfg.enable_unwinding ? "true" : "false";
    if (strcmp(name, "SCOREP_SAMPLING_EVENTS") == 0) return scorep_cfg.sampling_events;
    if (strcmp(name, "SCOREP_SAMPLING_SEP") == 0) return scorep_cfg.sampling_sep;
    /* the metric lists: read where they act (core/strict_metrics.c) */
    if (strncmp(name, "SCOREP_METRIC_", 14) == 0)
        for (const scorep_config_var_info* v = config_vars; v->name; v++)
            if (strcmp(name, v->name) == 0) {
                const char* set = getenv(name);
                return set ? set : v->default_value;
            }
    return NULL;
}

int scorep_config_write(FILE* out)
{
    for (const scorep_config_var_info* v = config_vars; v->name; v++)
        fprintf(out, "%s=%s\n", v->name, scorep_config_value(v->name));
    for (const scorep_config_var_info* v = test_hook_vars; v->name; v++)
        if (getenv(v->name)) fprintf(out, "%s=%s\n", v->name, scorep_config_value(v->name));
    return ferror(out) ? -1 : 0;
}

/* A test-only hold (SCOREP_*_TEST_*_HOLD_US): sleeps the variable's
 * microseconds; *cached keeps the value (-1: not read yet). */
void scorep_test_hold(const char* variable, long* cached)
{
    if (*cached < 0) {
        const char* v = getenv(variable);
        *cached = v ? strtol(v, NULL, 10) : 0;
    }
    if (*cached > 0) {
        struct timespec pause = {*cached / 1000000, (*cached % 1000000) * 1000};
        nanosleep(&pause, NULL);
    }
}

int scorep_config_verbose(void) { return scorep_cfg.verbose; }
uint64_t scorep_config_total_memory(void) { return scorep_cfg.total_memory; }
uint64_t scorep_config_tracing_max_size(void) { return scorep_cfg.tracing_max_size; }
int scorep_config_tracing_handle_collectives(void) { return scorep_cfg.tracing_handle_collectives; }
