/* Tasks a waiting member runs: ROUNDS times member 0 of a team of 2
 * computes BUSY_MS, then creates TASKS tasks of TASK_MS each, while member
 * 1 returns at once and waits in the parallel region's implicit barrier,
 * where the runtime gives it some of the tasks. Prints the tasks run
 * (unchanged by a measurement). */
#include <omp.h>
#include <stdio.h>
#include <time.h>

#define ROUNDS 3
#define BUSY_MS 30
#define TASKS 8
#define TASK_MS 10

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void compute(int milliseconds)
{
    double end = seconds() + milliseconds * 1e-3;
    while (seconds() < end) {}
}

int main(void)
{
    long tasks = 0;
    for (int r = 0; r < ROUNDS; r++) {
        #pragma omp parallel num_threads(2)
        {
            if (omp_get_thread_num() == 0) {
                compute(BUSY_MS);
                for (int t = 0; t < TASKS; t++) {
                    #pragma omp task
                    {
                        compute(TASK_MS);
                        #pragma omp atomic
                        tasks++;
                    }
                }
            }
        }
    }
    printf("rounds %d tasks %ld\n", ROUNDS, tasks);
    return 0;
}
