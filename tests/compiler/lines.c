/* Source lines of regions (test_source_lines.py): the test finds each
 * function's definition line and each user region's BEGIN line in this
 * text. Rank 0 calls alpha then beta, the other ranks beta then alpha, so
 * their local region ids differ and unification has to map them. Two user
 * regions share the name "step" at different lines (two regions, as in
 * Score-P). beta has a prototype: its line is the definition's. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <scorep_user.h>

static double beta(int n);

static __attribute__((noinline)) double alpha(int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) s += i * 0.5;
    return s;
}

static __attribute__((noinline)) double
beta(int n)
{
    double s = 1;
    SCOREP_USER_REGION_DEFINE(first)
    SCOREP_USER_REGION_DEFINE(second)
    SCOREP_USER_REGION_BEGIN(first, "step", SCOREP_USER_REGION_TYPE_COMMON);
    for (int i = 0; i < n; i++) s *= 1.0001;
    SCOREP_USER_REGION_END(first);
    SCOREP_USER_REGION_BEGIN(second, "step", SCOREP_USER_REGION_TYPE_COMMON);
    s += alpha(n);
    SCOREP_USER_REGION_END(second);
    return s;
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int n = argc > 1 ? atoi(argv[1]) : 10;
    double s = rank == 0 ? alpha(n) + beta(n) : beta(n) + alpha(n);
    double total = 0;
    MPI_Allreduce(&s, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("total=%.3f\n", total);
    MPI_Finalize();
    return 0;
}
