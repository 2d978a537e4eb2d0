/* The C library's functions the process-end component stands in front of,
 * found once when the component starts (start.c): a call of _exit in a
 * child of vfork() or in a signal handler must not look anything up. NULL
 * until then (a library constructor that runs before ours). */
#ifndef SCOREP_PROCESS_END_C_LIBRARY_H
#define SCOREP_PROCESS_END_C_LIBRARY_H

#include <signal.h>

#define HIDDEN __attribute__((visibility("hidden")))

extern void (*scorep_c_library_exit)(int status) HIDDEN;
extern void (*scorep_c_library_Exit)(int status) HIDDEN;
extern sighandler_t (*scorep_c_library_signal)(int sig, sighandler_t handler) HIDDEN;
extern sighandler_t (*scorep_c_library_sysv_signal)(int sig, sighandler_t handler) HIDDEN;
extern int (*scorep_c_library_siginterrupt)(int sig, int flag) HIDDEN;

/* the C library's own sigaction, interposed by no one (glibc exports it) */
extern int __sigaction(int sig, const struct sigaction* act, struct sigaction* old);

#endif /* SCOREP_PROCESS_END_C_LIBRARY_H */
