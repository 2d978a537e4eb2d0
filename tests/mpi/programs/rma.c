/* One-sided communication: a fence epoch (3 puts, 1 get to the right
 * neighbour) and a passive-target epoch (2 puts under a lock). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int right = (rank + 1) % size;
    int window_memory[64] = {0}, local[16], fetched[4];
    for (int i = 0; i < 16; i++)
        local[i] = rank * 100 + i;
    MPI_Win win;
    MPI_Win_create(window_memory, sizeof window_memory, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    for (int k = 0; k < 3; k++)
        MPI_Put(local, 4, MPI_INT, right, 4 * k, 4, MPI_INT, win);
    MPI_Get(fetched, 4, MPI_INT, right, 60, 4, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    MPI_Put(local, 8, MPI_INT, right, 16, 8, MPI_INT, win);
    MPI_Put(local, 2, MPI_INT, right, 30, 2, MPI_INT, win);
    MPI_Win_unlock(right, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    printf("RESULT rank %d got %d %d\n", rank, window_memory[8], window_memory[16]);
    MPI_Finalize();
    return 0;
}
