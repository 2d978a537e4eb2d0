/*
 * Serial trace test program: records `pairs` enter/exit pairs of region
 * "work" inside "main" through the adapter API, so that the trace is many
 * times larger than a small SCOREP_TOTAL_MEMORY.
 *
 * usage: many_events <pairs> [timing|sigterm]
 * With "timing", prints the cost of one enter/exit pair and of two reads of
 * the core's timer, in nanoseconds: "pair_ns <x> two_timer_reads_ns <y>".
 * With "sigterm", the program ends by SIGTERM after the loop, with "main"
 * still open, instead of finalising.
 */
#define _POSIX_C_SOURCE 200809L  /* clock_gettime with -std=c11 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <scorep_wrapgen/adapter.h>

/* The core's timer (runtime/substrate.h), the clock every event reads. */
uint64_t scorep_timer_now(void);

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static double two_timer_reads_ns(long n)
{
    volatile uint64_t sink = 0;
    double begin = now_ns();
    for (long i = 0; i < n; i++) {
        sink += scorep_timer_now();
        sink += scorep_timer_now();
    }
    return (now_ns() - begin) / n;
}

int main(int argc, char** argv)
{
    long pairs = argc > 1 ? atol(argv[1]) : 100000;
    scorep_region main_region = scorep_region_define("main", NULL, SCOREP_PARADIGM_USER,
                                                     SCOREP_ROLE_FUNCTION, NULL);
    scorep_region work = scorep_region_define("work", "many_events.c", SCOREP_PARADIGM_USER,
                                              SCOREP_ROLE_FUNCTION, NULL);
    int timing = argc > 2 && strcmp(argv[2], "timing") == 0;
    int sigterm = argc > 2 && strcmp(argv[2], "sigterm") == 0;
    scorep_enter(main_region);
    double begin = now_ns();
    for (long i = 0; i < pairs; i++) {
        scorep_enter(work);
        scorep_exit(work);
    }
    double pair_ns = (now_ns() - begin) / (pairs ? pairs : 1);
    if (sigterm)
        raise(SIGTERM);
    scorep_exit(main_region);
    if (timing)
        printf("pair_ns %.2f two_timer_reads_ns %.2f\n", pair_ns, two_timer_reads_ns(pairs));
    scorep_measurement_finalize();
    return 0;
}
