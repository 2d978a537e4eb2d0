/*
 * Threaded trace test program: <threads> threads each record <pairs>
 * enter/exit pairs of region "work" inside "thread_body", all at the same
 * time, while the master thread is inside "main". With a small
 * SCOREP_TOTAL_MEMORY the threads compete for buffer memory and flush.
 * The threads wait for each other before they end, so all are alive at once
 * and each has a location of its own (an ended thread's location is handed
 * on to the next new thread).
 *
 * usage: threaded_events <threads> <pairs>
 */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE  /* pthread_barrier_t with -std=c11 */
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <scorep_wrapgen/adapter.h>

static long pairs;
static scorep_region body, work;
static pthread_barrier_t all_alive;

static void* thread_main(void* arg)
{
    (void)arg;
    scorep_enter(body);
    for (long i = 0; i < pairs; i++) {
        scorep_enter(work);
        scorep_exit(work);
    }
    scorep_exit(body);
    pthread_barrier_wait(&all_alive);
    return NULL;
}

int main(int argc, char** argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 4;
    pairs = argc > 2 ? atol(argv[2]) : 100000;
    scorep_region main_region = scorep_region_define("main", NULL, SCOREP_PARADIGM_USER,
                                                     SCOREP_ROLE_FUNCTION, NULL);
    body = scorep_region_define("thread_body", NULL, SCOREP_PARADIGM_USER, SCOREP_ROLE_FUNCTION,
                                NULL);
    work = scorep_region_define("work", NULL, SCOREP_PARADIGM_USER, SCOREP_ROLE_FUNCTION, NULL);
    scorep_enter(main_region);
    pthread_t* ids = malloc(threads * sizeof *ids);
    pthread_barrier_init(&all_alive, NULL, (unsigned)threads);
    for (int t = 0; t < threads; t++)
        pthread_create(&ids[t], NULL, thread_main, NULL);
    for (int t = 0; t < threads; t++)
        pthread_join(ids[t], NULL);
    free(ids);
    scorep_exit(main_region);
    scorep_measurement_finalize();
    return 0;
}
