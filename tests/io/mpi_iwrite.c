/* Non-blocking MPI-IO (tests/io/test_posix_aio.py): each rank writes BLOCK
 * bytes at its own offset with MPI_File_iwrite_at and completes the request
 * with MPI_Wait; rank 0 then checks the file (size, every byte). Open MPI
 * (OMPIO) and MPICH (ROMIO) both hand the write to POSIX aio: aio_write in
 * MPI_File_iwrite_at, aio_error (EINPROGRESS until it is done) and
 * aio_return in MPI_Wait. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 65536

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static char buf[BLOCK];
    memset(buf, 'a' + rank, sizeof buf);
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    MPI_Request request;
    MPI_File_iwrite_at(fh, (MPI_Offset)rank * BLOCK, buf, BLOCK, MPI_BYTE, &request);
    MPI_Status status;
    MPI_Wait(&request, &status);
    int count;
    MPI_Get_count(&status, MPI_BYTE, &count);
    MPI_File_close(&fh);
    int ok = count == BLOCK, all;
    MPI_Reduce(&ok, &all, 1, MPI_INT, MPI_LAND, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        FILE* f = fopen(argv[1], "rb");
        long good = 0, n = 0;
        int c;
        while (f && (c = fgetc(f)) != EOF) {
            good += c == 'a' + (int)(n / BLOCK);
            n++;
        }
        if (f) fclose(f);
        printf("%d ranks wrote %ld bytes: %s\n", size, n, all && n == (long)size * BLOCK && good == n ? "ok" : "WRONG");
    }
    MPI_Finalize();
    return 0;
}
