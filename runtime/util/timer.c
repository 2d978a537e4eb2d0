/* Timestamps: the TSC where it ticks at a constant rate on every core
 * (invariant TSC), otherwise CLOCK_MONOTONIC. The TSC rate is calibrated
 * against CLOCK_MONOTONIC: briefly at start-up, then over the whole run at
 * finalisation, which is what the written timestamps use. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "timer.h"

scorep_timer_kind scorep_timer_active = SCOREP_TIMER_CLOCK_GETTIME;
uint64_t (*scorep_timer_injected_clock)(void);
static uint64_t injected_ticks_per_second = 1000000000ull;

static uint64_t tsc_rate;                 /* ticks per second */
static uint64_t start_tsc, start_ns;      /* calibration start point */
static int calibration_final;

/* Test-only synthetic clock error (SCOREP_TIMER_TEST_SKEW_NS,
 * SCOREP_TIMER_TEST_DRIFT_PPM), so that one machine, whose ranks share one
 * clock, can show what the clock synchronisation corrects. When set, the
 * timer becomes the injected kind with skewed_read() as its clock: the
 * event path keeps its one well-predicted branch and pays the function call
 * only in such a test; unset, nothing changes. The rank multiplying the
 * error is taken from the launcher's environment when the timer starts, so
 * every timestamp of a process, also those before MPI_Init, carries the
 * same error. */
static scorep_timer_kind skew_base = SCOREP_TIMER_INJECTED; /* the real timer under the skew */
static uint64_t skew_origin;  /* raw reading the drift counts from */
static int64_t skew_ticks;    /* offset added to every reading */
static double skew_drift;     /* rate error, ticks per tick */
static int skew_rank = -1;

/* The clock offsets measured against the master clock (clock_sync.c):
 * at most a begin and an end point; local + offset = master time. */
static scorep_clock_offset offsets[2];
static size_t offset_count;

static uint64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool scorep_timer_tsc_is_safe(void)
{
#ifdef SCOREP_HAVE_TSC
    unsigned int eax, ebx, ecx, edx;
    __asm__ volatile("cpuid" : "=a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx) : "a"(0x80000000u), "c"(0));
    if (eax >= 0x80000007u) {
        __asm__ volatile("cpuid" : "=a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx) : "a"(0x80000007u), "c"(0));
        if (edx & (1u << 8)) return true;
    }
    /* Hypervisors often hide the CPUID bit but the kernel still knows. */
    FILE* f = fopen("/proc/cpuinfo", "r");
    if (!f) return false;
    char line[4096];
    bool constant = false, nonstop = false;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5) != 0) continue;
        constant = strstr(line, " constant_tsc") != NULL;
        nonstop = strstr(line, " nonstop_tsc") != NULL;
        break;
    }
    fclose(f);
    return constant && nonstop;
#else
    return false;
#endif
}

#ifdef SCOREP_HAVE_TSC
/* A TSC reading and the monotonic time of the same moment: the pair whose
 * two clock_gettime calls around the TSC read lie closest together. A
 * pair read one after the other can be split by a preemption, which puts a
 * time slice into one clock's interval and not the other's: the 2 ms start
 * rate was then found 40 % or more off under load. */
static void tsc_and_ns(uint64_t* tsc, uint64_t* ns)
{
    uint64_t before = monotonic_ns(), t = __rdtsc(), after = monotonic_ns();
    uint64_t closest = after - before;
    *tsc = t;
    *ns = before + closest / 2;
    for (int i = 1; i < 32 && closest > 2000; i++) {
        before = monotonic_ns();
        t = __rdtsc();
        after = monotonic_ns();
        if (after - before < closest) {
            closest = after - before;
            *tsc = t;
            *ns = before + closest / 2;
        }
    }
}
#endif

static uint64_t rate_between(uint64_t t0, uint64_t n0, uint64_t t1, uint64_t n1)
{
    if (n1 <= n0) return 1;
    return (uint64_t)((double)(t1 - t0) * 1e9 / (double)(n1 - n0) + 0.5);
}

/* round to nearest without libm (the core links no libm) */
static int64_t round_i64(double x) { return (int64_t)(x < 0 ? x - 0.5 : x + 0.5); }

