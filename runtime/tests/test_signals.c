/* usage: test_signals MODE
 * Installs what MODE says before the measurement starts, records region
 * "main" > "step" x 5, then:
 *   fault      own SA_SIGINFO SIGSEGV handler; writes to address 0x10
 *   queued     own SA_SIGINFO SIGQUIT handler; sigqueue(SIGQUIT, value 1234)
 *   term       own SIGTERM handler that counts; raise(SIGTERM), goes on, ends normally
 *   ignored    SIGINT ignored; raise(SIGINT), goes on, ends normally
 *   overflow   unbounded recursion: the stack overflows (SIGSEGV)
 *   pipe       writes to a pipe nobody reads (SIGPIPE, its default action)
 * The SA_SIGINFO handlers print what they received and end with _exit(7).
 * Modes that install their handler after the measurement started (the
 * program's view of its actions, and handlers run as unmeasured):
 *   late_reraise   SIGTERM handler that cleans up, sets SIG_DFL, re-raises
 *                  (coreutils' pattern); raise(SIGTERM)
 *   late_exit      SIGTERM handler that cleans up and ends with _exit(3)
 *   late_view      prints what sigaction()/signal() report for SIGTERM
 *                  before and after the program sets it, then goes on
 *   late_eintr     SIGINT handler without SA_RESTART: a blocked read()
 *                  returns EINTR; late_restart: with SA_RESTART it goes on
 *   late_resethand SIGSEGV handler with SA_RESETHAND that returns: the
 *                  fault comes again and ends the process */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "scorep_wrapgen/adapter.h"

static volatile sig_atomic_t terms;

static void report(int sig, siginfo_t* info, void* context)
{
    (void)context;
    char line[160];
    int n = snprintf(line, sizeof line, "handler: signal %d code %d addr %p value %d\n", sig, info->si_code,
                     info->si_addr, sig == SIGQUIT ? info->si_value.sival_int : 0);
    if (n > 0 && write(STDOUT_FILENO, line, (size_t)n) < 0) _exit(8);
    _exit(7);
}

static void count(int sig)
{
    (void)sig;
    terms++;
}

static void say(const char* text)
{
    if (write(STDOUT_FILENO, text, strlen(text)) < 0) _exit(8);
}

static void clean_up_and_reraise(int sig)
{
    say("cleaned up\n");
    signal(sig, SIG_DFL);
    raise(sig);
}

static void clean_up_and_exit(int sig)
{
    (void)sig;
    say("cleaned up\n");
    _exit(3);
}

static void once(int sig)
{
    (void)sig;
    say("handler once\n");
}

static int deeper(int n)
{
    volatile char pad[512];
    memset((char*)pad, n, sizeof pad);
    return n < 0 ? 0 : deeper(n + 1) + pad[n % 512];
}

static const char* describe(const struct sigaction* a)
{
    if (!(a->sa_flags & SA_SIGINFO) && a->sa_handler == SIG_DFL) return "default";
    if (!(a->sa_flags & SA_SIGINFO) && a->sa_handler == SIG_IGN) return "ignored";
    if (!(a->sa_flags & SA_SIGINFO) && a->sa_handler == count) return "count";
    return "other";
}

static void show_view(void)
{
    struct sigaction now;
    sigaction(SIGTERM, NULL, &now);
    printf("view: %s%s%s%s\n", describe(&now), (now.sa_flags & SA_RESTART) ? " restart" : "",
           (now.sa_flags & SA_NODEFER) ? " nodefer" : "", sigismember(&now.sa_mask, SIGUSR1) ? " mask-usr1" : "");
}

/* a child sends SIGINT while this process is blocked in read() on a pipe;
 * with restart the child writes one byte afterwards */
static void read_interrupted(int restart)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = count;
    sa.sa_flags = restart ? SA_RESTART : 0;
    sigaction(SIGINT, &sa, NULL);
    int fds[2];
    if (pipe(fds) != 0) _exit(9);
    pid_t parent = getpid();
    if (fork() == 0) {
        close(fds[0]);
        struct timespec pause = {0, 200000000};
        nanosleep(&pause, NULL);
        kill(parent, SIGINT);
        nanosleep(&pause, NULL);
        if (write(fds[1], "x", 1) != 1) _exit(1);
        _exit(0);
    }
    close(fds[1]);
    char c;
    ssize_t n = read(fds[0], &c, 1);
    printf("read %zd%s (ints %d)\n", n, n < 0 && errno == EINTR ? " EINTR" : "", (int)terms);
    wait(NULL);
}

