/* A program whose SIGALRM handler (every 20 us) makes calls the measurement
 * records while the main thread records its own events:
 *   pipe [R]   the handler writes one byte into a pipe (the self-pipe
 *              trick; write is async-signal-safe); the main thread calls
 *              two compiler-instrumented functions R times 10,000 times
 *              (R: 60) and drains the pipe
 *   functions  the handler calls the next of 1000 instrumented functions
 *              (its first call defines the region); the main thread calls
 *              each of 1000 others once, defining its own meanwhile
 *   heap       the handler as in functions; the main thread spends its time
 *              in malloc and free (not recorded) while a second thread
 *              waits, so that the C library's heap lock is in use
 *   quiet [R]  the pipe mode's work without the timer
 *   cleanup [R] quiet, with a SIGTERM handler that says "cleanup" on stderr,
 *              restores the default action and raises the signal again (as
 *              GNU sort and gzip do)
 * It prints what it computed and how many bytes it drained, the same with
 * and without measurement; stderr gets the number of handler calls. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#define F(n) __attribute__((noinline)) int f##n(int x) { return x + n; }
#define F10(n) F(n##0) F(n##1) F(n##2) F(n##3) F(n##4) F(n##5) F(n##6) F(n##7) F(n##8) F(n##9)
#define F100(n) F10(n##0) F10(n##1) F10(n##2) F10(n##3) F10(n##4) F10(n##5) F10(n##6) F10(n##7) F10(n##8) F10(n##9)
#define F1000(n) F100(n##0) F100(n##1) F100(n##2) F100(n##3) F100(n##4) F100(n##5) F100(n##6) F100(n##7) F100(n##8) F100(n##9)
F1000(1)
F1000(2)
#define A(n) f##n,
#define A10(n) A(n##0) A(n##1) A(n##2) A(n##3) A(n##4) A(n##5) A(n##6) A(n##7) A(n##8) A(n##9)
#define A100(n) A10(n##0) A10(n##1) A10(n##2) A10(n##3) A10(n##4) A10(n##5) A10(n##6) A10(n##7) A10(n##8) A10(n##9)
#define A1000(n) A100(n##0) A100(n##1) A100(n##2) A100(n##3) A100(n##4) A100(n##5) A100(n##6) A100(n##7) A100(n##8) A100(n##9)
static int (*const main_functions[1000])(int) = {A1000(1)};
static int (*const handler_functions[1000])(int) = {A1000(2)};

static int pipefd[2];
static int use_pipe;
static volatile sig_atomic_t ticks;
static volatile int handler_sum;

static void on_alarm(int sig)
{
    (void)sig;
    int saved_errno = errno;
    if (use_pipe) {
        if (write(pipefd[1], "x", 1) == 1) ticks++;
    } else if (ticks < 1000) {
        handler_sum += handler_functions[ticks](0);
        ticks++;
    }
    errno = saved_errno;
}

static void on_term(int sig)
{
    static const char said[] = "cleanup\n";
    if (write(STDERR_FILENO, said, sizeof said - 1) < 0) {
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void* wait_for_end(void* arg)
{
    char c;
    while (read(*(int*)arg, &c, 1) < 0 && errno == EINTR) {
    }
    return NULL;
}

/* sizes between the C library's per-thread cache and its mmap threshold: every call takes the heap lock */
static __attribute__((noinline)) long churn_heap(int round)
{
    long touched = 0;
    for (int k = 0; k < 40; k++) {
        size_t size = 2048 + (size_t)((round * 40 + k) * 7919 % 60000);
        char* block = malloc(size);
        if (!block) return -1;
        block[0] = (char)k;
        block[size - 1] = (char)round;
        touched += block[0] + block[size - 1];
        free(block);
    }
    return touched;
}

__attribute__((noinline)) double leaf(int i) { return i * 0.5; }
__attribute__((noinline)) double mid(int i) { return leaf(i) + leaf(i + 1); }

int main(int argc, char** argv)
{
    int cleanup = argc > 1 && strcmp(argv[1], "cleanup") == 0;
    int heap = argc > 1 && strcmp(argv[1], "heap") == 0;
    int quiet = cleanup || (argc > 1 && strcmp(argv[1], "quiet") == 0);
    if (cleanup) signal(SIGTERM, on_term);
    use_pipe = quiet || (argc > 1 && strcmp(argv[1], "pipe") == 0);
    int rounds = argc > 2 ? atoi(argv[2]) : 60;
    if (pipe(pipefd) != 0) return 1;
    fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
    fcntl(pipefd[1], F_SETFL, O_NONBLOCK);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    int end_pipe[2];
    pthread_t waiter;
    if (heap) {
        /* the waiter never takes the signal: the handler runs on the main thread only, once per tick */
        sigset_t alarm, was;
        sigemptyset(&alarm);
        sigaddset(&alarm, SIGALRM);
        pthread_sigmask(SIG_BLOCK, &alarm, &was);
        if (pipe(end_pipe) != 0 || pthread_create(&waiter, NULL, wait_for_end, &end_pipe[0]) != 0) return 1;
        pthread_sigmask(SIG_SETMASK, &was, NULL);
    }
    struct itimerval every = {{0, 20}, {0, 20}}, off = {{0, 0}, {0, 0}};
    /* the main thread's own first calls (a definition, new profile nodes) are
     * the measurement's work, where a handler's calls pass unrecorded: done
     * before the first tick */
    if (heap) (void)churn_heap(0);
    if (!quiet) setitimer(ITIMER_REAL, &every, NULL);
    double sum = 0;
    long drained = 0, main_sum = 0;
    char buf[256];
    ssize_t n;
    if (use_pipe) {
        for (int r = 0; r < rounds; r++) {
            for (int i = 0; i < 10000; i++) sum += mid(i);
            while ((n = read(pipefd[0], buf, sizeof buf)) > 0) drained += n;
        }
    } else if (heap) {
        for (int i = 0; i < 3000; i++) main_sum += churn_heap(i);
    } else {
        for (int i = 0; i < 1000; i++) {
            main_sum += main_functions[i](i);
            for (int k = 0; k < 200; k++) sum += mid(k);   /* time for ticks meanwhile */
        }
    }
    setitimer(ITIMER_REAL, &off, NULL);
    if (heap) {
        close(end_pipe[1]);
        pthread_join(waiter, NULL);
    }
    while ((n = read(pipefd[0], buf, sizeof buf)) > 0) drained += n;
    printf("sum %.1f main %ld drained every tick %d\n", sum, main_sum, !use_pipe || drained == ticks);
    fprintf(stderr, "ticks %d\n", (int)ticks);
    return 0;
}
