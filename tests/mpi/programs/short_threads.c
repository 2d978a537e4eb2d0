/* MPI_THREAD_MULTIPLE with many short-lived threads (the shape of MPICH's
 * threads/pt2pt/alltoall): every rank starts THREADS threads, CONCURRENT at a
 * time; thread i exchanges one message of 16 ints with thread i of the
 * partner rank (rank ^ 1) on tag i, then ends. Prints one line per rank. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define CONCURRENT 2
static int rank;

static void* exchange(void* arg)
{
    const int tag = (int)(long)arg, partner = rank ^ 1;
    int out[16] = {rank}, in[16];
    MPI_Sendrecv(out, 16, MPI_INT, partner, tag, in, 16, MPI_INT, partner, tag, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    return in[0] == partner ? NULL : (void*)1;
}

int main(int argc, char** argv)
{
    int provided, size;
    long threads = argc > 1 ? atol(argv[1]) : 200;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
        printf("SKIP no MPI_THREAD_MULTIPLE\n");
        MPI_Finalize();
        return 0;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long wrong = 0;
    for (long started = 0; started < threads; started += CONCURRENT) {
        pthread_t ids[CONCURRENT];
        int round = 0;
        for (; round < CONCURRENT && started + round < threads; round++)
            pthread_create(&ids[round], NULL, exchange, (void*)(started + round));
        for (int t = 0; t < round; t++) {
            void* result;
            pthread_join(ids[t], &result);
            wrong += result != NULL;
        }
    }
    printf("RESULT rank %d threads %ld wrong %ld\n", rank, threads, wrong);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
