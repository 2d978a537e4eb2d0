/* The work bench/sampling_overhead samples: a loop eight calls deep
 * (recursion), so that each sample unwinds a stack of some depth, for a
 * given number of seconds of CPU time' worth of iterations. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static double kernel(long n)
{
    double s = 0;
    for (long i = 0; i < n; i++) s += (double)(i ^ 7) * 1e-9 / (1.0 + (double)(i & 7));
    return s;
}

__attribute__((noinline)) static double level(int depth, long n)
{
    if (depth == 0) return kernel(n);
    double s = level(depth - 1, n);
    __asm__ volatile("" ::: "memory");   /* not a tail call: each level keeps its frame */
    return s + 1.0;
}

int main(int argc, char** argv)
{
    long iterations = argc > 1 ? atol(argv[1]) : 1000000000L;
    double s = 0;
    for (int r = 0; r < 100; r++) s += level(8, iterations / 100);
    printf("%.3f\n", s);
    return 0;
}
