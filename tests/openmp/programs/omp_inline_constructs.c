/* The OpenMP constructs GCC computes inline, without a runtime call: loops
 * with a static schedule (with and without their implicit barrier), master,
 * flush and atomic, a combined parallel loop with a static and one with a
 * dynamic schedule, REGIONS times inside a loop. Prints what it computed
 * (which a measurement must not change). */
#include <omp.h>
#include <stdio.h>

#define REGIONS 3
#define ITEMS 40

static double squares[ITEMS];

int main(void)
{
    long masters = 0, updates = 0, singles = 0;
    for (int r = 0; r < REGIONS; r++) {
        #pragma omp parallel
        {
            #pragma omp for schedule(static)
            for (int i = 0; i < ITEMS; i++)
                squares[i] = (double)i * i;
            #pragma omp master
            masters++;
            #pragma omp flush
            #pragma omp atomic
            updates++;
            #pragma omp for schedule(static) nowait
            for (int i = 0; i < ITEMS; i++) {
                squares[i] += 1;
            }
            #pragma omp single
            singles++;
        }
        #pragma omp parallel for schedule(static)
        for (int i = 0; i < ITEMS; i++)
            squares[i] *= 2;
    }
    double sum = 0;
    #pragma omp parallel for schedule(dynamic, 4) reduction(+:sum)
    for (int i = 0; i < ITEMS; i++)
        sum += squares[i];
    printf("sum %.0f masters %ld updates %ld singles %ld\n", sum, masters, updates, singles);
    return 0;
}
