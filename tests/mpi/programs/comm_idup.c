/* usage: mpirun -n 4 comm_idup <outdir>
 * Communicators from MPI_Comm_idup(_with_info): of MPI_COMM_WORLD twice and of
 * a parity split once; after each request completes, every rank sends its
 * world rank around the new communicator's ring (tag 1, 2, 3). Each rank
 * writes what it received to <outdir>/rank<R>.out. */
#include <stdio.h>

#include <mpi.h>

static int ring(MPI_Comm comm, int tag, int value)
{
    int me, size, received = -1;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    MPI_Sendrecv(&value, 1, MPI_INT, (me + 1) % size, tag, &received, 1, MPI_INT, (me + size - 1) % size, tag,
                 comm, MPI_STATUS_IGNORE);
    return received;
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char path[4096];
    snprintf(path, sizeof path, "%s/rank%d.out", argc > 1 ? argv[1] : ".", rank);
    FILE* out = fopen(path, "w");

    MPI_Comm first, second, half, half_dup;
    MPI_Request requests[2];
    MPI_Comm_idup(MPI_COMM_WORLD, &first, &requests[0]);
#if MPI_VERSION >= 4
    MPI_Comm_idup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &second, &requests[1]);
#else
    MPI_Comm_idup(MPI_COMM_WORLD, &second, &requests[1]);  /* Open MPI 4.1 is MPI 3.1 */
#endif
    MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    fprintf(out, "RECEIVED %d 1 %d\n", rank, ring(first, 1, rank));
    fprintf(out, "RECEIVED %d 2 %d\n", rank, ring(second, 2, rank));

    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
    MPI_Comm_idup(half, &half_dup, &requests[0]);
    MPI_Wait(&requests[0], MPI_STATUS_IGNORE);
    fprintf(out, "RECEIVED %d 3 %d\n", rank, ring(half_dup, 3, rank));

    MPI_Comm_free(&half_dup);
    MPI_Comm_free(&half);
    MPI_Comm_free(&second);
    MPI_Comm_free(&first);
    fclose(out);
    MPI_Finalize();
    return 0;
}
