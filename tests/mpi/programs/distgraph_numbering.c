/* Distributed graph communicators from MPI_COMM_WORLD, made in turn with
 * MPI_Dist_graph_create_adjacent and MPI_Dist_graph_create (reorder 1), a ring
 * graph, after N non-blocking barriers on MPI_COMM_WORLD (argument 1,
 * default 3). Under Open MPI the program depends on how many non-blocking
 * collectives ran on MPI_COMM_WORLD before: libnbc numbers them (message tags
 * from -27 down), each communicator made from MPI_COMM_WORLD takes two of
 * those numbers, and treematch (MPI_Dist_graph_create, reorder 1) exchanges
 * its edges on MPI_COMM_WORLD with tags -50/-51 and a wildcard source, before
 * making its communicator: when that communicator takes -50/-51, a process
 * still receiving edges can take another's message for it and the job hangs.
 * With N = 3 those numbers fall to an MPI_Dist_graph_create_adjacent (which
 * exchanges nothing on MPI_COMM_WORLD), so the plain program never hangs; a
 * measurement that used two more numbers (a duplicate of MPI_COMM_WORLD)
 * moved them to an MPI_Dist_graph_create. Rank 0 prints "done" at the end. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int barriers = argc > 1 ? atoi(argv[1]) : 3;
    for (int i = 0; i < barriers; i++) {
        MPI_Request request;
        MPI_Ibarrier(MPI_COMM_WORLD, &request);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
    }
    int prev = (rank + size - 1) % size, next = (rank + 1) % size, weight = 1;
    for (int round = 0; round < 10; round++) {
        MPI_Comm comm;
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &prev, &weight, 1, &next, &weight, MPI_INFO_NULL, 1,
                                       &comm);
        MPI_Barrier(comm);
        MPI_Comm_free(&comm);
        int degree = 1;
        MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &degree, &next, &weight, MPI_INFO_NULL, 0, &comm);
        MPI_Barrier(comm);
        MPI_Comm_free(&comm);
    }
    if (rank == 0) printf("done\n");
    MPI_Finalize();
    return 0;
}
