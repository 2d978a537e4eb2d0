/* One of each kind of MPI work Cube's derived metrics sort apart: blocking and
 * non-blocking point-to-point completed by MPI_Wait, MPI_Waitall and MPI_Test,
 * collectives, a barrier, individual and collective MPI file I/O and file
 * management. Every count and byte total is fixed by the arguments:
 *     remap_mpi ROUNDS FILE
 * with an even number of ranks (the blocking exchange pairs them). The program
 * prints what it did, in its own arithmetic, for the test to compare with
 * Cube's derived metrics:
 *     DID <name> <value>   summed over all ranks */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define COUNT 100 /* ints per message */
#define BLOCK 64  /* doubles per file block */

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3 || size % 2 != 0) {
        if (rank == 0) fprintf(stderr, "usage: remap_mpi ROUNDS FILE (an even number of ranks)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int rounds = atoi(argv[1]);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int partner = rank ^ 1;
    int out[COUNT], in[COUNT], in2[COUNT];
    for (int i = 0; i < COUNT; i++) out[i] = rank * COUNT + i;
    /* per rank, then summed */
    long long p2p_sent = 0, p2p_received = 0, other_sent = 0, other_received = 0, waits = 0, tests_done = 0;

    for (int r = 0; r < rounds; r++) {
        /* blocking: the pair exchanges, the even one sends first */
        if (rank % 2 == 0) {
            MPI_Send(out, COUNT, MPI_INT, partner, 1, MPI_COMM_WORLD);
            MPI_Recv(in, COUNT, MPI_INT, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(in, COUNT, MPI_INT, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(out, COUNT, MPI_INT, partner, 1, MPI_COMM_WORLD);
        }
        p2p_sent += sizeof out;
        p2p_received += sizeof in;

        /* non-blocking around the ring, completed by MPI_Waitall */
        MPI_Request req[2];
        MPI_Irecv(in, COUNT, MPI_INT, left, 2, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(out, COUNT, MPI_INT, right, 2, MPI_COMM_WORLD, &req[1]);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        p2p_sent += sizeof out;        /* an Isend's bytes are the Isend's */
        other_received += sizeof in;   /* an Irecv's are its completion's */
        waits++;

        /* non-blocking completed by MPI_Wait, one request each */
        MPI_Irecv(in2, COUNT / 2, MPI_INT, right, 3, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(out, COUNT / 2, MPI_INT, left, 3, MPI_COMM_WORLD, &req[1]);
        MPI_Wait(&req[0], MPI_STATUS_IGNORE);
        MPI_Wait(&req[1], MPI_STATUS_IGNORE);
        p2p_sent += COUNT / 2 * sizeof(int);
        other_received += COUNT / 2 * sizeof(int);
        waits += 2;

        /* completed by MPI_Test: how often it is called depends on timing,
         * the bytes do not */
        MPI_Irecv(in, COUNT, MPI_INT, partner, 4, MPI_COMM_WORLD, &req[0]);
        MPI_Send(out, COUNT, MPI_INT, partner, 4, MPI_COMM_WORLD);
        int flag = 0;
        while (!flag) MPI_Test(&req[0], &flag, MPI_STATUS_IGNORE);
        p2p_sent += sizeof out;
        other_received += sizeof in;
        tests_done++;
    }

    /* collectives, and one barrier per round */
    int value = rank, sum = 0;
    for (int r = 0; r < rounds; r++) {
        MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Bcast(out, COUNT, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    }

    /* MPI I/O: open, set the view, each rank writes its block alone and all
     * together, reads it back alone and all together, asks the size, seeks,
     * closes */
    double block[BLOCK], back[BLOCK];
    for (int i = 0; i < BLOCK; i++) block[i] = rank + i;
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, argv[2], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_File_set_view(fh, 0, MPI_DOUBLE, MPI_DOUBLE, "native", MPI_INFO_NULL);
    MPI_File_write_at(fh, (MPI_Offset)rank * BLOCK, block, BLOCK, MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_File_write_at_all(fh, (MPI_Offset)(size + rank) * BLOCK, block, BLOCK, MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_File_read_at(fh, (MPI_Offset)rank * BLOCK, back, BLOCK, MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_File_read_at_all(fh, (MPI_Offset)(size + rank) * BLOCK, back, BLOCK, MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_Offset file_size;
    MPI_File_get_size(fh, &file_size);
    MPI_File_seek(fh, 0, MPI_SEEK_SET);
    MPI_File_close(&fh);
    /* individual: write_at, read_at, get_size, seek; collective: open,
     * set_view, write_at_all, read_at_all, close */
    long long file_iops = 4, file_irops = 1, file_iwops = 1, file_cops = 5, file_crops = 1, file_cwops = 1;

    long long mine[] = {p2p_sent, p2p_received, other_sent, other_received, waits, tests_done,
                        file_iops, file_irops, file_iwops, file_cops, file_crops, file_cwops};
    const char* names[] = {"bytes_sent_p2p", "bytes_received_p2p", "bytes_sent_other", "bytes_received_other",
                           "waits", "tests_completed", "mpi_file_iops", "mpi_file_irops", "mpi_file_iwops",
                           "mpi_file_cops", "mpi_file_crops", "mpi_file_cwops"};
    enum { N = sizeof mine / sizeof *mine };
    long long all[N];
    MPI_Reduce(mine, all, N, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int i = 0; i < N; i++) printf("DID %s %lld\n", names[i], all[i]);
        printf("DID file_size %lld\n", (long long)file_size);
    }
    MPI_Finalize();
    return 0;
}
