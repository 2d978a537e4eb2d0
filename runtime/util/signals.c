/* The measurement's handlers for the signals that end a process, and the
 * program's view of them (docs/MAINTAINING.md, "Signals").
 *
 * The life cycle (lifecycle.c) installs them when the measurement starts
 * and hands over the one thing it wants from a signal: write the data. This
 * file decides when that happens and passes the signal on so that the
 * process does what it would do unmeasured (output, exit status, core).
 *
 * - A signal whose action is the default: the data is written, then the
 *   default action ends the process.
 * - A crash signal (QUIT, SEGV, BUS, FPE, ILL, ABRT) whose handler was there
 *   before ours (the MPI library's backtrace, a run-time's, the program's):
 *   the data is written, then that handler gets the signal with the same
 *   siginfo.
 * - Any other handler of the program (one installed after ours, or a handler
 *   of a termination request): it runs first, exactly as unmeasured, and the
 *   measurement goes on. A handler that cleans up and re-raises with the
 *   default action (coreutils, gfortran's backtrace, handlers with
 *   SA_RESETHAND) reaches ours again with the default: then the data is
 *   written. A handler that calls exit() is written at exit.
 * - An ignored signal stays ignored.
 *
 * Ours stay on top where the process-end component (runtime/process_end/)
 * interposes sigaction() and signal(): while ours is installed for a signal,
 * the program sets and reads its own action (the view, through
 * scorep_signals_program_action) and never sees ours, and its handler runs
 * with its own mask and flags (SA_RESTART or not decides whether a blocked
 * read() returns EINTR). Without the component a program's own action
 * replaces ours in the kernel: that signal is then the program's alone. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"
#include "signals.h"

/* the C library's own entry, not interposed by anyone (glibc exports it) */
extern int __sigaction(int sig, const struct sigaction* act, struct sigaction* old);

static const int handled_signals[] = {SIGTERM, SIGINT,  SIGHUP,  SIGQUIT, SIGSEGV, SIGBUS,  SIGFPE,    SIGILL,
                                      SIGABRT, SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ, SIGVTALRM};
#define HANDLED_COUNT (sizeof handled_signals / sizeof *handled_signals)

static struct sigaction view[HANDLED_COUNT];   /* the program's action: what it would see unmeasured */
static volatile int installed[HANDLED_COUNT];  /* ours is the kernel's action */
static volatile int program_first[HANDLED_COUNT]; /* view is a handler that runs before anything of ours */
static int stepped_aside[HANDLED_COUNT];
static void (*write_data)(int sig);
static int on_own_stack; /* SA_ONSTACK: ours run on the alternate stack below */

/* A stack overflow's SIGSEGV cannot run a handler on the stack that
 * overflowed: the kernel ends the process and the data is lost. Where the
 * thread that starts the measurement (the main thread, as a rule) has no
 * alternate signal stack, it gets one, and ours run on it. Not where the
 * program has its own: the program's may be too small to write the data on
 * (a language run-time's guard-page handler), and ours would run on it. Only
 * touched pages take memory. */
#define ALTERNATE_STACK_BYTES (1u << 20)

static void give_this_thread_an_alternate_stack(void)
{
    stack_t current;
    if (sigaltstack(NULL, &current) != 0 || !(current.ss_flags & SS_DISABLE)) return;
    void* memory = mmap(NULL, ALTERNATE_STACK_BYTES, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (memory == MAP_FAILED) return;
    stack_t stack = {.ss_sp = memory, .ss_size = ALTERNATE_STACK_BYTES, .ss_flags = 0};
    if (sigaltstack(&stack, NULL) == 0)
        on_own_stack = 1;
    else
        munmap(memory, ALTERNATE_STACK_BYTES);
}

static int handled_index(int sig)
{
    for (size_t i = 0; i < HANDLED_COUNT; i++)
        if (handled_signals[i] == sig) return (int)i;
    return -1;
}

static int is_crash(int sig)
{
    return sig == SIGQUIT || sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGABRT;
}

static int is_default(const struct sigaction* a)
{
    return !(a->sa_flags & SA_SIGINFO) && a->sa_handler == SIG_DFL;
}

static int is_ignored(const struct sigaction* a)
{
    return !(a->sa_flags & SA_SIGINFO) && a->sa_handler == SIG_IGN;
}

/* a fault the kernel raised at the faulting instruction: returning executes it again */
static int is_synchronous_fault(int sig, const siginfo_t* info)
{
    if (!info || info->si_code <= 0) return 0;
    if (sig == SIGBUS && (info->si_code == BUS_MCEERR_AO)) return 0;
    return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL;
}

static void on_signal(int sig, siginfo_t* info, void* context);

/* the kernel's action for signal i while ours is on top */
static void install_ours(size_t i)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    if (program_first[i]) {
        /* the program's handler runs inside ours: its mask, its flags */
        sa.sa_mask = view[i].sa_mask;
        sa.sa_flags = (view[i].sa_flags & ~SA_RESETHAND) | SA_SIGINFO;
    } else {
        /* Launchers often send SIGTERM twice (Open MPI does): every handled
         * signal stays blocked while the data is written. */
        sigemptyset(&sa.sa_mask);
        for (size_t k = 0; k < HANDLED_COUNT; k++) sigaddset(&sa.sa_mask, handled_signals[k]);
        sa.sa_flags = SA_SIGINFO | SA_RESTART | (on_own_stack ? SA_ONSTACK : 0);
    }
    if (__sigaction(handled_signals[i], &sa, NULL) == 0) installed[i] = 1;
}

