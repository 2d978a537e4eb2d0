/* MPI-IO calls that complete file I/O the MPI library started earlier
 * (tests/io/test_posix_aio_mpi.py): each rank writes its BLOCK bytes with the
 * split collectives MPI_File_write_at_all_begin / _end, reads them back with
 * MPI_File_read_at_all_begin / _end, writes them again at the next block
 * with the non-blocking collective MPI_File_iwrite_at_all completed by an
 * MPI_Test loop, and reads them with MPI_File_iread_at completed by
 * MPI_Wait. Open MPI (OMPIO) hands such writes to POSIX aio and polls
 * aio_error in the completing call. Rank 0 checks the file (size, every
 * byte) and the data read back. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK (1 << 20)

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char* out = malloc(BLOCK);
    char* in = malloc(BLOCK);
    memset(out, 'a' + rank, BLOCK);
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_Status status;
    int ok = 1, count;

    MPI_File_write_at_all_begin(fh, (MPI_Offset)rank * BLOCK, out, BLOCK, MPI_BYTE);
    MPI_File_write_at_all_end(fh, out, &status);
    MPI_Get_count(&status, MPI_BYTE, &count);
    ok &= count == BLOCK;

    memset(in, 0, BLOCK);
    MPI_File_read_at_all_begin(fh, (MPI_Offset)rank * BLOCK, in, BLOCK, MPI_BYTE);
    MPI_File_read_at_all_end(fh, in, &status);
    MPI_Get_count(&status, MPI_BYTE, &count);
    ok &= count == BLOCK && memcmp(in, out, BLOCK) == 0;

    MPI_Request request;
    MPI_File_iwrite_at_all(fh, (MPI_Offset)(size + rank) * BLOCK, out, BLOCK, MPI_BYTE, &request);
    for (int done = 0; !done;)
        MPI_Test(&request, &done, &status);
    MPI_Get_count(&status, MPI_BYTE, &count);
    ok &= count == BLOCK;

    memset(in, 0, BLOCK);
    MPI_File_iread_at(fh, (MPI_Offset)(size + rank) * BLOCK, in, BLOCK, MPI_BYTE, &request);
    MPI_Wait(&request, &status);
    MPI_Get_count(&status, MPI_BYTE, &count);
    ok &= count == BLOCK && memcmp(in, out, BLOCK) == 0;

    MPI_File_close(&fh);
    int all;
    MPI_Reduce(&ok, &all, 1, MPI_INT, MPI_LAND, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        FILE* f = fopen(argv[1], "rb");
        long good = 0, n = 0;
        size_t got;
        while (f && (got = fread(in, 1, BLOCK, f)) > 0)
            for (size_t i = 0; i < got; i++, n++)
                good += in[i] == 'a' + (int)(n / BLOCK % size);
        if (f) fclose(f);
        printf("%d ranks wrote %ld bytes: %s\n", size, n,
               all && n == 2L * size * BLOCK && good == n ? "ok" : "WRONG");
    }
    free(in);
    free(out);
    MPI_Finalize();
    return 0;
}
