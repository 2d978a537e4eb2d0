/* Persistent requests with MPI_PROC_NULL as the peer (MPI_Recv_init +
 * MPI_Start + MPI_Wait, and MPI_Send_init) next to a real persistent
 * exchange with the neighbours: only the real messages may be recorded.
 * Prints "RESULT <rank> <received value>". */
#include <mpi.h>
#include <stdio.h>

#define ROUNDS 3

int main(int argc, char** argv)
{
    int rank, size, value = -1, sent, dummy = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Request null_recv, null_send, recv, send;
    MPI_Recv_init(&dummy, 1, MPI_INT, MPI_PROC_NULL, 9, MPI_COMM_WORLD, &null_recv);
    MPI_Send_init(&dummy, 1, MPI_INT, MPI_PROC_NULL, 9, MPI_COMM_WORLD, &null_send);
    MPI_Recv_init(&value, 1, MPI_INT, (rank + size - 1) % size, 4, MPI_COMM_WORLD, &recv);
    MPI_Send_init(&sent, 1, MPI_INT, (rank + 1) % size, 4, MPI_COMM_WORLD, &send);
    for (int i = 0; i < ROUNDS; i++) {
        MPI_Status status;
        MPI_Start(&null_recv);
        MPI_Wait(&null_recv, &status);
        MPI_Start(&null_send);
        MPI_Wait(&null_send, MPI_STATUS_IGNORE);
        sent = 10 * rank + i;
        MPI_Start(&recv);
        MPI_Start(&send);
        MPI_Wait(&send, MPI_STATUS_IGNORE);
        MPI_Wait(&recv, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&null_recv);
    MPI_Request_free(&null_send);
    MPI_Request_free(&recv);
    MPI_Request_free(&send);
    printf("RESULT %d %d\n", rank, value);
    MPI_Finalize();
    return 0;
}
