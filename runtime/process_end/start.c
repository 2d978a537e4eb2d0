/* The process-end component's start: the C library's functions it stands
 * in front of are found here, once, and the component registers with the
 * measurement core, which calls it only through what it registers. */
#include <dlfcn.h>

#include "c_library.h"
#include "signals.h"

void (*scorep_c_library_exit)(int status);
void (*scorep_c_library_Exit)(int status);
sighandler_t (*scorep_c_library_signal)(int sig, sighandler_t handler);
sighandler_t (*scorep_c_library_sysv_signal)(int sig, sighandler_t handler);
int (*scorep_c_library_siginterrupt)(int sig, int flag);

static scorep_process_end_component component;

/* RTLD_NEXT: another library in front of the C library (a tool of the
 * program's) keeps its place behind us */
__attribute__((constructor)) static void start(void)
{
    scorep_c_library_exit = (void (*)(int))dlsym(RTLD_NEXT, "_exit");
    scorep_c_library_Exit = (void (*)(int))dlsym(RTLD_NEXT, "_Exit");
    scorep_c_library_signal = (sighandler_t(*)(int, sighandler_t))dlsym(RTLD_NEXT, "signal");
    scorep_c_library_sysv_signal = (sighandler_t(*)(int, sighandler_t))dlsym(RTLD_NEXT, "__sysv_signal");
    scorep_c_library_siginterrupt = (int (*)(int, int))dlsym(RTLD_NEXT, "siginterrupt");
    component.end_process = scorep_c_library_exit;
    scorep_process_end_register(&component);
}