static uint64_t base_read(void)
{
#ifdef SCOREP_HAVE_TSC
    if (skew_base == SCOREP_TIMER_TSC) return __rdtsc();
#endif
    return monotonic_ns();
}

static uint64_t skewed_read(void)
{
    uint64_t raw = base_read();
    return raw + (uint64_t)skew_ticks + (uint64_t)round_i64((double)(int64_t)(raw - skew_origin) * skew_drift);
}

/* the rank the launcher gave this process (Open MPI, MPICH/Hydra, PMIx,
 * Slurm), or -1 */
static int launcher_rank(void)
{
    static const char* const names[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID", NULL};
    for (int i = 0; names[i]; i++) {
        const char* v = getenv(names[i]);
        char* end;
        if (!v || !*v) continue;
        long r = strtol(v, &end, 10);
        if (*end == '\0' && r >= 0 && r < (1L << 30)) return (int)r;
    }
    return -1;
}

static int64_t env_integer(const char* name)
{
    const char* v = getenv(name);
    if (!v || !*v) return 0;
    char* end;
    long long x = strtoll(v, &end, 10);
    if (*end != '\0') {
        scorep_warning("%s: '%s' is not an integer; ignored", name, v);
        return 0;
    }
    return x;
}

static void start_test_skew(void)
{
    int64_t skew_ns = env_integer("SCOREP_TIMER_TEST_SKEW_NS");
    int64_t drift_ppm = env_integer("SCOREP_TIMER_TEST_DRIFT_PPM");
    if (!skew_ns && !drift_ppm) return;
    int rank = launcher_rank();
    if (rank <= 0) return; /* rank 0 (and a process without a launcher) keeps the true clock */
    skew_base = scorep_timer_active;
    skew_rank = rank;
    skew_origin = base_read();
    double tps = (double)scorep_timer_ticks_per_second();
    skew_ticks = (int64_t)round_i64((double)skew_ns * rank * tps / 1e9);
    skew_drift = (double)drift_ppm * rank * 1e-6;
    scorep_timer_injected_clock = skewed_read;
    scorep_timer_active = SCOREP_TIMER_INJECTED;
    /* what a test needs to compute the true time of every event back */
    scorep_verbose("test clock error on rank %d: origin %llu, offset %lld ticks, drift %.9f", rank,
                   (unsigned long long)skew_origin, (long long)skew_ticks, skew_drift);
}

void scorep_timer_init(scorep_timer_kind requested)
{
    scorep_timer_active = requested;
#ifdef SCOREP_HAVE_TSC
    if (requested == SCOREP_TIMER_TSC) {
        tsc_and_ns(&start_tsc, &start_ns);
        /* 2 ms is enough for a usable rate before finalisation refines it */
        while (monotonic_ns() - start_ns < 2000000)
            ;
        uint64_t t, now;
        tsc_and_ns(&t, &now);
        tsc_rate = rate_between(start_tsc, start_ns, t, now);
    }
#else
    if (requested == SCOREP_TIMER_TSC) scorep_timer_active = SCOREP_TIMER_CLOCK_GETTIME;
#endif
    start_test_skew();
}

int scorep_timer_test_skew_rank(void) { return skew_rank; }

/* the timer under a test skew, or the one in use */
static scorep_timer_kind base_kind(void)
{
    return scorep_timer_active == SCOREP_TIMER_INJECTED && skew_base != SCOREP_TIMER_INJECTED ? skew_base
                                                                                            : scorep_timer_active;
}

void scorep_timer_finish_calibration(void)
{
#ifdef SCOREP_HAVE_TSC
    if (base_kind() != SCOREP_TIMER_TSC || calibration_final) return;
    uint64_t t, now;
    tsc_and_ns(&t, &now);
    if (now - start_ns > 50000000) tsc_rate = rate_between(start_tsc, start_ns, t, now);
    calibration_final = 1;
#endif
}

void scorep_timer_inject(uint64_t (*clock)(void), uint64_t ticks_per_second)
{
    scorep_timer_injected_clock = clock;
    injected_ticks_per_second = ticks_per_second;
    scorep_timer_active = SCOREP_TIMER_INJECTED;
    skew_base = SCOREP_TIMER_INJECTED;
}

uint64_t scorep_timer_now(void) { return scorep_timer_read(); }

uint64_t scorep_timer_ticks_per_second(void)
{
    switch (base_kind()) {
    case SCOREP_TIMER_TSC: return tsc_rate;
    case SCOREP_TIMER_CLOCK_GETTIME: return 1000000000ull;
    default: return injected_ticks_per_second;
    }
}

const char* scorep_timer_name(void)
{
    switch (base_kind()) {
    case SCOREP_TIMER_TSC: return skew_rank > 0 ? "tsc (test skew)" : "tsc";
    case SCOREP_TIMER_CLOCK_GETTIME: return skew_rank > 0 ? "clock_gettime (test skew)" : "clock_gettime";
    default: return "injected";
    }
}

/* ---- offsets to the master clock ---- */

void scorep_timer_add_offset(uint64_t local, int64_t offset, double stddev)
{
    /* a third measurement replaces the end point: the interval grows */
    size_t i = offset_count < 2 ? offset_count++ : 1;
    offsets[i] = (scorep_clock_offset){local, offset, stddev};
}

size_t scorep_timer_offsets(scorep_clock_offset out[2])
{
    if (offset_count == 0) return 0;
    out[0] = offsets[0];
    /* one point (the end was not measured): the offset holds for the whole
     * run; OTF2 readers interpolate only between two records */
    out[1] = offset_count == 2 ? offsets[1]
                               : (scorep_clock_offset){offsets[0].local + 1, offsets[0].offset, offsets[0].stddev};
    return 2;
}

/* The same linear interpolation (and extrapolation beyond the two points)
 * OTF2 readers apply to event timestamps from the ClockOffset records, so
 * times this process writes itself agree with its events as read. */
uint64_t scorep_timer_to_master(uint64_t local)
{
    scorep_clock_offset p[2];
    if (scorep_timer_offsets(p) == 0) return local;
    double slope = (double)(p[1].offset - p[0].offset) / ((double)p[1].local - (double)p[0].local);
    return (uint64_t)round_i64((double)local + slope * ((double)local - (double)p[0].local) + (double)p[0].offset);
}

/* Every rank's two offset points on rank 0 (2 x size, zeros for a rank that
 * has none), for the profile's metadata; NULL elsewhere, and when the ranks
 * cannot talk. Collective where mpp is given and there are several ranks. */
scorep_clock_offset* scorep_timer_gather_offsets(const scorep_multiprocess_ops* mpp, int rank, int size)
{
    scorep_clock_offset mine[2];
    memset(mine, 0, sizeof mine);
    scorep_timer_offsets(mine);
    if (!mpp || size < 2) return NULL;
    scorep_clock_offset* all = rank == 0 ? calloc((size_t)size * 2, sizeof *all) : NULL;
    mpp->gather(mine, sizeof mine, all, 0);
    return all;
}

/* ---- which processes read the same clock ---- */

static uint64_t hash_bytes(uint64_t h, const void* data, size_t n)
{
    const unsigned char* p = data;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static uint64_t hash_file(uint64_t h, const char* path)
{
    char text[512];
    FILE* f = fopen(path, "r");
    if (!f) return hash_bytes(h, path, strlen(path));
    size_t n = fread(text, 1, sizeof text, f);
    fclose(f);
    return hash_bytes(h, text, n);
}

/* Equal for two processes whose timestamps need no offset between them:
 * the same host and boot (one TSC, one CLOCK_MONOTONIC), for
 * clock_gettime also the same time namespace (its own CLOCK_MONOTONIC
 * origin), and no test skew (which gives every rank its own clock). The
 * clock synchronisation measures one process per clock only. */
uint64_t scorep_timer_clock_identity(void)
{
    uint64_t h = 14695981039346656037ull;
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    h = hash_bytes(h, host, strlen(host));
    h = hash_file(h, "/proc/sys/kernel/random/boot_id");
    scorep_timer_kind kind = base_kind();
    h = hash_bytes(h, &kind, sizeof kind);
    if (kind != SCOREP_TIMER_TSC) h = hash_file(h, "/proc/self/timens_offsets");
    if (skew_rank > 0) h = hash_bytes(h, &skew_rank, sizeof skew_rank);
    if (kind == SCOREP_TIMER_INJECTED) { /* a unit test's clock: assume nothing */
        pid_t pid = getpid();
        h = hash_bytes(h, &pid, sizeof pid);
    }
    return h;
}
