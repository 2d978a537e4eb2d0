/* Two hot functions called in turn from main; the program measures the CPU
 * time each takes itself (its own reading, the tests' oracle) and prints it
 * with a result that depends on every iteration. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

__attribute__((noinline)) double alpha(long n)
{
    double s = 0;
    for (long i = 0; i < n; i++) s += (double)i * 1e-9 / (1.0 + (double)(i & 7));
    return s;
}

__attribute__((noinline)) double beta(long n)
{
    double s = 0;
    for (long i = 0; i < n; i++) s += (double)(i ^ 3) * 1e-9 / (2.0 + (double)(i & 3));
    return s;
}

int main(int argc, char** argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000000;
    double a = 0, b = 0;
    long long in_alpha = 0, in_beta = 0;
    for (int r = 0; r < 10; r++) {
        long long t0 = cpu_ns();
        a += alpha(n / 10);
        long long t1 = cpu_ns();
        b += beta(3 * n / 10);
        in_alpha += t1 - t0;
        in_beta += cpu_ns() - t1;
    }
    printf("result %.6f %.6f\n", a, b);
    printf("cpu_ns alpha %lld beta %lld\n", in_alpha, in_beta);
    return 0;
}
