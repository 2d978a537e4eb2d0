/* Timestamps: the TSC where it ticks at a constant rate on every core
 * (invariant TSC), otherwise CLOCK_MONOTONIC. The TSC rate is calibrated
 * against CLOCK_MONOTONIC: briefly at start-up, then over the whole run at
 * finalisation, which is what the written timestamps use. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "timer.h"

scorep_timer_kind scorep_timer_active = SCOREP_TIMER_CLOCK_GETTIME;
uint64_t (*scorep_timer_injected_clock)(void);
static uint64_t injected_ticks_per_second = 1000000000ull;

static uint64_t tsc_rate;                 /* ticks per second */
static uint64_t start_tsc, start_ns;      /* calibration start point */
static int calibration_final;

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

static uint64_t rate_between(uint64_t t0, uint64_t n0, uint64_t t1, uint64_t n1)
{
    if (n1 <= n0) return 1;
    return (uint64_t)((double)(t1 - t0) * 1e9 / (double)(n1 - n0) + 0.5);
}

void scorep_timer_init(scorep_timer_kind requested)
{
    scorep_timer_active = requested;
#ifdef SCOREP_HAVE_TSC
    if (requested == SCOREP_TIMER_TSC) {
        start_ns = monotonic_ns();
        start_tsc = __rdtsc();
        /* 2 ms is enough for a usable rate before finalisation refines it */
        uint64_t now;
        do now = monotonic_ns(); while (now - start_ns < 2000000);
        tsc_rate = rate_between(start_tsc, start_ns, __rdtsc(), now);
    }
#else
    if (requested == SCOREP_TIMER_TSC) scorep_timer_active = SCOREP_TIMER_CLOCK_GETTIME;
#endif
}

void scorep_timer_finish_calibration(void)
{
#ifdef SCOREP_HAVE_TSC
    if (scorep_timer_active != SCOREP_TIMER_TSC || calibration_final) return;
    uint64_t now = monotonic_ns(), t = __rdtsc();
    if (now - start_ns > 50000000) tsc_rate = rate_between(start_tsc, start_ns, t, now);
    calibration_final = 1;
#endif
}

void scorep_timer_inject(uint64_t (*clock)(void), uint64_t ticks_per_second)
{
    scorep_timer_injected_clock = clock;
    injected_ticks_per_second = ticks_per_second;
    scorep_timer_active = SCOREP_TIMER_INJECTED;
}

uint64_t scorep_timer_now(void) { return scorep_timer_read(); }

uint64_t scorep_timer_ticks_per_second(void)
{
    switch (scorep_timer_active) {
    case SCOREP_TIMER_TSC: return tsc_rate;
    case SCOREP_TIMER_CLOCK_GETTIME: return 1000000000ull;
    default: return injected_ticks_per_second;
    }
}

const char* scorep_timer_name(void)
{
    switch (scorep_timer_active) {
    case SCOREP_TIMER_TSC: return "tsc";
    case SCOREP_TIMER_CLOCK_GETTIME: return "clock_gettime";
    default: return "injected";
    }
}
