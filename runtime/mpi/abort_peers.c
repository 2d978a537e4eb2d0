/*
 * Saving the other ranks' data when one rank calls MPI_Abort.
 *
 * Launchers end the other processes of an aborted job at once: MPICH's hydra
 * sends SIGTERM and SIGKILL back to back, Open MPI sometimes follows its
 * SIGTERM with SIGKILL within a millisecond, and nothing survives SIGKILL.
 * So before it aborts, the aborting rank asks the ranks on its own node to
 * save what they recorded (a queued real-time signal) and waits, bounded,
 * until each has answered. An asked rank only writes its data; it goes on
 * where it was and the job ends exactly as it would have. Ranks on other
 * nodes cannot be reached this way.
 *
 * The signal is used only if nobody else handles it, and a rank is asked
 * only if its process is still the one that took part in MPI_Init (same
 * pid and start time): a real-time signal's default action ends a process.
 * The handler only wakes a thread of ours that does the writing: the signal
 * may interrupt the program inside malloc or a lock that writing needs.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE  /* sigqueue, siginfo_t, nanosleep, gethostname */
#endif
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "abort_peers.h"
#include "internal.h"

#define SAVE_REQUEST 0x5C0E5AFE
#define SAVED 0x5C0E0D0E
#define WAIT_SECONDS 30

typedef struct process_identity {
    uint64_t host;        /* hash of the host name */
    int64_t pid;
    uint64_t start_time;  /* field 22 of /proc/<pid>/stat: tells a reused pid apart */
} process_identity;

static int save_signal;
static process_identity* peers;  /* the other ranks on this node */
static int peer_count;
static atomic_int answers;
static sem_t save_requested;
static atomic_long requester;    /* pid of the rank that asked */

static uint64_t host_hash(void)
{
    char name[256] = {0};
    gethostname(name, sizeof name - 1);
    uint64_t h = 1469598103934665603ull;  /* FNV-1a */
    for (const char* c = name; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ull;
    return h;
}

static uint64_t start_time_of(int64_t pid)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%lld/stat", (long long)pid);
    FILE* f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(line, 1, sizeof line - 1, f);
    fclose(f);
    line[n] = '\0';
    /* the command name (field 2) may hold spaces and parentheses: count from its end */
    const char* p = strrchr(line, ')');
    if (!p) return 0;
    unsigned long long value = 0;
    for (int field = 2; p && field < 22; field++) p = strchr(p + 1, ' ');
    if (p) sscanf(p + 1, "%llu", &value);
    return value;
}

static void on_save_signal(int sig, siginfo_t* info, void* context)
{
    (void)sig, (void)context;
    if (info->si_code != SI_QUEUE) return;
    if (info->si_value.sival_int == SAVED) {
        atomic_fetch_add(&answers, 1);
    } else if (info->si_value.sival_int == SAVE_REQUEST) {
        atomic_store(&requester, (long)info->si_pid);
        sem_post(&save_requested);  /* async-signal-safe */
    }
}

static void* saver(void* unused)
{
    (void)unused;
    while (sem_wait(&save_requested) != 0)
        ;  /* EINTR */
    scorep_measurement_abort_beside_running_threads();
    sigqueue((pid_t)atomic_load(&requester), save_signal, (union sigval){.sival_int = SAVED});
    return NULL;
}

/* The writing thread waits with every signal blocked, so that no signal
 * meant for the program is delivered to it. */
static int start_saver(void)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t thread;
    int rc = pthread_create(&thread, NULL, saver, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) return -1;
    pthread_detach(thread);
    return 0;
}

static int install_handler(void)
{
    for (int sig = SIGRTMAX - 4; sig >= SIGRTMIN + 4; sig--) {
        struct sigaction old;
        if (sigaction(sig, NULL, &old) != 0 || old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO))
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_save_signal;
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        if (sigaction(sig, &sa, NULL) == 0) return sig;
    }
    return 0;
}

void scorep_abort_peers_init(MPI_Comm comm)
{
    int rank, size;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    if (size < 2) return;
    /* every rank takes part in the exchange, even one that cannot be asked */
    int sig = sem_init(&save_requested, 0, 0) == 0 && start_saver() == 0 ? install_handler() : 0;
    process_identity me = {host_hash(), (int64_t)getpid(), start_time_of((int64_t)getpid())};
    if (!sig) me.host = 0;  /* cannot be asked */
    process_identity* all = malloc((size_t)size * sizeof *all);
    if (!all) return;
    PMPI_Allgather(&me, (int)sizeof me, MPI_BYTE, all, (int)sizeof me, MPI_BYTE, comm);
    int n = 0;
    for (int r = 0; r < size; r++)
        if (r != rank && all[r].host == me.host && me.host != 0) all[n++] = all[r];
    peers = all;
    peer_count = n;
    save_signal = sig;
    if (sig) scorep_verbose("MPI_Abort will ask %d rank(s) on this node to save their data first (signal %d)", n, sig);
}

void scorep_abort_peers_save(void)
{
    int asked = 0;
    for (int i = 0; save_signal && i < peer_count; i++) {
        if (peers[i].start_time == 0 || start_time_of(peers[i].pid) != peers[i].start_time) continue;
        if (sigqueue((pid_t)peers[i].pid, save_signal, (union sigval){.sival_int = SAVE_REQUEST}) == 0)
            asked++;
    }
    scorep_measurement_abort();  /* this rank's own data, while the others write theirs */
    if (!asked) return;
    struct timespec begin, now, pause = {0, 1000000};
    clock_gettime(CLOCK_MONOTONIC, &begin);
    do {
        nanosleep(&pause, NULL);
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while (atomic_load(&answers) < asked && now.tv_sec - begin.tv_sec < WAIT_SECONDS);
    if (atomic_load(&answers) < asked)
        scorep_warning("MPI_Abort: %d of %d rank(s) on this node did not confirm saving their data "
                       "within %d s", asked - atomic_load(&answers), asked, WAIT_SECONDS);
}