/* The view takes over again and gets this signal: a fault re-executes the
 * faulting instruction once this handler returns (the previous handler sees
 * the real fault and its context); any other signal is queued again with its
 * siginfo for this thread, delivered when this handler returns and unblocks it. */
static void chain(int i, int sig, siginfo_t* info)
{
    __sigaction(sig, &view[i], NULL);
    installed[i] = 0;
    if (is_synchronous_fault(sig, info)) return;
    if (!info || syscall(SYS_rt_tgsigqueueinfo, getpid(), (pid_t)syscall(SYS_gettid), sig, info) != 0) raise(sig);
}

/* A program's handler for a handled signal runs on this thread: a process
 * it ends with _exit ends because of the signal (an abnormal end), unlike
 * one that ends with _exit of its own accord (/bin/sh always does). A
 * handler left with siglongjmp leaves this set: its thread's _exit then
 * counts as abnormal, which only marks whole data as partial. */
static _Thread_local int program_handler_depth;

static void run_program_handler(int i, int sig, siginfo_t* info, void* context)
{
    struct sigaction handler = view[i]; /* the handler may change the view */
    if (handler.sa_flags & SA_RESETHAND) {
        memset(&view[i], 0, sizeof view[i]);
        view[i].sa_handler = SIG_DFL;
        program_first[i] = 0;
        install_ours((size_t)i);
    }
    program_handler_depth++;
    if (handler.sa_flags & SA_SIGINFO)
        handler.sa_sigaction(sig, info, context);
    else
        handler.sa_handler(sig);
    program_handler_depth--;
}

int scorep_signals_program_handler_running(void) { return program_handler_depth > 0; }

/* A signal that arrived while its thread was inside the measurement
 * (substrate.h), delivered as the thread leaves. */
volatile int scorep_signal_deferred;
static int deferred_signal;
static siginfo_t deferred_info;
static int deferred_has_info;

static void block_handled_signals(sigset_t* previous)
{
    sigset_t block;
    sigemptyset(&block);
    for (size_t k = 0; k < HANDLED_COUNT; k++) sigaddset(&block, handled_signals[k]);
    pthread_sigmask(SIG_BLOCK, &block, previous);
}

static void on_signal(int sig, siginfo_t* info, void* context)
{
    int i = handled_index(sig);
    if (i < 0) return;
    if (program_first[i]) {
        run_program_handler(i, sig, info, context);
        return;
    }
    int saved_errno = errno;
    if (scorep_inside() && !is_synchronous_fault(sig, info)) {
        /* the data cannot be written from here: the thread may hold a lock
         * the writing needs (the trace's memory, the definitions), or be
         * half-way through an event. Only the first such signal is kept;
         * the process ends with it. */
        if (!scorep_signal_deferred) {
            deferred_signal = sig;
            deferred_has_info = info != NULL;
            if (info) deferred_info = *info;
            __atomic_store_n(&scorep_signal_deferred, 1, __ATOMIC_RELEASE);
        }
        errno = saved_errno;
        return;
    }
    if (write_data) write_data(sig);
    chain(i, sig, info);
    errno = saved_errno;
}

/* What on_signal would have done, now that this thread is outside the
 * measurement: with the handled signals blocked, as in the handler, the
 * data written, then the signal passed on (chain: queued again for this
 * thread, delivered as the mask is restored). */
