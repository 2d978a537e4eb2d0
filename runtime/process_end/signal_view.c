/* The program's signal functions while the measurement's handlers are
 * installed: the program sets and reads its own action (the view the core
 * keeps, signals.c), never the measurement's, so the data is still written
 * when a signal ends the process after the program installed a handler of
 * its own. A signal the measurement does not handle now is the C library's
 * business alone. */
#include <errno.h>
#include <string.h>

#include "c_library.h"
#include "signals.h"

/* siginterrupt(sig, 1) on a signal of the measurement: signal() installs
 * without SA_RESTART (the C library keeps this for the other signals) */
static int interrupting[_NSIG];

static int is_measurements_now(int sig) { return scorep_signals_program_action(sig, NULL, NULL); }

int sigaction(int sig, const struct sigaction* act, struct sigaction* old)
{
    if (scorep_signals_program_action(sig, act, old)) return 0;
    return __sigaction(sig, act, old);
}

/* signal(), bsd_signal(), sysv_signal() as the C library makes them */
static sighandler_t set_handler(int sig, sighandler_t handler, int flags, int mask_itself)
{
    struct sigaction act, old;
    memset(&act, 0, sizeof act);
    act.sa_handler = handler;
    sigemptyset(&act.sa_mask);
    if (mask_itself) sigaddset(&act.sa_mask, sig);
    act.sa_flags = flags;
    if (handler == SIG_ERR || sigaction(sig, &act, &old) != 0) {
        errno = EINVAL;
        return SIG_ERR;
    }
    return old.sa_handler;
}

static int bsd_flags(int sig) { return sig > 0 && sig < _NSIG && interrupting[sig] ? 0 : SA_RESTART; }

/* BSD semantics */
sighandler_t signal(int sig, sighandler_t handler)
{
    if (!is_measurements_now(sig) && scorep_c_library_signal) return scorep_c_library_signal(sig, handler);
    return set_handler(sig, handler, bsd_flags(sig), 1);
}

sighandler_t bsd_signal(int sig, sighandler_t handler) { return signal(sig, handler); }

/* what signal() is for a program compiled for strict ISO C or X/Open
 * (no _DEFAULT_SOURCE): System V semantics */
sighandler_t __sysv_signal(int sig, sighandler_t handler)
{
    if (!is_measurements_now(sig) && scorep_c_library_sysv_signal) return scorep_c_library_sysv_signal(sig, handler);
    return set_handler(sig, handler, SA_RESETHAND | SA_NODEFER, 0);
}

sighandler_t sysv_signal(int sig, sighandler_t handler) { return __sysv_signal(sig, handler); }

int siginterrupt(int sig, int flag)
{
    struct sigaction act;
    if (!scorep_signals_program_action(sig, NULL, &act)) {
        if (scorep_c_library_siginterrupt) return scorep_c_library_siginterrupt(sig, flag);
        errno = ENOSYS;
        return -1;
    }
    interrupting[sig] = flag != 0;
    if (flag)
        act.sa_flags &= ~SA_RESTART;
    else
        act.sa_flags |= SA_RESTART;
    scorep_signals_program_action(sig, &act, NULL);
    return 0;
}
