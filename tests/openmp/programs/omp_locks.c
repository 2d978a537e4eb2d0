/* OpenMP locks whose counts follow from the source: in one parallel
 * region every thread sets and unsets the lock ROUNDS times, takes it
 * once more with omp_test_lock until that succeeds, and enters a named
 * critical section ROUNDS times; then the master alone sets a nested lock
 * twice (held once, nested once). Prints the totals, which a measurement
 * must not change. */
#include <omp.h>
#include <stdio.h>

#define ROUNDS 25

int main(void)
{
    omp_lock_t lock;
    omp_nest_lock_t nest;
    omp_init_lock(&lock);
    omp_init_nest_lock(&nest);
    long counted = 0, named = 0, tests = 0;
    int threads = 0;
    #pragma omp parallel reduction(+:tests)
    {
        #pragma omp single
        threads = omp_get_num_threads();
        for (int r = 0; r < ROUNDS; r++) {
            omp_set_lock(&lock);
            counted++;
            omp_unset_lock(&lock);
            #pragma omp critical(named_section)
            named++;
        }
        while (!omp_test_lock(&lock))
            tests++;
        counted++;
        omp_unset_lock(&lock);
    }
    omp_set_nest_lock(&nest);
    omp_set_nest_lock(&nest);
    omp_unset_nest_lock(&nest);
    omp_unset_nest_lock(&nest);
    omp_destroy_nest_lock(&nest);
    omp_destroy_lock(&lock);
    printf("threads %d counted %ld named %ld\n", threads, counted, named);
    return tests < 0;
}
