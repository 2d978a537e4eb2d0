/* Two threads, each burning its own amount of user CPU time, (n + 1) * ms,
 * in burn_cpu, and printing what its getrusage says that took: the
 * metrics of each thread's location have something independent to agree
 * with. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

static int ms = 100;

static long long utime_us(void)
{
    struct rusage r;
    getrusage(RUSAGE_THREAD, &r);
    return (long long)r.ru_utime.tv_sec * 1000000 + r.ru_utime.tv_usec;
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
    long long before = utime_us();
    burn_cpu((n + 1) * ms);
    printf("thread %d burn_cpu ru_utime_us %lld\n", n, utime_us() - before);
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
