/*
 * Saving the other ranks' data when one rank calls MPI_Abort.
 *
 * Launchers end the other processes of an aborted job at once: MPICH's hydra
 * sends SIGTERM and SIGKILL back to back, Open MPI sometimes follows its
 * SIGTERM with SIGKILL within a millisecond, and nothing survives SIGKILL.
 * So before it aborts, the aborting rank asks the ranks on its own node to
 * save what they recorded (a queued real-time signal) and waits, bounded,
 * until each has answered that its data is written (not before: several
 * ranks may abort at once, and a rank asked while it writes answers when
 * it is done). The same signal tells the others when a rank has written
 * its data after any abnormal end, and that rank waits for them, bounded:
 * launchers kill all ranks as soon as one of them ends. An asked rank only writes its data; it goes on
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
#include "lifecycle.h"
#include "multiprocess.h"

#define SAVE_REQUEST 0x5C0E5AFE
#define SAVED 0x5C0E0D0E
/* How long MPI_Abort waits for the ranks it asked: they write their data. */
#define ABORT_WAIT_MS 10000
/* How long a rank that wrote its data at an abnormal end stays alive for
 * the others on its node: Open MPI sends SIGKILL to every rank as soon as one
 * of them has ended after its SIGTERM (at the latest 1 s after it), MPICH's
 * hydra right away, so the first rank done must not end before the others. */
#define PEER_WAIT_MS 1500

typedef struct process_identity {
    uint64_t host;        /* hash of the host name */
    int64_t pid;
    uint64_t start_time;  /* field 22 of /proc/<pid>/stat: tells a reused pid apart */
} process_identity;

static int save_signal;
static process_identity* peers;  /* the other ranks on this node */
static int peer_count;
/* per peer: it said it has written its data (SAVED), we asked it (SAVE_REQUEST) */
static atomic_char* peer_saved;
static atomic_char* peer_asked;
static sem_t save_requested;
/* posted on every SAVED: a waiting rank ends right after its last peer has
 * written, not up to a poll interval later; ranks that end within a few
 * milliseconds of each other spare the job the launcher's kill sequence
 * (Open MPI: SIGCONT, 1 s, SIGTERM, 1 s, SIGKILL to ranks not yet reaped) */
static sem_t peer_news;

