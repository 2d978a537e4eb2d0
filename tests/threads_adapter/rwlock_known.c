/* Read-write locks, spin locks and a barrier with known counts and known
 * waits, for test_pthread_locks.py. Main takes the write lock, starts
 * THREADS workers and, once each is blocked in its first
 * pthread_rwlock_rdlock (blocked.h: its system call in /proc; a semaphore
 * first, which the adapter does not wrap, says it is about to take the
 * read lock), holds it HOLD_MS more: every worker's first
 * pthread_rwlock_rdlock waits at least that long.
 * Each worker then takes the read lock ROUNDS times in all, the spin lock
 * ROUNDS times and the write lock once, and meets the others at a barrier,
 * where the last worker arrives LATE_MS after the others are blocked in
 * it (the same way; another semaphore first): the others'
 * pthread_barrier_wait waits at least that long. Neither wait depends on
 * how long a worker was off the CPU before its call. After the joins, main
 * tries each lock once (uncontended: each try succeeds) and takes both
 * rwlock modes with a timeout. */
#define _GNU_SOURCE   /* pthread_rwlock_clockwrlock */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <time.h>

#include "blocked.h"

#define THREADS 4
#define ROUNDS 50
#define HOLD_MS 300
#define LATE_MS 300

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_spinlock_t spin;
static pthread_barrier_t barrier;
static sem_t about_to_read, about_to_meet;
static pid_t worker_ids[THREADS];
static long shared, counter;

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static void* worker(void* arg)
{
    long id = (long)arg;
    long seen = 0;
    worker_ids[id] = blocked_this_thread();
    sem_post(&about_to_read);
    for (int i = 0; i < ROUNDS; i++) {
        pthread_rwlock_rdlock(&rw);
        seen += shared;
        pthread_rwlock_unlock(&rw);
    }
    for (int i = 0; i < ROUNDS; i++) {
        pthread_spin_lock(&spin);
        counter++;
        pthread_spin_unlock(&spin);
    }
    pthread_rwlock_wrlock(&rw);
    shared += id + 1;
    pthread_rwlock_unlock(&rw);
    if (id == THREADS - 1) {
        for (int i = 0; i < THREADS - 1; i++)
            sem_wait(&about_to_meet);
        for (int i = 0; i < THREADS - 1; i++)
            wait_until_blocked_in(worker_ids[i], &barrier, sizeof barrier);
        sleep_ms(LATE_MS);
    } else {
        sem_post(&about_to_meet);
    }
    pthread_barrier_wait(&barrier);
    return (void*)seen;
}

int main(void)
{
    pthread_t threads[THREADS];
    sem_init(&about_to_read, 0, 0);
    sem_init(&about_to_meet, 0, 0);
    pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
    pthread_barrier_init(&barrier, NULL, THREADS);
    pthread_rwlock_wrlock(&rw);
    for (long i = 0; i < THREADS; i++)
        if (pthread_create(&threads[i], NULL, worker, (void*)i) != 0)
            return 1;
    for (int i = 0; i < THREADS; i++)
        sem_wait(&about_to_read);
    for (int i = 0; i < THREADS; i++)
        wait_until_blocked_in(worker_ids[i], &rw, sizeof rw);
    sleep_ms(HOLD_MS);
    pthread_rwlock_unlock(&rw);
    for (int i = 0; i < THREADS; i++)
        pthread_join(threads[i], NULL);

    int failed = 0;
    failed |= pthread_rwlock_tryrdlock(&rw) || pthread_rwlock_unlock(&rw);
    failed |= pthread_rwlock_trywrlock(&rw) || pthread_rwlock_unlock(&rw);
    struct timespec soon;
    clock_gettime(CLOCK_REALTIME, &soon);
    soon.tv_sec += 10;
    failed |= pthread_rwlock_timedrdlock(&rw, &soon) || pthread_rwlock_unlock(&rw);
    failed |= pthread_rwlock_timedwrlock(&rw, &soon) || pthread_rwlock_unlock(&rw);
    clock_gettime(CLOCK_MONOTONIC, &soon);
    soon.tv_sec += 10;
    failed |= pthread_rwlock_clockrdlock(&rw, CLOCK_MONOTONIC, &soon) || pthread_rwlock_unlock(&rw);
    failed |= pthread_rwlock_clockwrlock(&rw, CLOCK_MONOTONIC, &soon) || pthread_rwlock_unlock(&rw);
    failed |= pthread_spin_trylock(&spin) || pthread_spin_unlock(&spin);
    printf("shared %ld, counter %ld%s\n", shared, counter, failed ? ", a try failed" : "");
    return failed;
}
