/* MPI_THREAD_MULTIPLE: two threads per rank exchange messages with the same
 * thread of the partner rank, on their own tag. Each thread prints its tally.
 * The threads wait for each other before they end, so both are alive at once
 * and each has a location of its own. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

#define ROUNDS 200
static int rank, size;
static pthread_barrier_t both_alive;

static void* exchange(void* arg)
{
    const int tag = (int)(long)arg, partner = rank ^ 1;
    int out[32] = {rank}, in[32];
    long sum = 0;
    for (int i = 0; i < ROUNDS; i++) {
        MPI_Sendrecv(out, 32, MPI_INT, partner, tag, in, 32, MPI_INT, partner, tag,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        sum += in[0];
    }
    printf("RESULT rank %d thread %d sum %ld\n", rank, tag, sum);
    pthread_barrier_wait(&both_alive);
    return NULL;
}

int main(int argc, char** argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
        printf("SKIP no MPI_THREAD_MULTIPLE\n");
        MPI_Finalize();
        return 0;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    pthread_t threads[2];
    pthread_barrier_init(&both_alive, NULL, 2);
    for (long t = 0; t < 2; t++)
        pthread_create(&threads[t], NULL, exchange, (void*)t);
    for (int t = 0; t < 2; t++)
        pthread_join(threads[t], NULL);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
