/* OpenMP constructs whose counts the test knows from the program's own
 * arithmetic: REGIONS parallel regions of the whole team, each with one
 * dynamically scheduled loop over ITEMS items (each item one call of
 * work, and one critical section), an explicit barrier, a single and a
 * task per thread with a taskwait. Prints what it computed and how many
 * items each thread did (which a measurement must not change). */
#include <omp.h>
#include <stdio.h>

#define REGIONS 3
#define ITEMS 40

static double work(int i)
{
    double s = 0;
    for (int k = 0; k < 2000; k++)
        s += (i * k) % 7;
    return s;
}

int main(void)
{
    double total = 0;
    long items_done = 0, singles = 0, tasks = 0;
    int threads = 0;
    for (int r = 0; r < REGIONS; r++) {
        #pragma omp parallel
        {
            #pragma omp single
            threads = omp_get_num_threads();
            #pragma omp for schedule(dynamic, 1)
            for (int i = 0; i < ITEMS; i++) {
                double w = work(i);
                #pragma omp critical
                {
                    total += w;
                    items_done++;
                }
            }
            #pragma omp barrier
            #pragma omp task
            {
                #pragma omp atomic
                tasks++;
            }
            #pragma omp taskwait
            #pragma omp single
            singles++;
        }
    }
    printf("threads %d total %.0f items %ld singles %ld tasks %ld\n", threads, total, items_done, singles, tasks);
    return 0;
}
