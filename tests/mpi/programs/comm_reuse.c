/* usage: mpirun -n 4 comm_reuse <outdir>
 * Communicators created and freed one after another, so the MPI library can
 * hand out the same handle again, each time with a different rank order:
 * iteration i splits MPI_COMM_WORLD into one communicator whose order is
 * rotated by i, every rank sends its world rank to the next rank of that
 * communicator (tag i), and puts it into a window on that communicator at the
 * next rank (also created and freed each iteration). Each rank writes the
 * handle values it got, the world rank it sent and put to, and what it
 * received to <outdir>/rank<R>.out. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <mpi.h>

#define ITERATIONS 6

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char path[4096];
    snprintf(path, sizeof path, "%s/rank%d.out", argc > 1 ? argv[1] : ".", rank);
    FILE* out = fopen(path, "w");
    for (int i = 0; i < ITERATIONS; i++) {
        MPI_Comm half;
        MPI_Comm_split(MPI_COMM_WORLD, 0, (rank + i) % 4, &half);
        int me, size;
        MPI_Comm_rank(half, &me);
        MPI_Comm_size(half, &size);
        int sent = rank, received = -1;
        MPI_Sendrecv(&sent, 1, MPI_INT, (me + 1) % size, i, &received, 1, MPI_INT,
                     (me + size - 1) % size, i, half, MPI_STATUS_IGNORE);
        MPI_Group group, world;
        int next = (me + 1) % size, next_world;
        MPI_Comm_group(half, &group);
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        MPI_Group_translate_ranks(group, 1, &next, world, &next_world);
        MPI_Group_free(&group);
        MPI_Group_free(&world);
        int slot = -1;
        MPI_Win win;
        MPI_Win_create(&slot, sizeof slot, sizeof slot, MPI_INFO_NULL, half, &win);
        MPI_Win_fence(0, win);
        MPI_Put(&sent, 1, MPI_INT, next, 0, 1, MPI_INT, win);
        MPI_Win_fence(0, win);
        MPI_Win_free(&win);
        uintptr_t handle = 0;
        memcpy(&handle, &half, sizeof half < sizeof handle ? sizeof half : sizeof handle);
        fprintf(out, "HANDLE %d %d %lx\nSENT %d %d %d\nRECEIVED %d %d %d\nPUT_INTO %d %d %d\n", rank, i,
                (unsigned long)handle, rank, i, next_world, rank, i, received, rank, i, slot);
        MPI_Comm_free(&half);
    }
    fclose(out);
    MPI_Finalize();
    return 0;
}
