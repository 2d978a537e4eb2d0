/* Inline timer read for the event path: one predictable branch on the kind. */
#ifndef SCOREP_WRAPGEN_TIMER_H
#define SCOREP_WRAPGEN_TIMER_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define SCOREP_HAVE_TSC 1
#endif

#include "config.h"
#include "internal.h"

/* ---- timer (timer.c) ---- */
void scorep_timer_init(scorep_timer_kind requested);
/* test hook: all timestamps come from clock() afterwards */
void scorep_timer_inject(uint64_t (*clock)(void), uint64_t ticks_per_second);
/* Refines the TSC calibration over the whole run; called once at finalisation. */
void scorep_timer_finish_calibration(void);
bool scorep_timer_tsc_is_safe(void);

extern scorep_timer_kind scorep_timer_active;
extern uint64_t (*scorep_timer_injected_clock)(void);

/* Offsets of this process's clock to the master clock (rank 0), measured by
 * the MPI layer (mpi/clock_sync.c): master time = local + offset, linearly
 * interpolated between the first and the last measurement. */
typedef struct scorep_clock_offset {
    uint64_t local;   /* local timestamp of the measurement */
    int64_t offset;   /* master - local, in ticks */
    double stddev;    /* uncertainty: half the round trip, in ticks */
} scorep_clock_offset;
void scorep_timer_add_offset(uint64_t local, int64_t offset, double stddev);
/* 0 (never measured: one process, or no MPI) or 2 points */
size_t scorep_timer_offsets(scorep_clock_offset out[2]);
uint64_t scorep_timer_to_master(uint64_t local);
/* every rank's offsets on rank 0, collective (timer.c) */
scorep_clock_offset* scorep_timer_gather_offsets(const scorep_multiprocess_ops* mpp, int rank, int size);
/* equal for processes that read the same clock (timer.c) */
uint64_t scorep_timer_clock_identity(void);
/* the rank a test skew multiplies (SCOREP_TIMER_TEST_*), -1 if none */
int scorep_timer_test_skew_rank(void);

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
