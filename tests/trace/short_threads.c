/*
 * Many short-lived threads (the shape of MPICH's threads/pt2pt/alltoall):
 * the main thread starts <threads> threads in rounds of <concurrent>, each
 * records <pairs> enter/exit pairs of region "work" inside "thread_body",
 * and joins each round before starting the next. The main thread is inside
 * "main" meanwhile. The threads of a round wait for each other before they
 * end, so <concurrent> threads are alive at once. Prints the number of
 * threads run and of pairs recorded.
 *
 * With "open" each thread ends inside "thread_body" (its exit is never
 * called), as a thread that calls pthread_exit from a measured function.
 *
 * usage: short_threads <threads> <concurrent> <pairs> [open]
 */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE  /* pthread_barrier_t with -std=c11 */
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scorep_wrapgen/adapter.h>

static long pairs;
static scorep_region body, work;
static pthread_barrier_t round_alive;
static int leave_open;

static void* thread_main(void* arg)
{
    (void)arg;
    scorep_enter(body);
    for (long i = 0; i < pairs; i++) {
        scorep_enter(work);
        scorep_exit(work);
    }
    if (!leave_open)
        scorep_exit(body);
    pthread_barrier_wait(&round_alive);
    return NULL;
}

int main(int argc, char** argv)
{
    long threads = argc > 1 ? atol(argv[1]) : 1000;
    int concurrent = argc > 2 ? atoi(argv[2]) : 4;
    pairs = argc > 3 ? atol(argv[3]) : 3;
    leave_open = argc > 4 && strcmp(argv[4], "open") == 0;
    if (concurrent < 1)
        concurrent = 1;
    scorep_region main_region = scorep_region_define("main", NULL, SCOREP_PARADIGM_USER,
                                                     SCOREP_ROLE_FUNCTION, NULL);
    body = scorep_region_define("thread_body", NULL, SCOREP_PARADIGM_USER, SCOREP_ROLE_FUNCTION,
                                NULL);
    work = scorep_region_define("work", NULL, SCOREP_PARADIGM_USER, SCOREP_ROLE_FUNCTION, NULL);
    scorep_enter(main_region);
    pthread_t* ids = malloc((size_t)concurrent * sizeof *ids);
    long started = 0;
    while (started < threads) {
        int round = 0;
        long left = threads - started;
        pthread_barrier_init(&round_alive, NULL, (unsigned)(left < concurrent ? left : concurrent));
        for (; round < concurrent && started < threads; round++, started++)
            if (pthread_create(&ids[round], NULL, thread_main, NULL) != 0) {
                perror("pthread_create");
                return 2;
            }
        for (int t = 0; t < round; t++)
            pthread_join(ids[t], NULL);
        pthread_barrier_destroy(&round_alive);
    }
    free(ids);
    scorep_exit(main_region);
    printf("threads: %ld\npairs: %ld\n", started, started * pairs);
    scorep_measurement_finalize();
    return 0;
}
