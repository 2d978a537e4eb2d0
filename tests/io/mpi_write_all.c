/* MPI-IO of known bytes (tests/io/test_mpi_io_beneath.py): every rank
 * writes BLOCK bytes at its place in one shared file (argv[1]) with
 * MPI_File_write_all through a file view; rank 0 then checks the file's size
 * on disk and every byte, and prints what it found. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define BLOCK 65536

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static char data[BLOCK];
    memset(data, 'a' + rank, sizeof data);
    MPI_File fh;
    int ok = MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh)
             == MPI_SUCCESS;
    ok = ok && MPI_File_set_view(fh, (MPI_Offset)rank * BLOCK, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL)
                   == MPI_SUCCESS;
    MPI_Status status;
    int count = -1;
    ok = ok && MPI_File_write_all(fh, data, BLOCK, MPI_BYTE, &status) == MPI_SUCCESS
         && MPI_Get_count(&status, MPI_BYTE, &count) == MPI_SUCCESS && count == BLOCK;
    ok = ok && MPI_File_close(&fh) == MPI_SUCCESS;
    int all_ok;
    MPI_Reduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        struct stat st;
        int good = all_ok && stat(argv[1], &st) == 0 && st.st_size == (off_t)size * BLOCK;
        FILE* f = good ? fopen(argv[1], "rb") : NULL;
        for (int r = 0; f && good && r < size; r++)
            for (int i = 0; i < BLOCK; i++)
                good = good && getc(f) == 'a' + r;
        if (f) fclose(f);
        printf("%d ranks wrote %d bytes: %s\n", size, size * BLOCK, good ? "ok" : "FAILED");
    }
    MPI_Finalize();
    return 0;
}
