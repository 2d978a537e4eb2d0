/* Two threads per MPI rank, created and joined one after the other by the
 * rank's main thread, for test_pthread_trace.py: each rank's trace has its
 * own thread contingent. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

static void* work(void* arg)
{
    return arg;
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 2; i++) {
        pthread_t thread;
        if (pthread_create(&thread, NULL, work, NULL) != 0 || pthread_join(thread, NULL) != 0)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    printf("rank %d ok\n", rank);
    return 0;
}
