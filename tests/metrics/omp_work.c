/* Two threads in two parallel regions, the second thread with twice the
 * work in the first region: the members' metrics on the forker's call path
 * they continue. */
#include <omp.h>
#include <stdio.h>

__attribute__((noinline)) void work(int n)
{
    volatile double x = 0;
    for (long i = 0; i < n * 1000000L; i++) x += i;
}

int main(void)
{
#pragma omp parallel num_threads(2)
    work(20 * (omp_get_thread_num() + 1));
#pragma omp parallel num_threads(2)
    work(20);
    printf("ok\n");
    return 0;
}
