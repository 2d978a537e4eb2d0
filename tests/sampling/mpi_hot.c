/* An MPI ring with a hot function between the exchanges: compute is seen
 * only by samples, MPI_Sendrecv (inside exchange) and the collectives are
 * recorded by the MPI adapter. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) double compute(long n, int seed)
{
    double s = 0;
    for (long i = 0; i < n; i++) s += (double)(i ^ seed) * 1e-9 / (1.0 + (double)(i & 7));
    return s;
}

__attribute__((noinline)) void exchange(double* v, int rank, int size)
{
    double in;
    MPI_Sendrecv(v, 1, MPI_DOUBLE, (rank + 1) % size, 0, &in, 1, MPI_DOUBLE, (rank + size - 1) % size, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    *v += in;
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = argc > 1 ? atol(argv[1]) : 50000000;
    double v = 0;
    for (int r = 0; r < 20; r++) {
        v += compute(n / 20, rank + r);
        exchange(&v, rank, size);
    }
    double total;
    MPI_Allreduce(&v, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("total %.6f\n", total);
    MPI_Finalize();
    return 0;
}
