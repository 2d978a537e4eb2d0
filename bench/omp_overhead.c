/* The cost of an OpenMP parallel region entry and of a barrier, measured by
 * the program itself (bench/omp_overhead runs it plain, with this
 * measurement and with Score-P's): BLOCKS blocks of REGIONS empty parallel
 * regions and of BARRIERS barriers in one region, the best block's time
 * per region and per barrier in ns. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv)
{
    int blocks = argc > 1 ? atoi(argv[1]) : 10;
    int regions = argc > 2 ? atoi(argv[2]) : 2000;
    int barriers = argc > 3 ? atoi(argv[3]) : 5000;
    double best_region = 1e30, best_barrier = 1e30;
    volatile int sink = 0;
    for (int b = 0; b < blocks; b++) {
        double t0 = omp_get_wtime();
        for (int r = 0; r < regions; r++) {
            #pragma omp parallel
            {
                if (omp_get_thread_num() == 1) sink++;
            }
        }
        double t1 = omp_get_wtime();
        #pragma omp parallel
        {
            for (int i = 0; i < barriers; i++) {
                #pragma omp barrier
            }
        }
        double t2 = omp_get_wtime();
        if ((t1 - t0) / regions < best_region) best_region = (t1 - t0) / regions;
        if ((t2 - t1) / barriers < best_barrier) best_barrier = (t2 - t1) / barriers;
    }
    printf("parallel_ns %.1f\nbarrier_ns %.1f\n", best_region * 1e9, best_barrier * 1e9);
    return sink < 0;
}
