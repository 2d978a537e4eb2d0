/* OpenMP constructs in the places a rebuilt program's measurement must
 * still find their pragmas: an orphaned static loop and single in a
 * function the parallel region calls, an ordered loop, sections with
 * atomic and critical sections, a named critical section, a task with a
 * taskwait, a barrier, a master block, and a combined parallel sections. Prints what it computed
 * (which a measurement must not change). */
#include <omp.h>
#include <stdio.h>

static long hits;

static void orphan(int n)
{
    #pragma omp for schedule(static)
    for (int i = 0; i < n; i++) {
        #pragma omp atomic
        hits++;
    }
    #pragma omp single nowait
    hits += 100;
}

int main(void)
{
    long ordered_sum = 0, sec = 0;
    #pragma omp parallel
    {
        orphan(10);
        #pragma omp for ordered schedule(dynamic)
        for (int i = 0; i < 8; i++) {
            #pragma omp ordered
            ordered_sum += i;
        }
        #pragma omp sections
        {
            #pragma omp section
            {
                #pragma omp atomic
                sec++;
            }
            #pragma omp section
            {
                #pragma omp critical
                sec += 10;
            }
        }
        #pragma omp task
        {
            #pragma omp atomic
            sec++;
        }
        #pragma omp taskwait
        #pragma omp critical(tally)
        hits += 1000;
        #pragma omp barrier
        #pragma omp master
        {
            hits++;
        }
    }
    #pragma omp parallel sections
    {
        #pragma omp section
        sec += 1000;
        #pragma omp section
        {
            #pragma omp atomic
            sec += 1000;
        }
    }
    printf("hits %ld ordered %ld sec %ld\n", hits, ordered_sum, sec);
    return 0;
}
