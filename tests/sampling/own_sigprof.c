/* A program that profiles itself with SIGPROF (setitimer ITIMER_PROF) and
 * counts its handler's calls: the measurement must leave the signal to it. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

static volatile sig_atomic_t ticks;
static void on_prof(int sig) { (void)sig; ticks++; }

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_prof;
    sigaction(SIGPROF, &sa, NULL);
    struct itimerval every = {{0, 2000}, {0, 2000}};
    setitimer(ITIMER_PROF, &every, NULL);
    volatile double s = 0;
    for (long i = 0; i < 300000000L && ticks < 50; i++) s += (double)i * 1e-9;
    printf("own ticks %s\n", ticks >= 50 ? "enough" : "too few");
    return ticks >= 50 ? 0 : 1;
}
