/* Two threads, each in its own hot function (gamma_work, delta_work); each
 * thread measures its own CPU time there and the program prints both. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long n;
static double results[2];
static long long cpu[2];

static long long cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

__attribute__((noinline)) double gamma_work(long count)
{
    double s = 0;
    for (long i = 0; i < count; i++) s += (double)i * 1e-9 / (1.0 + (double)(i & 7));
    return s;
}

__attribute__((noinline)) double delta_work(long count)
{
    double s = 0;
    for (long i = 0; i < count; i++) s += (double)(i ^ 5) * 1e-9 / (3.0 + (double)(i & 3));
    return s;
}

static void* worker_a(void* arg)
{
    (void)arg;
    long long t0 = cpu_ns();
    results[0] = gamma_work(n);
    cpu[0] = cpu_ns() - t0;
    return NULL;
}

static void* worker_b(void* arg)
{
    (void)arg;
    long long t0 = cpu_ns();
    results[1] = delta_work(2 * n);
    cpu[1] = cpu_ns() - t0;
    return NULL;
}

int main(int argc, char** argv)
{
    n = argc > 1 ? atol(argv[1]) : 100000000;
    pthread_t a, b;
    pthread_create(&a, NULL, worker_a, NULL);
    pthread_create(&b, NULL, worker_b, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("result %.6f %.6f\n", results[0], results[1]);
    printf("cpu_ns gamma_work %lld delta_work %lld\n", cpu[0], cpu[1]);
    return 0;
}
