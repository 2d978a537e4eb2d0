/* MPI_Comm_spawn: one parent rank starts 2 children of this program
 * (argument "child"). The parent sends each child 4 bytes over the
 * intercommunicator; each child receives them and both sides finalize.
 * Prints RESULT parent|child<rank> <value>. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (parent == MPI_COMM_NULL) {
        char* child_argv[] = {"child", NULL};
        MPI_Comm children;
        int errors[2];
        MPI_Comm_spawn(argv[0], child_argv, 2, MPI_INFO_NULL, 0, MPI_COMM_SELF, &children, errors);
        for (int c = 0; c < 2; c++) {
            int value = 100 + c;
            MPI_Send(&value, 1, MPI_INT, c, 7, children);
        }
        MPI_Comm_disconnect(&children);
        printf("RESULT parent sent 2\n");
    } else {
        int rank, value = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Recv(&value, 1, MPI_INT, 0, 7, parent, MPI_STATUS_IGNORE);
        MPI_Comm_disconnect(&parent);
        printf("RESULT child%d %d\n", rank, value);
    }
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
