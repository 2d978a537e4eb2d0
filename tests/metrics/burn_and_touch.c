/* A known amount of user CPU time in one function and of page faults in
 * another; the program prints its own getrusage readings (this thread's)
 * around each, so that the measured values per call path have something
 * independent to agree with. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

static long long utime_us(const struct rusage* r)
{
    return (long long)r->ru_utime.tv_sec * 1000000 + r->ru_utime.tv_usec;
}

static long long stime_us(const struct rusage* r)
{
    return (long long)r->ru_stime.tv_sec * 1000000 + r->ru_stime.tv_usec;
}

/* what the thread used between a and b; nothing with "quiet" (output that
 * does not vary from run to run) */
static void report(const char* name, const struct rusage* a, const struct rusage* b, int quiet)
{
    if (quiet) return;
    printf("%s ru_utime_us %lld ru_stime_us %lld ru_minflt %ld ru_majflt %ld\n", name, utime_us(b) - utime_us(a),
           stime_us(b) - stime_us(a), b->ru_minflt - a->ru_minflt, b->ru_majflt - a->ru_majflt);
}

/* spins until the thread has used at least ms of user time */
__attribute__((noinline)) void burn_cpu(int ms)
{
    struct rusage r;
    getrusage(RUSAGE_THREAD, &r);
    long long end = utime_us(&r) + ms * 1000LL;
    volatile double x = 1;
    do {
        for (int i = 0; i < 100000; i++) x = x * 1.0000001 + 1e-9;
        getrusage(RUSAGE_THREAD, &r);
    } while (utime_us(&r) < end);
}

/* touches every page of fresh anonymous memory once: one minor fault each */
__attribute__((noinline)) void touch_pages(size_t mib)
{
    size_t bytes = mib << 20;
    char* p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) exit(2);
    madvise(p, bytes, MADV_NOHUGEPAGE);
    for (size_t i = 0; i < bytes; i += 4096) p[i] = 1;
    munmap(p, bytes);
}

/* burn_and_touch [ms of user time] [MiB to fault in] [quiet] */
int main(int argc, char** argv)
{
    int ms = argc > 1 ? atoi(argv[1]) : 300;
    size_t mib = argc > 2 ? (size_t)atol(argv[2]) : 64;
    int quiet = argc > 3 && strcmp(argv[3], "quiet") == 0;
    struct rusage a, b;
    getrusage(RUSAGE_THREAD, &a);
    burn_cpu(ms);
    getrusage(RUSAGE_THREAD, &b);
    report("burn_cpu", &a, &b, quiet);
    getrusage(RUSAGE_THREAD, &a);
    touch_pages(mib);
    getrusage(RUSAGE_THREAD, &b);
    report("touch_pages", &a, &b, quiet);
    printf("done\n");
    return 0;
}
