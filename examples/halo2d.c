/* A 2D Jacobi-style halo exchange: the demo scorep-wrapgen measures.
 * Ranks form a 2D grid; every iteration exchanges halo rows and columns with
 * non-blocking sends and receives, relaxes the interior, and reduces the
 * residual. At the end rank 0 collects one report per rank with a wildcard
 * receive. Usage: halo2d [n] [iterations] */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define AT(u, i, j) (u)[(size_t)(i) * (size_t)(nx + 2) + (size_t)(j)]

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int size, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int dims[2] = {0, 0}, periods[2] = {0, 0};
    MPI_Dims_create(size, 2, dims);
    MPI_Comm grid;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &grid);
    MPI_Comm_rank(grid, &rank);
    int up, down, left, right;
    MPI_Cart_shift(grid, 0, 1, &up, &down);
    MPI_Cart_shift(grid, 1, 1, &left, &right);

    const int nx = argc > 1 ? atoi(argv[1]) : 256, ny = nx;
    const int iterations = argc > 2 ? atoi(argv[2]) : 100;
    double* u = calloc((size_t)(nx + 2) * (ny + 2), sizeof *u);
    double* v = calloc((size_t)(nx + 2) * (ny + 2), sizeof *v);
    double *sendcol = malloc(2 * ny * sizeof *sendcol), *recvcol = malloc(2 * ny * sizeof *recvcol);
    if (up == MPI_PROC_NULL)
        for (int j = 0; j < nx + 2; j++)
            AT(u, 0, j) = AT(v, 0, j) = 1.0;    /* hot top boundary */

    MPI_Datatype row;
    MPI_Type_contiguous(nx, MPI_DOUBLE, &row);
    MPI_Type_commit(&row);
    double residual = 0;
    for (int it = 0; it < iterations; it++) {
        MPI_Request req[8];
        int n = 0;
        for (int i = 0; i < ny; i++) {
            sendcol[i] = AT(u, i + 1, 1);
            sendcol[ny + i] = AT(u, i + 1, nx);
        }
        MPI_Irecv(&AT(u, 0, 1), 1, row, up, 0, grid, &req[n++]);
        MPI_Irecv(&AT(u, ny + 1, 1), 1, row, down, 1, grid, &req[n++]);
        MPI_Irecv(recvcol, ny, MPI_DOUBLE, left, 2, grid, &req[n++]);
        MPI_Irecv(recvcol + ny, ny, MPI_DOUBLE, right, 3, grid, &req[n++]);
        MPI_Isend(&AT(u, 1, 1), 1, row, up, 1, grid, &req[n++]);
        MPI_Isend(&AT(u, ny, 1), 1, row, down, 0, grid, &req[n++]);
        MPI_Isend(sendcol, ny, MPI_DOUBLE, left, 3, grid, &req[n++]);
        MPI_Isend(sendcol + ny, ny, MPI_DOUBLE, right, 2, grid, &req[n++]);
        MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
        if (left != MPI_PROC_NULL)
            for (int i = 0; i < ny; i++)
                AT(u, i + 1, 0) = recvcol[i];
        if (right != MPI_PROC_NULL)
            for (int i = 0; i < ny; i++)
                AT(u, i + 1, nx + 1) = recvcol[ny + i];
        double local = 0;
        for (int i = 1; i <= ny; i++)
            for (int j = 1; j <= nx; j++) {
                AT(v, i, j) = 0.25 * (AT(u, i - 1, j) + AT(u, i + 1, j) + AT(u, i, j - 1) + AT(u, i, j + 1));
                local += fabs(AT(v, i, j) - AT(u, i, j));
            }
        double* t = u;
        u = v;
        v = t;
        MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, grid);
    }

    double mine[2] = {rank, 0};
    for (int i = 1; i <= ny; i++)
        for (int j = 1; j <= nx; j++)
            mine[1] += AT(u, i, j);
    if (rank == 0) {
        double total = mine[1];
        for (int k = 1; k < size; k++) {
            double report[2];
            MPI_Status status;
            MPI_Recv(report, 2, MPI_DOUBLE, MPI_ANY_SOURCE, 9, grid, &status);
            total += report[1];
        }
        printf("halo2d: %d ranks (%d x %d), %d x %d cells each, %d iterations: residual %.6e, heat %.6f\n",
               size, dims[0], dims[1], nx, ny, iterations, residual, total);
    } else {
        MPI_Send(mine, 2, MPI_DOUBLE, 0, 9, grid);
    }
    MPI_Type_free(&row);
    MPI_Comm_free(&grid);
    free(u); free(v); free(sendcol); free(recvcol);
    MPI_Finalize();
    return 0;
}
