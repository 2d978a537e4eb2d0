/*
 * Memory-bound test program: many events, some of them before MPI_Init.
 *
 * usage: busy_test_loop <pairs> <tests>
 * Records <pairs> enter/exit pairs of region "setup" through the adapter API
 * first. With tests > 0 it then calls MPI_Init (through the generated
 * wrappers it is linked with), and rank 0 calls MPI_Test <tests> times on a
 * receive that rank 1 satisfies only after a barrier that follows the loop
 * (so every MPI_Test returns flag 0: a busy polling loop), then MPI_Finalize.
 * With tests == 0 it never calls MPI: a program linked with the MPI layer
 * that does not use MPI.
 * At exit it prints "vmhwm_kb <peak resident KiB>" of the program's own
 * image: the handler is registered before the first event, so it runs after
 * the measurement's own exit handler has written the data. (A parent's
 * ru_maxrss of the child would also count the memory of the process that
 * forked it before the exec.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include <scorep_wrapgen/adapter.h>

static void print_vmhwm(void)
{
    FILE* f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, "VmHWM:", 6) == 0)
            kb = atol(line + 6);
    if (f != NULL)
        fclose(f);
    printf("vmhwm_kb %ld\n", kb);
}

int main(int argc, char** argv)
{
    long pairs = argc > 1 ? atol(argv[1]) : 1000;
    long tests = argc > 2 ? atol(argv[2]) : 0;
    atexit(print_vmhwm);
    scorep_region setup = scorep_region_define("setup", "busy_test_loop.c", SCOREP_PARADIGM_USER,
                                               SCOREP_ROLE_FUNCTION, NULL);
    for (long i = 0; i < pairs; i++) {
        scorep_enter(setup);
        scorep_exit(setup);
    }
    if (tests > 0) {
        MPI_Init(&argc, &argv);
        int rank, value = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == 0) {
            MPI_Request request;
            int flag = 0;
            MPI_Irecv(&value, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &request);
            for (long i = 0; i < tests; i++)
                MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Wait(&request, MPI_STATUS_IGNORE);
            if (flag)
                printf("unexpected: MPI_Test completed early\n");
        } else {
            MPI_Barrier(MPI_COMM_WORLD);
            if (rank == 1)
                MPI_Send(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        }
        MPI_Finalize();
    }
    return 0;
}
