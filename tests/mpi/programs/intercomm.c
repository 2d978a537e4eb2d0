/* Point-to-point messages on intercommunicators (4 ranks): one between the
 * even and the odd ranks (MPI_Intercomm_create), and its MPI_Comm_dup,
 * MPI_Comm_split (each side's order reversed), MPI_Comm_create (the whole
 * local group), MPI_Comm_idup, the merged intracommunicator, and one between
 * {0} and {1, 2, 3}. On an intercommunicator a peer rank names a process of
 * the REMOTE group: in every stage the even process with local rank i sends
 * to the odd process with remote rank (i + stage) % 2, which answers; each
 * stage and direction has its own tag and length; world rank 0 broadcasts on
 * the first one (MPI_ROOT / MPI_PROC_NULL on its side). Each rank writes what
 * it received, with the status' source, to <dir>/rank<R>.out (or stdout
 * without an argument). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static FILE* out;
static int world_rank;

/* even side: send then receive; odd side: receive then send */
static void exchange(MPI_Comm inter, int stage, const char* what)
{
    int local, remote_size;
    MPI_Comm_rank(inter, &local);
    MPI_Comm_remote_size(inter, &remote_size);
    int even = world_rank % 2 == 0;
    int peer = even ? (local + stage) % remote_size : ((local - stage) % remote_size + remote_size) % remote_size;
    int there[64], back[64] = {0};
    for (int i = 0; i < 64; i++) there[i] = 1000 * stage + 10 * world_rank + i;
    int out_count = even ? stage + 1 : 2 * stage + 3;   /* ints, distinct per stage and direction */
    int in_count = even ? 2 * stage + 3 : stage + 1;
    int out_tag = 100 + 10 * stage + (even ? 0 : 1), in_tag = 100 + 10 * stage + (even ? 1 : 0);
    MPI_Status status;
    if (even) {
        MPI_Send(there, out_count, MPI_INT, peer, out_tag, inter);
        MPI_Recv(back, 64, MPI_INT, peer, in_tag, inter, &status);
    } else if (stage % 2) {
        MPI_Recv(back, 64, MPI_INT, peer, in_tag, inter, &status);
        MPI_Send(there, out_count, MPI_INT, peer, out_tag, inter);
    } else {  /* non-blocking on the odd side in even stages */
        MPI_Request requests[2];
        MPI_Irecv(back, 64, MPI_INT, MPI_ANY_SOURCE, in_tag, inter, &requests[0]);
        MPI_Wait(&requests[0], &status);
        MPI_Isend(there, out_count, MPI_INT, peer, out_tag, inter, &requests[1]);
        MPI_Wait(&requests[1], MPI_STATUS_IGNORE);
    }
    int count;
    MPI_Get_count(&status, MPI_INT, &count);
    fprintf(out, "rank %d %s: %d ints (first %d) from remote rank %d tag %d (expected %d)\n", world_rank, what,
            count, back[0], status.MPI_SOURCE, status.MPI_TAG, in_count);
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    out = stdout;
    if (argc > 1) {
        char path[4096];
        snprintf(path, sizeof path, "%s/rank%d.out", argv[1], world_rank);
        out = fopen(path, "w");
        if (!out) MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (size != 4) {
        if (world_rank == 0) fprintf(stderr, "needs 4 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm half, inter, dup, split, created, idup, merged;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, world_rank, &half);
    /* remote leader: world rank 1 for the even side, 0 for the odd one */
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, world_rank % 2 == 0 ? 1 : 0, 99, &inter);
    exchange(inter, 1, "intercomm_create");
    /* a rooted collective: the even side's local rank 0 (world rank 0) broadcasts to the odd side */
    int local_rank, value = -1;
    MPI_Comm_rank(inter, &local_rank);
    if (world_rank == 0) value = 4242;
    MPI_Bcast(&value, 1, MPI_INT, world_rank % 2 ? 0 : local_rank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
    fprintf(out, "rank %d bcast: %d\n", world_rank, value);

    MPI_Comm_dup(inter, &dup);
    exchange(dup, 2, "dup");

    MPI_Comm_split(inter, 0, -world_rank, &split);
    exchange(split, 3, "split");

    MPI_Group local_group;
    MPI_Comm_group(inter, &local_group);
    MPI_Comm_create(inter, local_group, &created);
    MPI_Group_free(&local_group);
    exchange(created, 4, "create");

    MPI_Request request;
    MPI_Comm_idup(inter, &idup, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    exchange(idup, 5, "idup");

    /* the merged intracommunicator: evens first; a ring to the next rank */
    MPI_Intercomm_merge(inter, world_rank % 2, &merged);
    int rank, n, got = -1;
    value = world_rank;
    MPI_Comm_rank(merged, &rank);
    MPI_Comm_size(merged, &n);
    MPI_Sendrecv(&value, 1, MPI_INT, (rank + 1) % n, 160, &got, 1, MPI_INT, (rank + n - 1) % n, 160, merged,
                 MPI_STATUS_IGNORE);
    fprintf(out, "rank %d merge: got %d\n", world_rank, got);

    /* groups of unequal size: {0} and {1, 2, 3}; rank 0 sends to every
     * remote rank, each answers */
    MPI_Comm alone, lopsided;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank == 0, world_rank, &alone);
    MPI_Intercomm_create(alone, 0, MPI_COMM_WORLD, world_rank == 0 ? 1 : 0, 98, &lopsided);
    int remote_size;
    MPI_Comm_remote_size(lopsided, &remote_size);
    if (world_rank == 0) {
        for (int r = 0; r < remote_size; r++) {
            MPI_Send(&value, 1, MPI_INT, r, 170 + r, lopsided);
            MPI_Recv(&got, 1, MPI_INT, r, 180 + r, lopsided, MPI_STATUS_IGNORE);
            fprintf(out, "rank 0 lopsided: got %d from remote rank %d\n", got, r);
        }
    } else {
        int me;
        MPI_Comm_rank(lopsided, &me);
        MPI_Recv(&got, 1, MPI_INT, 0, 170 + me, lopsided, MPI_STATUS_IGNORE);
        MPI_Send(&value, 2 * 1, MPI_SHORT, 0, 180 + me, lopsided);
        fprintf(out, "rank %d lopsided: got %d\n", world_rank, got);
    }

    MPI_Comm comms[] = {lopsided, alone, merged, idup, created, split, dup, inter, half};
    for (int i = 0; i < 9; i++) MPI_Comm_free(&comms[i]);
    if (out != stdout) fclose(out);
    MPI_Finalize();
    return 0;
}
