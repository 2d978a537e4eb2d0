/* One process, a fixed number of point-to-point calls to itself, for counting
 * the instructions of the wrappers' event path under callgrind
 * (bench/p2p_instructions, docs/PERFORMANCE.md): per iteration one
 * MPI_Comm_rank, one MPI_Send + MPI_Recv pair, and one MPI_Irecv + MPI_Isend +
 * MPI_Wait + MPI_Wait, all 8 bytes to itself on MPI_COMM_WORLD, and one
 * MPI_Send + MPI_Recv on a duplicate of MPI_COMM_WORLD (a communicator whose
 * id is looked up).
 * usage: p2p_instructions [iterations] */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 10000, me = 0;
    char out[8] = {0}, in[8];
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    for (int i = 0; i < n; i++) {
        MPI_Comm_rank(MPI_COMM_WORLD, &me);
        MPI_Send(out, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        MPI_Recv(in, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Request r[2];
        MPI_Irecv(in, 8, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(out, 8, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &r[1]);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        MPI_Wait(&r[1], MPI_STATUS_IGNORE);
        MPI_Send(out, 8, MPI_BYTE, 0, 3, dup);
        MPI_Recv(in, 8, MPI_BYTE, 0, 3, dup, MPI_STATUS_IGNORE);
    }
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
