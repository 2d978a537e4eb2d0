/* Two or more ranks, each writing RANK_BYTES * (rank + 1) bytes to a file of
 * its own (rank<R>.dat) and BLOCK bytes at its place in one file they share
 * (shared.dat, pwrite at rank * BLOCK), then reading its block back
 * (tests/io/test_io_trace.py: the I/O handles unified across ranks). */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define BLOCK 64
#define RANK_BYTES 10

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char name[32], data[BLOCK * 8];
    memset(data, 'a' + rank, sizeof data);
    snprintf(name, sizeof name, "rank%d.dat", rank);
    int fd = open(name, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    int ok = fd >= 0 && write(fd, data, (size_t)(RANK_BYTES * (rank + 1))) == RANK_BYTES * (rank + 1)
             && close(fd) == 0;
    fd = open("shared.dat", O_CREAT | O_RDWR, 0600);
    ok = ok && fd >= 0 && pwrite(fd, data, BLOCK, (off_t)rank * BLOCK) == BLOCK;
    char back[BLOCK];
    ok = ok && pread(fd, back, BLOCK, (off_t)rank * BLOCK) == BLOCK && memcmp(back, data, BLOCK) == 0
         && close(fd) == 0;
    printf("rank %d %s\n", rank, ok ? "ok" : "FAILED");
    MPI_Finalize();
    return ok ? 0 : 1;
}
