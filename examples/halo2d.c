/* A 2D Jacobi-style halo exchange: the demo scorep-wrapgen measures.
 * Ranks form a 2D grid; every iteration exchanges halo rows and columns with
 * non-blocking sends and receives, relaxes the interior, and reduces the
 * residual. At the end rank 0 collects one report per rank with a wildcard
 * receive. Split into functions (setup, solve: exchange + relax, report) so
 * that the profile shows where in the program each MPI call is made.
 * Usage: halo2d [n] [iterations] */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define AT(u, i, j) (u)[(size_t)(i) * (size_t)(nx + 2) + (size_t)(j)]

/* one rank's part of the grid and its neighbours */
typedef struct domain {
    MPI_Comm grid;
    int rank, size, dims[2];
    int up, down, left, right;
    int nx, ny;
    MPI_Datatype row;
    double *u, *v, *sendcol, *recvcol;
} domain;

static void setup(domain* d, int nx, int ny)
{
    MPI_Comm_size(MPI_COMM_WORLD, &d->size);
    int periods[2] = {0, 0};
    d->dims[0] = d->dims[1] = 0;
    MPI_Dims_create(d->size, 2, d->dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, d->dims, periods, 1, &d->grid);
    MPI_Comm_rank(d->grid, &d->rank);
    MPI_Cart_shift(d->grid, 0, 1, &d->up, &d->down);
    MPI_Cart_shift(d->grid, 1, 1, &d->left, &d->right);
    d->nx = nx;
    d->ny = ny;
    d->u = calloc((size_t)(nx + 2) * (ny + 2), sizeof *d->u);
    d->v = calloc((size_t)(nx + 2) * (ny + 2), sizeof *d->v);
    d->sendcol = malloc(2 * ny * sizeof *d->sendcol);
    d->recvcol = malloc(2 * ny * sizeof *d->recvcol);
    if (d->up == MPI_PROC_NULL)
        for (int j = 0; j < nx + 2; j++)
            AT(d->u, 0, j) = AT(d->v, 0, j) = 1.0;    /* hot top boundary */
    MPI_Type_contiguous(nx, MPI_DOUBLE, &d->row);
    MPI_Type_commit(&d->row);
}

/* halo rows and columns with the four neighbours, non-blocking */
static void exchange(domain* d)
{
    const int nx = d->nx, ny = d->ny;
    double *u = d->u, *sendcol = d->sendcol, *recvcol = d->recvcol;
    MPI_Request req[8];
    int n = 0;
    for (int i = 0; i < ny; i++) {
        sendcol[i] = AT(u, i + 1, 1);
        sendcol[ny + i] = AT(u, i + 1, nx);
    }
    MPI_Irecv(&AT(u, 0, 1), 1, d->row, d->up, 0, d->grid, &req[n++]);
    MPI_Irecv(&AT(u, ny + 1, 1), 1, d->row, d->down, 1, d->grid, &req[n++]);
    MPI_Irecv(recvcol, ny, MPI_DOUBLE, d->left, 2, d->grid, &req[n++]);
    MPI_Irecv(recvcol + ny, ny, MPI_DOUBLE, d->right, 3, d->grid, &req[n++]);
    MPI_Isend(&AT(u, 1, 1), 1, d->row, d->up, 1, d->grid, &req[n++]);
    MPI_Isend(&AT(u, ny, 1), 1, d->row, d->down, 0, d->grid, &req[n++]);
    MPI_Isend(sendcol, ny, MPI_DOUBLE, d->left, 3, d->grid, &req[n++]);
    MPI_Isend(sendcol + ny, ny, MPI_DOUBLE, d->right, 2, d->grid, &req[n++]);
    MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
    if (d->left != MPI_PROC_NULL)
        for (int i = 0; i < ny; i++)
            AT(u, i + 1, 0) = recvcol[i];
    if (d->right != MPI_PROC_NULL)
        for (int i = 0; i < ny; i++)
            AT(u, i + 1, nx + 1) = recvcol[ny + i];
}

/* one Jacobi sweep; returns this rank's residual */
static double relax(domain* d)
{
    const int nx = d->nx, ny = d->ny;
    double *u = d->u, *v = d->v;
    double local = 0;
    for (int i = 1; i <= ny; i++)
        for (int j = 1; j <= nx; j++) {
            AT(v, i, j) = 0.25 * (AT(u, i - 1, j) + AT(u, i + 1, j) + AT(u, i, j - 1) + AT(u, i, j + 1));
            local += fabs(AT(v, i, j) - AT(u, i, j));
        }
    d->u = v;
    d->v = u;
    return local;
}

/* iterations of exchange, sweep and residual reduction */
static double solve(domain* d, int iterations)
{
    double residual = 0;
    for (int it = 0; it < iterations; it++) {
        exchange(d);
        double local = relax(d);
        MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, d->grid);
    }
    return residual;
}

/* rank 0 collects one report per rank with a wildcard receive */
static void report(domain* d, int iterations, double residual)
{
    const int nx = d->nx, ny = d->ny;
    double* u = d->u;
    double mine[2] = {d->rank, 0};
    for (int i = 1; i <= ny; i++)
        for (int j = 1; j <= nx; j++)
            mine[1] += AT(u, i, j);
    if (d->rank == 0) {
        double total = mine[1];
        for (int k = 1; k < d->size; k++) {
            double report[2];
            MPI_Status status;
            MPI_Recv(report, 2, MPI_DOUBLE, MPI_ANY_SOURCE, 9, d->grid, &status);
            total += report[1];
        }
        printf("halo2d: %d ranks (%d x %d), %d x %d cells each, %d iterations: residual %.6e, heat %.6f\n",
               d->size, d->dims[0], d->dims[1], nx, ny, iterations, residual, total);
    } else {
        MPI_Send(mine, 2, MPI_DOUBLE, 0, 9, d->grid);
    }
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    const int nx = argc > 1 ? atoi(argv[1]) : 256, ny = nx;
    const int iterations = argc > 2 ? atoi(argv[2]) : 100;
    domain d;
    setup(&d, nx, ny);
    double residual = solve(&d, iterations);
    report(&d, iterations, residual);
    MPI_Type_free(&d.row);
    MPI_Comm_free(&d.grid);
    free(d.u); free(d.v); free(d.sendcol); free(d.recvcol);
    MPI_Finalize();
    return 0;
}