int main(int argc, char** argv)
{
    const char* mode = argc > 1 ? argv[1] : "fault";
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    if (strcmp(mode, "fault") == 0 || strcmp(mode, "queued") == 0) {
        sa.sa_sigaction = report;
        sa.sa_flags = SA_SIGINFO;
        sigaction(mode[0] == 'f' ? SIGSEGV : SIGQUIT, &sa, NULL);
    } else if (strcmp(mode, "term") == 0) {
        sa.sa_handler = count;
        sigaction(SIGTERM, &sa, NULL);
    } else if (strcmp(mode, "ignored") == 0) {
        signal(SIGINT, SIG_IGN);
    } else if (strcmp(mode, "pipe") == 0) {
        signal(SIGPIPE, SIG_DFL);
    }
    scorep_region main_r = scorep_region_define("main", "test_signals.c", SCOREP_PARADIGM_USER,
                                                SCOREP_ROLE_FUNCTION, NULL);
    scorep_region step = scorep_region_define("step", "test_signals.c", SCOREP_PARADIGM_USER,
                                              SCOREP_ROLE_FUNCTION, NULL);
    /* the measurement runs now (the definitions started it) */
    if (strcmp(mode, "late_reraise") == 0) {
        sa.sa_handler = clean_up_and_reraise;
        sigaction(SIGTERM, &sa, NULL);
    } else if (strcmp(mode, "late_exit") == 0) {
        sa.sa_handler = clean_up_and_exit;
        sigaction(SIGTERM, &sa, NULL);
    } else if (strcmp(mode, "late_view") == 0) {
        show_view();
        sa.sa_handler = count;
        sa.sa_flags = SA_RESTART | SA_NODEFER;
        sigaddset(&sa.sa_mask, SIGUSR1);
        struct sigaction old;
        sigaction(SIGTERM, &sa, &old);
        printf("old: %s\n", describe(&old));
        show_view();
        printf("signal returned: %s\n", signal(SIGTERM, SIG_IGN) == count ? "count" : "other");
        show_view();
        raise(SIGTERM); /* ignored */
        printf("signal returned: %s\n", signal(SIGTERM, SIG_DFL) == SIG_IGN ? "ignored" : "other");
        show_view();
        signal(SIGTERM, count);
        raise(SIGTERM);
        printf("terms %d\n", (int)terms);
        terms = 0;
    } else if (strcmp(mode, "late_resethand") == 0) {
        sa.sa_handler = once;
        sa.sa_flags = SA_RESETHAND;
        sigaction(SIGSEGV, &sa, NULL);
    }
    scorep_enter(main_r);
    for (int i = 0; i < 5; i++) {
        scorep_enter(step);
        scorep_exit(step);
    }
    fflush(stdout);
    volatile int* volatile nowhere = (volatile int*)0x10;
    if (strcmp(mode, "fault") == 0 || strcmp(mode, "late_resethand") == 0) *nowhere = 1;
    if (strcmp(mode, "late_reraise") == 0 || strcmp(mode, "late_exit") == 0) raise(SIGTERM);
    if (strcmp(mode, "overflow") == 0) printf("%d\n", deeper(0));
    if (strcmp(mode, "pipe") == 0) {
        int fds[2];
        if (pipe(fds) != 0) _exit(9);
        close(fds[0]);
        if (write(fds[1], "x", 1) < 0) say("write failed\n");
    }
    if (strcmp(mode, "late_eintr") == 0 || strcmp(mode, "late_restart") == 0)
        read_interrupted(mode[5] == 'r');
    if (strcmp(mode, "queued") == 0) sigqueue(getpid(), SIGQUIT, (union sigval){.sival_int = 1234});
    if (strcmp(mode, "term") == 0) raise(SIGTERM);
    if (strcmp(mode, "ignored") == 0) raise(SIGINT);
    scorep_enter(step);
    scorep_exit(step);
    scorep_exit(main_r);
    printf("went on (terms %d)\n", (int)terms);
    return 0;
}
