/* usage: test_threads <threads> <pairs per thread> [overlap]
 * Every thread records <pairs> enter/exit pairs of region "work" inside
 * region "thread"; threads start staggered (2 ms apart), so the first ones
 * may have ended before the last ones start (and handed their location on).
 * With "overlap" every thread waits for all others before it ends, so all
 * are alive at once and each has a location of its own. The program checks
 * that each location's visit count is a whole number of threads' visits and
 * prints the total. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE  /* pthread_barrier_t, nanosleep with -std=c11 */
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "profile.h"

static long pairs;
static scorep_region work, thread_region;
static int overlap;
static pthread_barrier_t all_alive;

static void* run(void* arg)
{
    long index = (long)arg;
    struct timespec delay = {0, index * 2000000L};
    nanosleep(&delay, NULL);  /* late starters */
    scorep_enter(thread_region);
    for (long i = 0; i < pairs; i++) {
        scorep_enter(work);
        scorep_exit(work);
    }
    /* definitions from many threads at once */
    char name[32];
    snprintf(name, sizeof name, "private-%ld", index);
    scorep_region own = scorep_region_define(name, NULL, SCOREP_PARADIGM_USER, SCOREP_ROLE_FUNCTION, NULL);
    scorep_enter(own);
    scorep_exit(own);
    scorep_exit(thread_region);
    if (overlap)
        pthread_barrier_wait(&all_alive);
    return NULL;
}

int main(int argc, char** argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 8;
    pairs = argc > 2 ? atol(argv[2]) : 1000000;
    overlap = argc > 3 && strcmp(argv[3], "overlap") == 0;
    if (overlap)
        pthread_barrier_init(&all_alive, NULL, (unsigned)threads);
    work = scorep_region_define("work", NULL, SCOREP_PARADIGM_USER, SCOREP_ROLE_FUNCTION, NULL);
    thread_region = scorep_region_define("thread", NULL, SCOREP_PARADIGM_USER, SCOREP_ROLE_FUNCTION, NULL);
    pthread_t* t = malloc((size_t)threads * sizeof *t);
    for (long i = 0; i < threads; i++) pthread_create(&t[i], NULL, run, (void*)i);
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);

    uint64_t total = 0;
    int bad = 0;
    for (scorep_location* loc = scorep_location_list(); loc; loc = loc->next) {
        scorep_profile_node* root = scorep_profile_root(loc);
        if (!root) continue;
        for (scorep_profile_node* th = root->first_child; th; th = th->next_sibling)
            for (scorep_profile_node* w = th->first_child; w; w = w->next_sibling) {
                if (w->region != work) continue;
                total += w->n.visits;
                if (w->n.visits == 0 || w->n.visits % (uint64_t)pairs != 0) {
                    printf("location %u: %llu visits, want a multiple of %ld\n", loc->local_id,
                           (unsigned long long)w->n.visits, pairs);
                    bad = 1;
                }
            }
    }
    printf("locations: %u\n", scorep_location_count());
    printf("total visits: %llu\n", (unsigned long long)total);
    scorep_measurement_finalize();
    return bad;
}