static uint64_t host_hash(void)
{
    char name[256] = {0};
    gethostname(name, sizeof name - 1);
    uint64_t h = 1469598103934665603ull;  /* FNV-1a */
    for (const char* c = name; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ull;
    return h;
}

/* The start time of a running process (0: gone, or a zombie that ended). */
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
    if (!p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X') return 0;
    unsigned long long value = 0;
    for (int field = 2; p && field < 22; field++) p = strchr(p + 1, ' ');
    if (p) sscanf(p + 1, "%llu", &value);
    return value;
}

/* the peer still runs as the process that took part in MPI_Init */
static int peer_alive(int i)
{
    return peers[i].start_time != 0 && start_time_of(peers[i].pid) == peers[i].start_time;
}

static void on_save_signal(int sig, siginfo_t* info, void* context)
{
    (void)sig, (void)context;
    if (info->si_code != SI_QUEUE) return;
    if (info->si_value.sival_int == SAVED) {
        for (int i = 0; i < peer_count; i++)
            if (peers[i].pid == (int64_t)info->si_pid) atomic_store(&peer_saved[i], 1);
        sem_post(&peer_news);  /* async-signal-safe */
    } else if (info->si_value.sival_int == SAVE_REQUEST) {
        sem_post(&save_requested);  /* async-signal-safe */
    }
}

static void announce_saved(void)
{
    for (int i = 0; i < peer_count; i++)
        if (peer_alive(i)) sigqueue((pid_t)peers[i].pid, save_signal, (union sigval){.sival_int = SAVED});
}

static void* saver(void* unused)
{
    (void)unused;
    while (sem_wait(&save_requested) != 0)
        ;  /* EINTR */
    /* Writes, or returns while another thread of this process writes; the
     * life cycle then tells the peers once it is written (written() below).
     * After MPI_Finalize the data was written at the normal end. */
    scorep_measurement_abort_beside_running_threads();
    int finalized = 0;
    PMPI_Finalized(&finalized);
    if (finalized) announce_saved();
    return NULL;
}

/* Asks every peer not asked yet to save; returns how many were asked so far. */
static int ask_peers(void)
{
    int asked = 0;
    for (int i = 0; i < peer_count; i++) {
        if (!atomic_load(&peer_asked[i]) && !atomic_load(&peer_saved[i]) && peer_alive(i)
            && sigqueue((pid_t)peers[i].pid, save_signal, (union sigval){.sival_int = SAVE_REQUEST}) == 0)
            atomic_store(&peer_asked[i], 1);
        asked += atomic_load(&peer_asked[i]);
    }
    return asked;
}

/* Waits until every peer (only the asked ones if only_asked) has written its
 * data or ended, at most milliseconds; returns how many have not. */
static int wait_for_peers(int only_asked, int milliseconds)
{
    struct timespec begin, now;
    clock_gettime(CLOCK_MONOTONIC, &begin);
    for (;;) {
        int pending = 0;
        for (int i = 0; i < peer_count; i++)
            if ((!only_asked || atomic_load(&peer_asked[i])) && !atomic_load(&peer_saved[i]) && peer_alive(i))
                pending++;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long elapsed = (now.tv_sec - begin.tv_sec) * 1000 + (now.tv_nsec - begin.tv_nsec) / 1000000;
        if (pending == 0 || elapsed >= milliseconds) return pending;
        /* woken by the next SAVED; a peer that ends without one is seen
         * dead at the latest 10 ms later (sem_timedwait counts in CLOCK_REALTIME) */
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 10000000;
        if (until.tv_nsec >= 1000000000) until.tv_sec++, until.tv_nsec -= 1000000000;
        sem_timedwait(&peer_news, &until);
    }
}

/* The life cycle, once this process wrote its data at an abnormal end (a
 * signal, MPI_Abort, an exit without MPI_Finalize): the peers learn that it
 * is written, are asked to write theirs too (the job ends now: a launcher
 * kills every rank once one has ended), and this process stays until they
 * have, so that its end does not make the launcher kill them meanwhile. */
static void written(void)
{
    if (!save_signal) return;
    ask_peers();
    announce_saved();
    wait_for_peers(0, PEER_WAIT_MS);
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
    peer_saved = calloc((size_t)size, sizeof *peer_saved);
    peer_asked = calloc((size_t)size, sizeof *peer_asked);
    /* every rank takes part in the exchange, even one that cannot be asked */
    int sig = peer_saved && peer_asked && sem_init(&save_requested, 0, 0) == 0 && sem_init(&peer_news, 0, 0) == 0 && start_saver() == 0
                  ? install_handler()
                  : 0;
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
    if (sig) {
        scorep_multiprocess_set_abnormal_end_written(written);
        scorep_verbose("MPI_Abort will ask %d rank(s) on this node to save their data first (signal %d)", n, sig);
    }
}

void scorep_abort_peers_save(void)
{
    int asked = save_signal ? ask_peers() : 0;
    /* this rank's own data, while the others write theirs; the launcher's
     * SIGTERM (another rank's MPI_Abort) waits until it is written */
    sigset_t fatal, old;
    sigemptyset(&fatal);
    int fatal_signals[] = {SIGTERM, SIGINT, SIGHUP};
    for (size_t i = 0; i < sizeof fatal_signals / sizeof *fatal_signals; i++) sigaddset(&fatal, fatal_signals[i]);
    pthread_sigmask(SIG_BLOCK, &fatal, &old);
    scorep_measurement_abort();
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!asked) return;
    int missing = wait_for_peers(1, ABORT_WAIT_MS);
    if (missing)
        scorep_warning("MPI_Abort: %d of %d rank(s) on this node did not confirm saving their data "
                       "within %d s", missing, asked, ABORT_WAIT_MS / 1000);
}
