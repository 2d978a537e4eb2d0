/* MPI + OpenMP: a ring of ROUNDS rounds whose local work is an OpenMP loop
 * (the master thread communicates: MPI_THREAD_FUNNELED use), then, with
 * the argument "multiple" and where the MPI library gives
 * MPI_THREAD_MULTIPLE, every thread of every rank sends its own message
 * around the ring inside a parallel region (tag: the thread's number).
 * Prints each rank's results, which a measurement
 * must not change. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#define ROUNDS 5
#define ITEMS 64

int main(int argc, char** argv)
{
    int provided, rank, size;
    int multiple = argc > 1 && strcmp(argv[1], "multiple") == 0;
    MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    long token = rank, sum = 0;
    for (int r = 0; r < ROUNDS; r++) {
        long local = 0;
        #pragma omp parallel for reduction(+:local) schedule(dynamic, 4)
        for (int i = 0; i < ITEMS; i++)
            local += (token + i) % 3;
        sum += local;
        long incoming;
        MPI_Sendrecv(&token, 1, MPI_LONG, next, 0, &incoming, 1, MPI_LONG, prev, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        token = incoming + 1;
    }
    long threads_sum = 0;
    if (multiple && provided == MPI_THREAD_MULTIPLE) {
        #pragma omp parallel reduction(+:threads_sum)
        {
            long mine = 100 * rank + omp_get_thread_num(), theirs = -1;
            MPI_Sendrecv(&mine, 1, MPI_LONG, next, omp_get_thread_num(), &theirs, 1, MPI_LONG, prev,
                         omp_get_thread_num(), MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            threads_sum += theirs;
        }
    }
    printf("rank %d token %ld sum %ld multiple %d threads_sum %ld\n", rank, token, sum,
           provided == MPI_THREAD_MULTIPLE, threads_sum);
    MPI_Finalize();
    return 0;
}
