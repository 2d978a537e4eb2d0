/* Synchronous strict metrics: the calling thread's resource usage
 * (getrusage RUSAGE_THREAD), Linux perf events (perf_event_open) and PAPI's
 * counters where PAPI is installed, read
 * at every enter and leave (strict_metrics.h). Names, units and variables
 * are Score-P's (its rusage and perf metric sources), so that a Score-P
 * user's settings and Cube's views carry over. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "strict_metrics.h"
#include "config.h"
#include "definitions.h"

#if SCOREP_HAVE_PAPI
#include <dlfcn.h>
#include <papi.h>
#include <pthread.h>
#endif

uint32_t scorep_strict_metric_count;
scorep_metric scorep_strict_metric_ids[SCOREP_STRICT_METRICS_MAX];

/* ---- resource usage ---- */

typedef enum {
    RU_UTIME, RU_STIME, RU_MAXRSS, RU_IXRSS, RU_IDRSS, RU_ISRSS, RU_MINFLT, RU_MAJFLT, RU_NSWAP,
    RU_INBLOCK, RU_OUBLOCK, RU_MSGSND, RU_MSGRCV, RU_NSIGNALS, RU_NVCSW, RU_NIVCSW, RU_COUNT_
} rusage_field;

/* the units as Cube shows Score-P's: the times in microseconds, the sizes
 * in kilobytes */
static const struct {
    const char* name;
    const char* unit;
    const char* description;
} rusage_fields[RU_COUNT_] = {
    [RU_UTIME] = {"ru_utime", "10^-6 s", "user CPU time used"},
    [RU_STIME] = {"ru_stime", "10^-6 s", "system CPU time used"},
    [RU_MAXRSS] = {"ru_maxrss", "2^10 Bytes", "maximum resident set size"},
    [RU_IXRSS] = {"ru_ixrss", "2^10 Bytes", "integral shared memory size"},
    [RU_IDRSS] = {"ru_idrss", "2^10 Bytes", "integral unshared data size"},
    [RU_ISRSS] = {"ru_isrss", "2^10 Bytes", "integral unshared stack size"},
    [RU_MINFLT] = {"ru_minflt", "#", "page reclaims (soft page faults)"},
    [RU_MAJFLT] = {"ru_majflt", "#", "page faults (hard page faults)"},
    [RU_NSWAP] = {"ru_nswap", "#", "number of swaps"},
    [RU_INBLOCK] = {"ru_inblock", "#", "block input operations"},
    [RU_OUBLOCK] = {"ru_oublock", "#", "block output operations"},
    [RU_MSGSND] = {"ru_msgsnd", "#", "IPC messages sent"},
    [RU_MSGRCV] = {"ru_msgrcv", "#", "IPC messages received"},
    [RU_NSIGNALS] = {"ru_nsignals", "#", "signals received"},
    [RU_NVCSW] = {"ru_nvcsw", "#", "voluntary context switches"},
    [RU_NIVCSW] = {"ru_nivcsw", "#", "involuntary context switches"},
};

static inline uint64_t rusage_value(const struct rusage* ru, rusage_field f)
{
    switch (f) {
    case RU_UTIME: return (uint64_t)ru->ru_utime.tv_sec * 1000000u + (uint64_t)ru->ru_utime.tv_usec;
    case RU_STIME: return (uint64_t)ru->ru_stime.tv_sec * 1000000u + (uint64_t)ru->ru_stime.tv_usec;
    case RU_MAXRSS: return (uint64_t)ru->ru_maxrss;
    case RU_IXRSS: return (uint64_t)ru->ru_ixrss;
    case RU_IDRSS: return (uint64_t)ru->ru_idrss;
    case RU_ISRSS: return (uint64_t)ru->ru_isrss;
    case RU_MINFLT: return (uint64_t)ru->ru_minflt;
    case RU_MAJFLT: return (uint64_t)ru->ru_majflt;
    case RU_NSWAP: return (uint64_t)ru->ru_nswap;
    case RU_INBLOCK: return (uint64_t)ru->ru_inblock;
    case RU_OUBLOCK: return (uint64_t)ru->ru_oublock;
    case RU_MSGSND: return (uint64_t)ru->ru_msgsnd;
    case RU_MSGRCV: return (uint64_t)ru->ru_msgrcv;
    case RU_NSIGNALS: return (uint64_t)ru->ru_nsignals;
    case RU_NVCSW: return (uint64_t)ru->ru_nvcsw;
    case RU_NIVCSW: return (uint64_t)ru->ru_nivcsw;
    case RU_COUNT_: break;
    }
    return 0;
}

