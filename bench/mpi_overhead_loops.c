/* The C loops of bench/mpi_overhead: MPI_Comm_rank calls, 8-byte ping-pong
 * round trips and sends to self with their receives, through the MPI_ names
 * (the C wrappers, when the adapter is linked) or the PMPI_ names (what those
 * wrappers call). mpi_overhead.c times them; the Fortran programs time them
 * too, beside their own loops, so a Fortran wrapper's added cost and the C
 * wrapper's come from one launch (bench/mpi_overhead).
 * mpi_overhead_c_loop(kind, side, n, rank): kind 0 comm_rank, 1 pingpong,
 * 2 self; side 0 MPI_, 1 PMPI_ (by value: callable through bind(c)). */
#include <mpi.h>

#include "mpi_overhead_loops.h"

static void comm_rank_loop(int side, int n)
{
    int me;
    if (side == MPI_SIDE)
        for (int i = 0; i < n; i++)
            MPI_Comm_rank(MPI_COMM_WORLD, &me);
    else
        for (int i = 0; i < n; i++)
            PMPI_Comm_rank(MPI_COMM_WORLD, &me);
}

static void pingpong_loop(int side, int n, int rank)
{
    char buf[8] = {0};
    if (side == MPI_SIDE) {
        for (int i = 0; i < n; i++) {
            if (rank == 0) {
                MPI_Send(buf, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(buf, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(buf, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
            }
        }
    } else {
        for (int i = 0; i < n; i++) {
            if (rank == 0) {
                PMPI_Send(buf, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
                PMPI_Recv(buf, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                PMPI_Recv(buf, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                PMPI_Send(buf, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
            }
        }
    }
}

/* rank 0 alone: 8 bytes to itself (small enough to go eagerly, so MPI_Send
 * returns) and their receive */
static void self_loop(int side, int n)
{
    char out[8] = {0}, in[8];
    if (side == MPI_SIDE)
        for (int i = 0; i < n; i++) {
            MPI_Send(out, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
            MPI_Recv(in, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    else
        for (int i = 0; i < n; i++) {
            PMPI_Send(out, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
            PMPI_Recv(in, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
}

void mpi_overhead_c_loop(int kind, int side, int n, int rank)
{
    if (kind == PINGPONG)
        pingpong_loop(side, n, rank);
    else if (kind == SELF)
        self_loop(side, n);
    else
        comm_rank_loop(side, n);
}
