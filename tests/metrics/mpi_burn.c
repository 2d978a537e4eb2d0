/* Each rank burns its own amount of user CPU time, (rank + 1) * ms, in
 * burn_cpu and prints what its getrusage says that took: the rusage metric
 * per rank has something independent to agree with. */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

static long long utime_us(void)
{
    struct rusage r;
    getrusage(RUSAGE_THREAD, &r);
    return (long long)r.ru_utime.tv_sec * 1000000 + r.ru_utime.tv_usec;
}

__attribute__((noinline)) void burn_cpu(int ms)
{
    long long end = utime_us() + ms * 1000LL;
    volatile double x = 1;
    do
        for (int i = 0; i < 100000; i++) x = x * 1.0000001 + 1e-9;
    while (utime_us() < end);
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int ms = argc > 1 ? atoi(argv[1]) : 100;
    long long before = utime_us();
    burn_cpu((rank + 1) * ms);
    long long used = utime_us() - before;
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d burn_cpu ru_utime_us %lld\n", rank, used);
    MPI_Finalize();
    return 0;
}
