/* The constructs open on the calling thread, innermost last: one stack for
 * both front-ends of the OpenMP adapter, the GOMP wrappers (omp_adapter.c)
 * and the OMPT callbacks (ompt.c), so that they open and close construct
 * regions alike. It is thread-local (initial-exec) and fixed in size: it
 * is used inside the program's OpenMP calls, where a lock or an
 * allocation would be measured as the program's. */
#include "scorep_omp_adapter.h"

SCOREP_OMP_TLS scorep_omp_open_construct scorep_omp_open_constructs[SCOREP_OMP_OPEN_MAX];
SCOREP_OMP_TLS unsigned scorep_omp_open_count;

void scorep_omp_pop_to(unsigned depth)
{
    while (scorep_omp_open_count > depth) scorep_omp_pop();
}

void scorep_omp_pop_through(scorep_omp_construct construct, unsigned floor)
{
    for (unsigned d = scorep_omp_open_count; d > floor && d <= SCOREP_OMP_OPEN_MAX; d--) {
        if (scorep_omp_open_constructs[d - 1].construct == construct) {
            scorep_omp_pop_to(d - 1);
            return;
        }
    }
}

void scorep_omp_forget_to(unsigned depth)
{
    if (scorep_omp_open_count > depth) scorep_omp_open_count = depth;
}
