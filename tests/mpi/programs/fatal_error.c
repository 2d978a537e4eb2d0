/* A rank ended by MPI's fatal error handler: MPI_ERRORS_ARE_FATAL on a window
 * ("win") or on MPI_COMM_WORLD ("comm"), then an erroneous call on rank 1
 * (a target or destination rank beyond the communicator). Before it, every
 * rank makes a known number of measured calls: 3 MPI_Barrier, and for "win"
 * 1 MPI_Win_fence, for "comm" 2 MPI_Bcast. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, buffer[4] = {0}, value = 7;
    const char* mode = argc > 1 ? argv[1] : "win";
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win win = MPI_WIN_NULL;
    if (strcmp(mode, "win") == 0) {
        MPI_Win_create(buffer, sizeof buffer, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        MPI_Win_set_errhandler(win, MPI_ERRORS_ARE_FATAL);
    } else {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }
    for (int i = 0; i < 3; i++) MPI_Barrier(MPI_COMM_WORLD);
    if (win != MPI_WIN_NULL) {
        MPI_Win_fence(0, win);
        if (rank == 1) MPI_Put(&value, 1, MPI_INT, size + 5, 0, 1, MPI_INT, win);
        MPI_Win_fence(0, win);
        MPI_Win_free(&win);
    } else {
        for (int i = 0; i < 2; i++) MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (rank == 1) MPI_Send(&value, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    printf("not reached on rank %d\n", rank);
    MPI_Finalize();
    return 0;
}
