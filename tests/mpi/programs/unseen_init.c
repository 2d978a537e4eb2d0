/* MPI started and ended by a helper through PMPI (unseen_init_helper.c); in
 * between, measured calls on every rank: ROUNDS ring exchanges
 * (MPI_Sendrecv of 8 * (r + 1) bytes in round r) and ROUNDS MPI_Allreduce of
 * one double, then one MPI_Barrier. Prints RESULT <rank> <sum>. */
#include <mpi.h>
#include <stdio.h>

#define ROUNDS 4

void helper_start_mpi(int* argc, char*** argv);
void helper_end_mpi(void);

int main(int argc, char** argv)
{
    helper_start_mpi(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double out[ROUNDS] = {0}, in[ROUNDS] = {0}, sum = 0;
    for (int r = 0; r < ROUNDS; r++) {
        out[0] = rank + r;
        MPI_Sendrecv(out, r + 1, MPI_DOUBLE, (rank + 1) % size, r, in, r + 1, MPI_DOUBLE,
                     (rank + size - 1) % size, r, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double value = in[0], total = 0;
        MPI_Allreduce(&value, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        sum += total;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    printf("RESULT %d %g\n", rank, sum);
    fflush(stdout);
    helper_end_mpi();
    return 0;
}
