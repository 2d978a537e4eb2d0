/* Nested parallelism of known shape: ROUNDS times an outer team of 2,
 * each of whose members forks an inner team of 2, whose members call
 * work once each. Prints the sum and the calls per round (unchanged by
 * a measurement). */
#include <omp.h>
#include <stdio.h>

#define ROUNDS 4

static long calls;

static void work(int outer, int inner)
{
    #pragma omp atomic
    calls += 1 + 0 * (outer + inner);
}

int main(void)
{
    omp_set_max_active_levels(2);
    for (int r = 0; r < ROUNDS; r++) {
        #pragma omp parallel num_threads(2)
        {
            int outer = omp_get_thread_num();
            #pragma omp parallel num_threads(2)
            work(outer, omp_get_thread_num());
        }
    }
    printf("calls %ld\n", calls);
    return 0;
}
