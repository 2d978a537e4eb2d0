/* The constructs open on the calling thread, innermost last: one stack for
 * both front-ends of the OpenMP adapter, the GOMP wrappers (omp_adapter.c)
 * and the OMPT callbacks (ompt.c), so that they open and close construct
 * regions alike. It is thread-local (initial-exec) and fixed in size: it
 * is used inside the program's OpenMP calls, where a lock or an
 * allocation would be measured as the program's. */
#include "scorep_omp_adapter.h"

static SCOREP_OMP_TLS scorep_omp_open_construct open_constructs[SCOREP_OMP_OPEN_MAX];
/* may exceed SCOREP_OMP_OPEN_MAX: a construct that deep is counted, so
 * that its end finds the right depth, but not recorded */
static SCOREP_OMP_TLS unsigned open_depth;

unsigned scorep_omp_open_depth(void)
{
    return open_depth;
}

scorep_omp_open_construct* scorep_omp_open_at(unsigned depth)
{
    return depth > 0 && depth <= open_depth && depth <= SCOREP_OMP_OPEN_MAX ? &open_constructs[depth - 1] : NULL;
}

scorep_omp_construct scorep_omp_innermost(void)
{
    return open_depth > 0 && open_depth <= SCOREP_OMP_OPEN_MAX ? open_constructs[open_depth - 1].construct
                                                               : SCOREP_OMP_NONE;
}

void scorep_omp_push(scorep_omp_construct construct, scorep_region region, const void* site)
{
    if (open_depth < SCOREP_OMP_OPEN_MAX) {
        /* a callback inside the measurement's own or a measured library's
         * call (OMPT) records nothing, and its exit must not either */
        if (scorep_thread_event_generation_off) region = SCOREP_INVALID_ID;
        scorep_omp_open_construct* open = &open_constructs[open_depth];
        open->region = region;
        open->construct = construct;
        open->site = site;
        open->work_done = 0;
        open->ends_construct = 0;
        if (region != SCOREP_INVALID_ID) scorep_enter(region);
    }
    open_depth++;
}

void scorep_omp_pop(void)
{
    if (open_depth == 0) return;
    open_depth--;
    if (open_depth < SCOREP_OMP_OPEN_MAX && open_constructs[open_depth].region != SCOREP_INVALID_ID)
        scorep_exit(open_constructs[open_depth].region);
}

void scorep_omp_pop_to(unsigned depth)
{
    while (open_depth > depth) scorep_omp_pop();
}

void scorep_omp_pop_through(scorep_omp_construct construct, unsigned floor)
{
    for (unsigned d = open_depth; d > floor && d <= SCOREP_OMP_OPEN_MAX; d--) {
        if (open_constructs[d - 1].construct == construct) {
            scorep_omp_pop_to(d - 1);
            return;
        }
    }
}

void scorep_omp_forget_to(unsigned depth)
{
    if (open_depth > depth) open_depth = depth;
}
