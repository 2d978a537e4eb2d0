/* The work bench/sampling_overhead samples: a loop eight calls deep
 * (recursion), so that each sample unwinds a stack of some depth.
 *
 *   sampling_overhead <iterations>      the loop, for the CPU time runs
 *   sampling_overhead raise <count>     at the same depth, sends itself the
 *       sampler's signal count times and prints the nanoseconds per signal:
 *       the highest real-time signal with a handler (this measurement's),
 *       else SIGPROF where it has one (Score-P's timer source), else an
 *       empty handler of its own on SIGPROF (the kernel's delivery alone). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long raises;

static int has_handler(int sig)
{
    struct sigaction a;
    if (sigaction(sig, NULL, &a) != 0) return 0;
    return (a.sa_flags & SA_SIGINFO) ? a.sa_sigaction != NULL
                                     : a.sa_handler != SIG_DFL && a.sa_handler != SIG_IGN;
}

static void empty_handler(int sig, siginfo_t* info, void* context) { (void)sig, (void)info, (void)context; }

static int sampler_signal(void)
{
    for (int s = SIGRTMAX - 1; s >= SIGRTMIN; s--)
        if (has_handler(s)) return s;
    if (has_handler(SIGPROF)) return SIGPROF;
    struct sigaction a;
    memset(&a, 0, sizeof a);
    a.sa_sigaction = empty_handler;
    a.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(SIGPROF, &a, NULL);
    return SIGPROF;
}

__attribute__((noinline)) static double kernel(long n)
{
    if (raises) {
        int sig = sampler_signal();
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (long i = 0; i < raises; i++) raise(sig);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        printf("ns_per_signal %.1f\n", ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / raises);
        return 0;
    }
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
    if (argc > 2 && strcmp(argv[1], "raise") == 0) {
        raises = atol(argv[2]);
        level(8, 0);
        return 0;
    }
    long iterations = argc > 1 ? atol(argv[1]) : 1000000000L;
    double s = 0;
    for (int r = 0; r < 100; r++) s += level(8, iterations / 100);
    printf("%.3f\n", s);
    return 0;
}
