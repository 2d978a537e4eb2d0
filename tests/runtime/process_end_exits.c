/* _exit on the ways where only async-signal-safe code may run, many times:
 * from children of vfork() (they share the parent's memory and its other
 * threads run on) and from a signal handler in such a child, while another
 * thread holds the dynamic loader's lock (it runs a library constructor
 * inside dlopen that waits). An _exit that looked a symbol up there would
 * wait for that lock, and the children would not end before the loader is
 * released. At the end the process itself ends with _exit from a handler
 * of SIGUSR1 that it installed while measured: its data must be written.
 *
 * usage: process_end_exits <loader_blocker.so> <children>
 * prints how many children ended with the status their _exit gave and
 * whether the loader was still busy when the last one had ended */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <scorep_wrapgen/adapter.h>

static int holding[2], release[2];
static const char* blocker_path;

static void* load_blocker(void* unused)
{
    (void)unused;
    if (!dlopen(blocker_path, RTLD_NOW)) fprintf(stderr, "dlopen: %s\n", dlerror());
    return NULL;
}

static void exit_from_handler(int sig) { _exit(sig == SIGWINCH ? 43 : 5); }

static int child_status(pid_t pid)
{
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
    return WEXITSTATUS(status);
}

int main(int argc, char** argv)
{
    if (argc != 3) return 2;
    blocker_path = argv[1];
    int children = atoi(argv[2]);
    scorep_region spawn = scorep_region_define("spawn", NULL, SCOREP_PARADIGM_USER, SCOREP_ROLE_FUNCTION, NULL);

    struct sigaction on_winch;
    memset(&on_winch, 0, sizeof on_winch);
    on_winch.sa_handler = exit_from_handler;
    sigaction(SIGWINCH, &on_winch, NULL);

    if (pipe(holding) != 0 || pipe(release) != 0) return 2;
    char fds[64];
    snprintf(fds, sizeof fds, "%d %d", holding[1], release[0]);
    setenv("LOADER_BLOCKER_FDS", fds, 1);
    pthread_t loader;
    pthread_create(&loader, NULL, load_blocker, NULL);
    char c;
    if (read(holding[0], &c, 1) != 1) return 2;   /* the loader's lock is held now */

    int exited = 0, exited_in_handler = 0;
    for (int k = 0; k < children; k++) {
        scorep_enter(spawn);
        pid_t pid = vfork();
        if (pid == 0) _exit(42);
        exited += child_status(pid) == 42;
        pid = vfork();
        if (pid == 0) {
            raise(SIGWINCH);
            _exit(1);
        }
        exited_in_handler += child_status(pid) == 43;
        scorep_exit(spawn);
    }
    if (write(release[1], "r", 1) != 1) return 2;
    pthread_join(loader, NULL);
    if (read(holding[0], &c, 1) != 1) return 2;   /* 'r' released, 't' it gave up waiting */

    printf("_exit: %d of %d\n_exit in a handler: %d of %d\nloader busy throughout: %s\n", exited, children,
           exited_in_handler, children, c == 'r' ? "yes" : "no");
    fflush(stdout);

    struct sigaction on_usr1;
    memset(&on_usr1, 0, sizeof on_usr1);
    on_usr1.sa_handler = exit_from_handler;
    sigaction(SIGUSR1, &on_usr1, NULL);
    raise(SIGUSR1);
    return 0;
}
