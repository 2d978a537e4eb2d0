/* MPI I/O through ROMIO, which calls MPI_ functions itself: the profile must
 * show only the program's own calls. Each rank writes then reads its block. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double block[128];
    for (int i = 0; i < 128; i++)
        block[i] = rank + i;
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_File_write_at_all(fh, (MPI_Offset)rank * sizeof block, block, 128, MPI_DOUBLE, MPI_STATUS_IGNORE);
    double back[128];
    MPI_File_read_at(fh, (MPI_Offset)rank * sizeof block, back, 64, MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    printf("RESULT rank %d back %g\n", rank, back[63]);
    printf("EXPECT %d [{\"region\":\"MPI_Init\",\"visits\":1},{\"region\":\"MPI_Comm_rank\",\"visits\":1},"
           "{\"region\":\"MPI_File_open\",\"visits\":1},{\"region\":\"MPI_File_write_at_all\",\"visits\":1},"
           "{\"region\":\"MPI_File_read_at\",\"visits\":1},{\"region\":\"MPI_File_close\",\"visits\":1}]\n", rank);
    printf("BYTES %d written %zu read %zu\n", rank, sizeof block, sizeof back / 2);
    MPI_Finalize();
    return 0;
}
