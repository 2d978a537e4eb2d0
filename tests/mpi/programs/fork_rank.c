/* Every rank forks without exec between barriers: a child that works and
 * exits with 10 + rank, then system() and popen(). Children of an MPI
 * process may not call MPI; they must not write into the experiment. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) static void child_work(int i) { sink += i; }

int main(int argc, char** argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 3; i++) MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < 3; k++) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            child_work(k);
            exit(10 + rank);
        }
        int status;
        waitpid(pid, &status, 0);
        printf("rank %d child exited %d\n", rank, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
    char command[64];
    snprintf(command, sizeof command, "echo rank %d system", rank);
    fflush(stdout);
    printf("rank %d system returned %d\n", rank, system(command));
    snprintf(command, sizeof command, "echo rank %d popen", rank);
    FILE* pipe = popen(command, "r");
    char line[64] = "";
    if (pipe && fgets(line, sizeof line, pipe)) printf("read: %s", line);
    printf("rank %d pclose %d\n", rank, pipe ? pclose(pipe) : -1);
    for (int i = 0; i < 3; i++) MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
