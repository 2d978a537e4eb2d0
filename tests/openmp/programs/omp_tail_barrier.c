/* A parallel region whose last statement is a barrier: at -O2 GCC ends the
 * outlined function with a jump to GOMP_barrier (a tail call), so the
 * barrier's return address lies in whatever called the outlined function.
 * Prints the sum each member computed before the barrier. */
#include <omp.h>
#include <stdio.h>

#define ROUNDS 3

static double partial[2];

static void work(int member, int n)
{
    double sum = 0;
    for (int i = 0; i < n; i++) sum += i * 0.5;
    partial[member] += sum;
}

int main(void)
{
    for (int round = 0; round < ROUNDS; round++) {
#pragma omp parallel num_threads(2)
        {
            work(omp_get_thread_num(), 1000);
#pragma omp barrier
        }
    }
    printf("sum %.1f\n", partial[0] + partial[1]);
    return 0;
}
