/* usage: children_of_ranks PROGRAM
 * Every rank runs "PROGRAM child <rank + 1>" through system() (a rank that
 * starts a measured helper tool), between two barriers. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    char command[4096];
    snprintf(command, sizeof command, "'%s' child %d", argc > 1 ? argv[1] : "true", rank + 1);
    int status = system(command);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return status == 0 ? 0 : 1;
}
