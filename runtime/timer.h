/* Inline timer read for the event path: one predictable branch on the kind. */
#ifndef SCOREP_WRAPGEN_TIMER_H
#define SCOREP_WRAPGEN_TIMER_H

#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define SCOREP_HAVE_TSC 1
#endif

#include "internal.h"

extern scorep_timer_kind scorep_timer_active;
extern uint64_t (*scorep_timer_injected_clock)(void);

static inline uint64_t scorep_timer_read(void)
{
#ifdef SCOREP_HAVE_TSC
    if (LIKELY(scorep_timer_active == SCOREP_TIMER_TSC)) return __rdtsc();
#endif
    if (LIKELY(scorep_timer_active == SCOREP_TIMER_CLOCK_GETTIME)) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    }
    return scorep_timer_injected_clock();
}

#endif
