/* usage: test_signals MODE
 * Installs what MODE says before the measurement starts, records region
 * "main" > "step" x 5, then:
 *   fault      own SA_SIGINFO SIGSEGV handler; writes to address 0x10
 *   queued     own SA_SIGINFO SIGQUIT handler; sigqueue(SIGQUIT, value 1234)
 *   term       own SIGTERM handler that counts; raise(SIGTERM), goes on, ends normally
 *   ignored    SIGINT ignored; raise(SIGINT), goes on, ends normally
 * The SA_SIGINFO handlers print what they received and end with _exit(7). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    }
    scorep_region main_r = scorep_region_define("main", "test_signals.c", SCOREP_PARADIGM_USER,
                                                SCOREP_ROLE_FUNCTION, NULL);
    scorep_region step = scorep_region_define("step", "test_signals.c", SCOREP_PARADIGM_USER,
                                              SCOREP_ROLE_FUNCTION, NULL);
    scorep_enter(main_r);
    for (int i = 0; i < 5; i++) {
        scorep_enter(step);
        scorep_exit(step);
    }
    fflush(stdout);
    volatile int* volatile nowhere = (volatile int*)0x10;
    if (strcmp(mode, "fault") == 0) *nowhere = 1;
    if (strcmp(mode, "queued") == 0) sigqueue(getpid(), SIGQUIT, (union sigval){.sival_int = 1234});
    if (strcmp(mode, "term") == 0) raise(SIGTERM);
    if (strcmp(mode, "ignored") == 0) raise(SIGINT);
    scorep_enter(step);
    scorep_exit(step);
    scorep_exit(main_r);
    printf("went on (terms %d)\n", (int)terms);
    return 0;
}