void scorep_signals_deliver_deferred(void)
{
    if (!__atomic_exchange_n(&scorep_signal_deferred, 0, __ATOMIC_ACQ_REL)) return;
    int sig = deferred_signal;
    int i = handled_index(sig);
    sigset_t previous;
    block_handled_signals(&previous);
    int saved_errno = errno;
    if (installed[i]) {
        if (write_data) write_data(sig);
        chain(i, sig, deferred_has_info ? &deferred_info : NULL);
    } else {
        raise(sig);   /* the program's action meanwhile: its handler, or the default */
    }
    errno = saved_errno;
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
}

static void install(size_t i)
{
    struct sigaction current;
    if (installed[i] || __sigaction(handled_signals[i], NULL, &current) != 0) return;
    if (is_ignored(&current)) return;
    view[i] = current;
    program_first[i] = !is_default(&current) && !is_crash(handled_signals[i]);
    install_ours(i);
}

void scorep_signals_install(void (*write)(int sig))
{
    write_data = write;
    give_this_thread_an_alternate_stack();
    for (size_t i = 0; i < HANDLED_COUNT; i++) install(i);
}

/* ---- the process-end component ---- */

static const scorep_process_end_component* component;

void scorep_process_end_register(const scorep_process_end_component* registering)
{
    const scorep_process_end_component* none = NULL;
    __atomic_compare_exchange_n(&component, &none, registering, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

void scorep_signals_end_process(int status)
{
    const scorep_process_end_component* c = __atomic_load_n(&component, __ATOMIC_ACQUIRE);
    if (c && c->end_process) c->end_process(status);
    for (;;) syscall(SYS_exit_group, status);
}

/* Where the component's sigaction() is not in front of the C library's
 * (left out, or loaded behind it) the program's reaches the kernel: an action
 * it set after ours is its own, and putting the view back over it would undo
 * it. Asked of the kernel, not of the registration, which says only that the
 * component is loaded. */
static int still_ours(size_t i)
{
    struct sigaction current;
    return __sigaction(handled_signals[i], NULL, &current) == 0 && (current.sa_flags & SA_SIGINFO)
           && current.sa_sigaction == on_signal;
}

/* The view becomes the kernel's action again wherever ours is installed
 * (a forked child; the measurement's end). */
void scorep_signals_restore(void)
{
    for (size_t i = 0; i < HANDLED_COUNT; i++) {
        if (!installed[i]) continue;
        installed[i] = 0;
        if (still_ours(i)) __sigaction(handled_signals[i], &view[i], NULL);
    }
}

/* MPI libraries install their own crash handlers in MPI_Init, but only for
 * signals whose action is the default (Open MPI: SEGV, BUS, FPE, ABRT; it
 * prints "Process received signal" and a backtrace). Ours step aside during
 * PMPI_Init and come back on top after it, chaining to what MPI installed. */
void scorep_signals_step_aside(void)
{
    for (size_t i = 0; i < HANDLED_COUNT; i++) {
        stepped_aside[i] = 0;
        if (!installed[i]) continue;
        installed[i] = 0;
        stepped_aside[i] = still_ours(i);
        if (stepped_aside[i]) __sigaction(handled_signals[i], &view[i], NULL);
    }
}

void scorep_signals_step_back(int measurement_running)
{
    for (size_t i = 0; i < HANDLED_COUNT; i++)
        if (stepped_aside[i]) {
            stepped_aside[i] = 0;
            if (measurement_running) install(i);
        }
}

/* ---- the program's view (asked by the component's sigaction, signal, ...) ---- */

/* Sets the view of signal i to act (NULL: only reads it) while ours is
 * installed, with signal i blocked on this thread meanwhile. (A signal
 * delivered to another thread during the change sees the old view or the
 * new one, as with the C library's own sigaction.) act and old may be the
 * same object. */
static void set_view(size_t i, const struct sigaction* act, struct sigaction* old)
{
    sigset_t block, previous;
    sigemptyset(&block);
    sigaddset(&block, handled_signals[i]);
    pthread_sigmask(SIG_BLOCK, &block, &previous);
    struct sigaction wanted;
    if (act) wanted = *act;
    if (old) *old = view[i];
    if (act) {
        act = &wanted;
        view[i] = wanted;
        if (is_ignored(act)) {
            /* nothing to write for a signal that does nothing */
            installed[i] = 0;
            program_first[i] = 0;
            __sigaction(handled_signals[i], act, NULL);
        } else {
            program_first[i] = !is_default(act);
            install_ours(i);
        }
    }
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
}

int scorep_signals_program_action(int sig, const struct sigaction* act, struct sigaction* old)
{
    int i = handled_index(sig);
    if (i < 0 || !installed[i]) return 0;
    set_view((size_t)i, act, old);
    return 1;
}
