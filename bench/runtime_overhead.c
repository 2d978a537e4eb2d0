/* usage: runtime_overhead_bench timer|events <iterations>
 * timer:  ns for two reads of the default timer (the inline read the event
 *         path uses)
 * events: ns for one enter+exit pair through the adapter API at call-path
 *         depth 4; which substrates run is set by SCOREP_ENABLE_PROFILING /
 *         SCOREP_ENABLE_TRACING (bench/runtime_overhead sets them).
 * Prints "ns_per_op <best of 5 runs>"; events also "init_ms" (the core's
 * initialisation: with tracing, faulting the trace memory in) and
 * "finalize_ns_per_record" (finalisation time over the trace records the
 * run made: with tracing, their encoding into OTF2 and writing). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "timer.h"

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static volatile uint64_t sink;

static double timer_pairs(long n)
{
    uint64_t acc = 0;
    double t0 = seconds();
    for (long i = 0; i < n; i++) {
        uint64_t a = scorep_timer_read();
        uint64_t b = scorep_timer_read();
        acc += b - a;
    }
    double t1 = seconds();
    sink = acc;
    return (t1 - t0) * 1e9 / (double)n;
}

static double event_pairs(long n, scorep_region leaf)
{
    double t0 = seconds();
    for (long i = 0; i < n; i++) {
        scorep_enter(leaf);
        scorep_exit(leaf);
    }
    return (seconds() - t0) * 1e9 / (double)n;
}

int main(int argc, char** argv)
{
    const char* mode = argc > 1 ? argv[1] : "events";
    long n = argc > 2 ? atol(argv[2]) : 1000000;
    double best = 1e30;
    if (strcmp(mode, "timer") == 0) {
        scorep_measurement_init();  /* selects and calibrates the default timer */
        for (int r = 0; r < 5; r++) {
            double x = timer_pairs(n);
            if (x < best) best = x;
        }
        printf("timer %s\n", scorep_timer_name());
    } else {
        double t_init = seconds();
        scorep_measurement_init();
        printf("init_ms %.3f\n", (seconds() - t_init) * 1e3);
        const char* names[] = {"main", "solve", "iterate", "exchange"};
        scorep_region path[4];
        for (int d = 0; d < 4; d++)
            path[d] = scorep_region_define(names[d], "bench.c", SCOREP_PARADIGM_USER, SCOREP_ROLE_FUNCTION, NULL);
        scorep_region leaf = scorep_region_define("MPI_Send", NULL, SCOREP_PARADIGM_MPI, SCOREP_ROLE_POINT2POINT, "P2P");
        for (int d = 0; d < 4; d++) scorep_enter(path[d]);
        event_pairs(n / 10 + 1, leaf);  /* warm-up: first visit allocates the node */
        for (int r = 0; r < 5; r++) {
            double x = event_pairs(n, leaf);
            if (x < best) best = x;
        }
        for (int d = 3; d >= 0; d--) scorep_exit(path[d]);
        printf("timer %s\n", scorep_timer_name());
    }
    printf("ns_per_op %.2f\n", best);
    fflush(stdout);
    double t_end = seconds();
    scorep_measurement_finalize();
    if (strcmp(mode, "events") == 0) {
        /* enter and leave records: the warm-up, 5 runs, the path twice */
        double records = 2.0 * (double)(n / 10 + 1 + 5 * n) + 8.0;
        printf("finalize_ns_per_record %.2f\n", (seconds() - t_end) * 1e9 / records);
    }
    return 0;
}