/* the recorded fields, first among the values */
static rusage_field rusage_recorded[RU_COUNT_];
static uint32_t rusage_count;

/* ---- perf events ---- */

/* Score-P's names (perf list's), with perf's short forms; the software
 * events count on any Linux, the hardware ones need a PMU */
static const struct {
    const char* name;
    const char* alias;
    uint32_t type;
    uint64_t config;
    const char* description;
} perf_events[] = {
    {"cpu-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "CPU clock (ns)"},
    {"task-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "time the thread ran (ns)"},
    {"page-faults", "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "page faults"},
    {"minor-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, "minor page faults"},
    {"major-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, "major page faults"},
    {"context-switches", "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "context switches"},
    {"cpu-migrations", "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "CPU migrations"},
    {"alignment-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS, "alignment faults"},
    {"emulation-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS, "emulation faults"},
    {"cycles", "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "CPU cycles"},
    {"instructions", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "instructions"},
    {"cache-references", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, "cache references"},
    {"cache-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "cache misses"},
    {"branch-instructions", "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
     "branch instructions"},
    {"branch-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "branch misses"},
    {"bus-cycles", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, "bus cycles"},
    {"ref-cycles", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, "reference CPU cycles"},
    {"stalled-cycles-frontend", "idle-cycles-frontend", PERF_TYPE_HARDWARE,
     PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "stalled cycles in the front end"},
    {"stalled-cycles-backend", "idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
     "stalled cycles in the back end"},
};
#define PERF_EVENT_COUNT (sizeof perf_events / sizeof *perf_events)

/* the recorded events, after the rusage fields among the values */
static uint32_t perf_recorded[SCOREP_STRICT_METRICS_MAX];
static uint32_t perf_count;
/* kernel-side counting refused (perf_event_paranoid): user side only */
static int perf_exclude_kernel;

/* The thread's events, each read on its own: as one group (one read for
 * all) they undercounted, page faults by up to all of them, whenever
 * another perf session (perf stat) counted the same thread. Opened at the
 * thread's first read: per thread, not per location, because a location
 * passes from thread to thread (a pool's worker, a team member) and a
 * thread's counters count that thread only. */
static __thread struct {
    int state;   /* 0 not yet opened, 1 open, -1 could not be */
    int fd[SCOREP_STRICT_METRICS_MAX];
} perf_thread TLS_FAST;

static int perf_open(uint32_t event, int exclude_kernel)
{
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = perf_events[event].type;
    attr.config = perf_events[event].config;
    attr.exclude_kernel = exclude_kernel;
    attr.exclude_hv = 1;
    return (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static void perf_thread_open(void)
{
    perf_thread.state = -1;
    for (uint32_t i = 0; i < perf_count; i++) {
        int fd = perf_open(perf_recorded[i], perf_exclude_kernel);
        if (fd < 0) {
            while (i-- > 0) close(perf_thread.fd[i]);
            scorep_warning("SCOREP_METRIC_PERF: this thread's events could not be opened (%s); "
                           "its perf values stay 0",
                           strerror(errno));
            return;
        }
        perf_thread.fd[i] = fd;
    }
    perf_thread.state = 1;
}

static void perf_thread_close(void)
{
    if (perf_thread.state == 1)
        for (uint32_t i = 0; i < perf_count; i++) close(perf_thread.fd[i]);
    perf_thread.state = 0;
}

/* ---- PAPI (SCOREP_METRIC_PAPI), where libpapi is installed ----
 * Opened at run time (Debian's libpapi7.0), so that no library of the
 * measurement links it; one event set per thread, made at its first read. */

static uint32_t papi_count;
static char papi_names[SCOREP_STRICT_METRICS_MAX][128];

#if SCOREP_HAVE_PAPI
static struct {
    __typeof__(PAPI_library_init)* library_init;
    __typeof__(PAPI_thread_init)* thread_init;
    __typeof__(PAPI_event_name_to_code)* name_to_code;
    __typeof__(PAPI_event_code_to_name)* code_to_name;
    __typeof__(PAPI_enum_event)* enum_event;
    __typeof__(PAPI_query_event)* query_event;
    __typeof__(PAPI_create_eventset)* create_eventset;
    __typeof__(PAPI_add_event)* add_event;
    __typeof__(PAPI_start)* start;
    __typeof__(PAPI_stop)* stop;
    __typeof__(PAPI_read)* read;
    __typeof__(PAPI_cleanup_eventset)* cleanup_eventset;
    __typeof__(PAPI_destroy_eventset)* destroy_eventset;
    __typeof__(PAPI_strerror)* strerror;
    int ready;   /* 1: initialised; -1: not there or refused (why) */
    char why[200];
} papi;
static int papi_codes[SCOREP_STRICT_METRICS_MAX];

static unsigned long papi_thread_id(void) { return (unsigned long)pthread_self(); }

static int papi_open(void)
{
    if (papi.ready) return papi.ready > 0;
    papi.ready = -1;
    void* lib = dlopen("libpapi.so.7.0", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) lib = dlopen("libpapi.so", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        snprintf(papi.why, sizeof papi.why, "PAPI is not installed (libpapi.so.7.0: Debian's libpapi7.0)");
        return 0;
    }
#define SYM(field, name) papi.field = (__typeof__(papi.field))dlsym(lib, name)
    SYM(library_init, "PAPI_library_init");
    SYM(thread_init, "PAPI_thread_init");
    SYM(name_to_code, "PAPI_event_name_to_code");
    SYM(code_to_name, "PAPI_event_code_to_name");
    SYM(enum_event, "PAPI_enum_event");
    SYM(query_event, "PAPI_query_event");
    SYM(create_eventset, "PAPI_create_eventset");
    SYM(add_event, "PAPI_add_event");
    SYM(start, "PAPI_start");
    SYM(stop, "PAPI_stop");
    SYM(read, "PAPI_read");
    SYM(cleanup_eventset, "PAPI_cleanup_eventset");
    SYM(destroy_eventset, "PAPI_destroy_eventset");
    SYM(strerror, "PAPI_strerror");
#undef SYM
    if (!papi.library_init || !papi.thread_init || !papi.name_to_code || !papi.code_to_name || !papi.enum_event || !papi.query_event ||
        !papi.create_eventset || !papi.add_event || !papi.start || !papi.stop || !papi.read ||
        !papi.cleanup_eventset || !papi.destroy_eventset || !papi.strerror) {
        snprintf(papi.why, sizeof papi.why, "the installed libpapi lacks functions of PAPI 7");
        return 0;
    }
    int version = papi.library_init(PAPI_VER_CURRENT);
    if (version != PAPI_VER_CURRENT) {
        snprintf(papi.why, sizeof papi.why, "PAPI_library_init: %s",
                 version < 0 ? papi.strerror(version) : "another PAPI version than this measurement was built for");
        return 0;
    }
    if (papi.thread_init(papi_thread_id) != PAPI_OK) {
        snprintf(papi.why, sizeof papi.why, "PAPI_thread_init failed");
        return 0;
    }
    papi.ready = 1;
    return 1;
}

/* whether PAPI counts code here, alone in an event set; *error: why not */
static int papi_countable(int code, int* error)
{
    int set = PAPI_NULL;
    *error = papi.create_eventset(&set);
    if (*error != PAPI_OK) return 0;
    *error = papi.add_event(set, code);
    if (*error == PAPI_OK) {
        *error = papi.start(set);
        if (*error == PAPI_OK) {
            long long ignored[1];
            papi.stop(set, ignored);
        }
    }
    papi.cleanup_eventset(set);
    papi.destroy_eventset(&set);
    return *error == PAPI_OK;
}

/* the preset events this machine counts, for a warning */
static void papi_countable_events(char* out, size_t size)
{
    out[0] = 0;
    int code = PAPI_PRESET_MASK;
    if (papi.enum_event(&code, PAPI_ENUM_FIRST) == PAPI_OK)
        do {
            char name[PAPI_MAX_STR_LEN];
            if (papi.query_event(code) != PAPI_OK || papi.code_to_name(code, name) != PAPI_OK) continue;
            if (out[0]) strncat(out, ", ", size - strlen(out) - 1);
            strncat(out, name, size - strlen(out) - 1);
        } while (papi.enum_event(&code, PAPI_PRESET_ENUM_AVAIL) == PAPI_OK);
    if (!out[0]) snprintf(out, size, "none (PAPI finds no counters on this machine)");
}

static __thread struct {
    int state;   /* 0 not yet made, 1 counting, -1 could not be */
    int set;
} papi_thread TLS_FAST;

static void papi_thread_start(void)
{
    papi_thread.state = -1;
    papi_thread.set = PAPI_NULL;
    if (papi.create_eventset(&papi_thread.set) != PAPI_OK) return;
    for (uint32_t i = 0; i < papi_count; i++)
        if (papi.add_event(papi_thread.set, papi_codes[i]) != PAPI_OK) {
            scorep_warning("SCOREP_METRIC_PAPI: '%s' cannot be counted together with the events before it on "
                           "this thread; its PAPI values stay 0", papi_names[i]);
            return;
        }
    if (papi.start(papi_thread.set) == PAPI_OK) papi_thread.state = 1;
}

static void papi_thread_end(void)
{
    if (papi_thread.state == 1) {
        long long values[SCOREP_STRICT_METRICS_MAX];
        papi.stop(papi_thread.set, values);
        papi.cleanup_eventset(papi_thread.set);
        papi.destroy_eventset(&papi_thread.set);
    }
    papi_thread.state = 0;
}

static void papi_read(uint64_t* v)
{
    if (UNLIKELY(papi_thread.state == 0)) papi_thread_start();
    long long values[SCOREP_STRICT_METRICS_MAX];
    if (LIKELY(papi_thread.state == 1) && papi.read(papi_thread.set, values) == PAPI_OK)
        for (uint32_t i = 0; i < papi_count; i++) v[i] = (uint64_t)values[i];
}
#endif

void scorep_strict_metrics_thread_ends(void)
{
    perf_thread_close();
#if SCOREP_HAVE_PAPI
    if (papi_count) papi_thread_end();
#endif
}

/* ---- the event path ---- */

void scorep_strict_metrics_read(scorep_location* loc)
{
    uint64_t* v = loc->metric_values;
    if (UNLIKELY(v == NULL)) return;
    if (rusage_count) {
        struct rusage ru;
        if (getrusage(RUSAGE_THREAD, &ru) == 0)
            for (uint32_t i = 0; i < rusage_count; i++) v[i] = rusage_value(&ru, rusage_recorded[i]);
    }
    if (perf_count) {
        if (UNLIKELY(perf_thread.state == 0)) perf_thread_open();
        if (LIKELY(perf_thread.state == 1))
            for (uint32_t i = 0; i < perf_count; i++) {
                uint64_t value;
                if (read(perf_thread.fd[i], &value, sizeof value) == (ssize_t)sizeof value) v[rusage_count + i] = value;
            }
    }
#if SCOREP_HAVE_PAPI
    if (papi_count) papi_read(v + rusage_count + perf_count);
#endif
}

void scorep_strict_metrics_location_created(scorep_location* loc)
{
    if (scorep_strict_metric_count)
        /* room for a multiple of four: the trace copies them four at a time */
        loc->metric_values = scorep_arena_alloc((scorep_strict_metric_count + 3) / 4 * 4 * sizeof *loc->metric_values);
}

/* ---- the configuration ---- */

/* The entries of variable's list, split at its separator variable's
 * characters (Score-P's SCOREP_METRIC_RUSAGE_SEP, ...; default a comma) */
static void for_each_entry(const char* variable, const char* separator_variable, void (*entry)(const char*))
{
    scorep_config_for_each_entry(getenv(variable), getenv(separator_variable), entry);
}

static int metrics_full(const char* variable, const char* name)
{
    if (rusage_count + perf_count + papi_count < SCOREP_STRICT_METRICS_MAX) return 0;
    scorep_warning_all_ranks("%s: at most %d metrics are recorded together; '%s' is not", variable,
                             SCOREP_STRICT_METRICS_MAX, name);
    return 1;
}

static void add_rusage(rusage_field f)
{
    for (uint32_t i = 0; i < rusage_count; i++)
        if (rusage_recorded[i] == f) return;
    if (!metrics_full("SCOREP_METRIC_RUSAGE", rusage_fields[f].name)) rusage_recorded[rusage_count++] = f;
}

static void rusage_entry(const char* name)
{
    if (strcasecmp(name, "all") == 0) {
        for (int f = 0; f < RU_COUNT_; f++) add_rusage((rusage_field)f);
        return;
    }
    for (int f = 0; f < RU_COUNT_; f++)
        if (strcasecmp(name, rusage_fields[f].name) == 0) {
            add_rusage((rusage_field)f);
            return;
        }
    char valid[400] = "all";
    for (int f = 0; f < RU_COUNT_; f++) {
        strncat(valid, ", ", sizeof valid - strlen(valid) - 1);
        strncat(valid, rusage_fields[f].name, sizeof valid - strlen(valid) - 1);
    }
    scorep_warning_all_ranks("SCOREP_METRIC_RUSAGE: unknown resource usage field '%s', not recorded; valid: %s",
                             name, valid);
}

/* whether the system counts event for this thread; errno tells why not */
static int perf_countable(uint32_t event)
{
    int fd = perf_open(event, perf_exclude_kernel);
    if (fd < 0 && (errno == EACCES || errno == EPERM) && !perf_exclude_kernel) {
        fd = perf_open(event, 1);
        if (fd >= 0) perf_exclude_kernel = 1;
    }
    if (fd < 0) return 0;
    close(fd);
    return 1;
}

/* the events this system counts, for a warning */
static void countable_events(char* out, size_t size)
{
    out[0] = 0;
    int saved = errno;
    for (uint32_t e = 0; e < PERF_EVENT_COUNT; e++)
        if (perf_countable(e)) {
            if (out[0]) strncat(out, ", ", size - strlen(out) - 1);
            strncat(out, perf_events[e].name, size - strlen(out) - 1);
        }
    if (!out[0]) snprintf(out, size, "none");
    errno = saved;
}

static void perf_entry(const char* name)
{
    for (uint32_t e = 0; e < PERF_EVENT_COUNT; e++) {
        if (strcmp(name, perf_events[e].name) != 0 && !(perf_events[e].alias && strcmp(name, perf_events[e].alias) == 0))
            continue;
        for (uint32_t i = 0; i < perf_count; i++)
            if (perf_recorded[i] == e) return;
        if (metrics_full("SCOREP_METRIC_PERF", name)) return;
        if (!perf_countable(e)) {
            const char* why = strerror(errno);
            char events[600];
            countable_events(events, sizeof events);
            scorep_warning_all_ranks("SCOREP_METRIC_PERF: event '%s' cannot be counted here (perf_event_open: %s%s), "
                                     "not recorded; events this system counts: %s",
                                     name, why,
                                     perf_events[e].type == PERF_TYPE_HARDWARE ? "; no hardware counters" : "",
                                     events);
            return;
        }
        perf_recorded[perf_count++] = e;
        return;
    }
    char valid[600] = "";
    for (uint32_t e = 0; e < PERF_EVENT_COUNT; e++) {
        if (valid[0]) strncat(valid, ", ", sizeof valid - strlen(valid) - 1);
        strncat(valid, perf_events[e].name, sizeof valid - strlen(valid) - 1);
    }
    scorep_warning_all_ranks("SCOREP_METRIC_PERF: unknown perf event '%s', not recorded; valid: %s", name, valid);
}

static void papi_entry(const char* name)
{
    for (uint32_t i = 0; i < papi_count; i++)
        if (strcmp(papi_names[i], name) == 0) return;
    if (metrics_full("SCOREP_METRIC_PAPI", name)) return;
#if SCOREP_HAVE_PAPI
    if (!papi_open()) {
        scorep_warning_all_ranks("SCOREP_METRIC_PAPI: '%s' is not recorded: %s", name, papi.why);
        return;
    }
    int code, error;
    char events[600];
    if (papi.name_to_code(name, &code) != PAPI_OK) {
        papi_countable_events(events, sizeof events);
        scorep_warning_all_ranks("SCOREP_METRIC_PAPI: unknown PAPI event '%s', not recorded; events this machine "
                                 "counts: %s", name, events);
        return;
    }
    if (!papi_countable(code, &error)) {
        papi_countable_events(events, sizeof events);
        scorep_warning_all_ranks("SCOREP_METRIC_PAPI: event '%s' cannot be counted here (PAPI: %s), not recorded; "
                                 "events this machine counts: %s", name, papi.strerror(error), events);
        return;
    }
    papi_codes[papi_count] = code;
    snprintf(papi_names[papi_count++], sizeof papi_names[0], "%s", name);
#else
    scorep_warning_all_ranks("SCOREP_METRIC_PAPI: '%s' is not recorded: this measurement was built without "
                             "PAPI's header (Debian's libpapi-dev)", name);
#endif
}

void scorep_strict_metrics_init(void)
{
    for_each_entry("SCOREP_METRIC_RUSAGE", "SCOREP_METRIC_RUSAGE_SEP", rusage_entry);
    for_each_entry("SCOREP_METRIC_PERF", "SCOREP_METRIC_PERF_SEP", perf_entry);
    for_each_entry("SCOREP_METRIC_PAPI", "SCOREP_METRIC_PAPI_SEP", papi_entry);
    uint32_t n = 0;
    for (uint32_t i = 0; i < rusage_count; i++) {
        const rusage_field f = rusage_recorded[i];
        scorep_metric id = scorep_definitions_metric(rusage_fields[f].name, rusage_fields[f].unit,
                                                     rusage_fields[f].description, SCOREP_METRIC_STRICT_RUSAGE);
        if (id == SCOREP_INVALID_ID) {   /* no room among the profile's metrics: warned */
            rusage_count = i;
            perf_count = papi_count = 0;
            break;
        }
        scorep_strict_metric_ids[n++] = id;
    }
    for (uint32_t i = 0; i < perf_count; i++) {
        const uint32_t e = perf_recorded[i];
        scorep_metric id = scorep_definitions_metric(perf_events[e].name, "#", perf_events[e].description,
                                                     SCOREP_METRIC_STRICT_PERF);
        if (id == SCOREP_INVALID_ID) {
            perf_count = i;
            papi_count = 0;
            break;
        }
        scorep_strict_metric_ids[n++] = id;
    }
    for (uint32_t i = 0; i < papi_count; i++) {
        scorep_metric id = scorep_definitions_metric(papi_names[i], "#", papi_names[i], SCOREP_METRIC_STRICT_PAPI);
        if (id == SCOREP_INVALID_ID) {
            papi_count = i;
            break;
        }
        scorep_strict_metric_ids[n++] = id;
    }
    scorep_strict_metric_count = n;
}
