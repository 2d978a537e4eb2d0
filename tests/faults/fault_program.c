/* The MPI program of the fault scenarios (tests/faults/run_faults.py).
 *
 * usage: fault_program <dir> <seconds> <mode> [calls]
 *
 * Every rank writes <dir>/rank<R>.pid after MPI_Init (its pid: the harness
 * kills ranks by it) and then, until <seconds> have passed (rank 0's clock,
 * agreed on in the loop's MPI_Allreduce), repeats: a ring exchange
 * (MPI_Sendrecv), <calls> cheap calls (MPI_Comm_rank: trace volume without
 * communication) and an MPI_Allreduce. When the time is up:
 *   run       MPI_Finalize, exit 0
 *   abort     every rank calls MPI_Abort at the same moment (right after a
 *             barrier): the "not enough ranks" check of many programs
 *   exit      every rank calls exit(3) at the same moment, without
 *             MPI_Finalize: what a Fortran `error stop` does
 *   hang      every rank waits in a barrier that never completes (rank 0
 *             sleeps): the launcher is signalled meanwhile
 *   handler   as run, but right after MPI_Init (the measurement runs then)
 *             every rank installs its own SIGTERM/SIGINT handler, the way
 *             coreutils do: it writes <dir>/rank<R>.cleaned, restores the
 *             default action and raises the signal again
 * Each rank writes <dir>/rank<R>.iterations when its loop ends, so the
 * harness knows how much was recorded. */
#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void write_file(const char* dir, int rank, const char* what, long value)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/rank%d.%s", dir, rank, what);
    FILE* f = fopen(path, "w");
    if (f == NULL)
        return;
    fprintf(f, "%ld\n", value);
    fclose(f);
}

static char cleaned_path[4096];

static void clean_up_and_reraise(int sig)
{
    int fd = open(cleaned_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0)
        close(fd);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_own_handler(const char* dir, int rank)
{
    snprintf(cleaned_path, sizeof cleaned_path, "%s/rank%d.cleaned", dir, rank);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = clean_up_and_reraise;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 4) {
        fprintf(stderr, "usage: %s <dir> <seconds> run|abort|exit|hang|handler [calls]\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char* dir = argv[1];
    double seconds = atof(argv[2]);
    const char* mode = argv[3];
    int calls = argc > 4 ? atoi(argv[4]) : 10;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (strcmp(mode, "handler") == 0)
        install_own_handler(dir, rank);
    write_file(dir, rank, "pid", (long)getpid());
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;

    double begin = MPI_Wtime();
    long iterations = 0;
    int done = 0;
    char out[64] = {0}, in[64];
    while (!done) {
        MPI_Sendrecv(out, (int)sizeof out, MPI_BYTE, right, 1, in, (int)sizeof in, MPI_BYTE, left,
                     1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < calls; i++) {
            int r;
            MPI_Comm_rank(MPI_COMM_WORLD, &r);
        }
        int mine = rank == 0 && MPI_Wtime() - begin >= seconds;
        MPI_Allreduce(&mine, &done, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        iterations++;
    }
    write_file(dir, rank, "iterations", iterations);

    if (strcmp(mode, "abort") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Abort(MPI_COMM_WORLD, 3);
    } else if (strcmp(mode, "exit") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        exit(3);
    } else if (strcmp(mode, "hang") == 0) {
        if (rank == 0)
            for (;;)
                sleep(1);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
