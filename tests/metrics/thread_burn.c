/* Two threads, each burning its own amount of user CPU time, (n + 1) * ms,
 * in burn_cpu, and printing what its getrusage (user time) and its CPU-time
 * clock (user and system time, what perf's task-clock counts) say that
 * took: the metrics of each thread's location have something independent
 * to agree with. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static int ms = 100;

static long long utime_us(void)
{
    struct rusage r;
    getrusage(RUSAGE_THREAD, &r);
    return (long long)r.ru_utime.tv_sec * 1000000 + r.ru_utime.tv_usec;
}

static long long cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (long long)t.tv_sec * 1000000000 + t.tv_nsec;
}

__attribute__((noinline)) void burn_cpu(int how_long)
{
    long long end = utime_us() + how_long * 1000LL;
    volatile double x = 1;
    do
        for (int i = 0; i < 100000; i++) x = x * 1.0000001 + 1e-9;
    while (utime_us() < end);
}

static void* worker(void* arg)
{
    int n = (int)(long)arg;
    long long before = utime_us(), cpu_before = cpu_ns();
    burn_cpu((n + 1) * ms);
    long long cpu = cpu_ns() - cpu_before;
    printf("thread %d burn_cpu ru_utime_us %lld cpu_ns %lld\n", n, utime_us() - before, cpu);
    return NULL;
}

int main(int argc, char** argv)
{
    if (argc > 1) ms = atoi(argv[1]);
    pthread_t t[2];
    for (long n = 0; n < 2; n++) pthread_create(&t[n], NULL, worker, (void*)n);
    for (int n = 0; n < 2; n++) pthread_join(t[n], NULL);
    return 0;
}
