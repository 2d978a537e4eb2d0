/* bench/compiler_overhead: an empty non-inlined function called in a loop;
 * built plain and with scorep's compiler instrumentation by the script
 * bench/compiler_overhead. Prints ns_per_call <value>. Usage: prog N */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) void empty(void) { __asm__ volatile(""); }

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char** argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10000000;
    for (long i = 0; i < n / 10; i++) empty();   /* warm-up: first call defines the region */
    double best = 1e30;
    for (int rep = 0; rep < 5; rep++) {
        double t0 = now();
        for (long i = 0; i < n; i++) empty();
        double t = (now() - t0) / n;
        if (t < best) best = t;
    }
    printf("ns_per_call %.3f\n", best);
    return 0;
}
