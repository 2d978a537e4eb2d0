/* Read-write locks, spin locks and a barrier with known counts and known
 * waits, for test_pthread_adapter.py. Main takes the write lock, starts
 * THREADS workers and, once each has said it is about to take the read
 * lock (a semaphore, which the adapter does not wrap), holds it HOLD_MS
 * more: every worker's first pthread_rwlock_rdlock waits about that long.
 * Each worker then takes the read lock ROUNDS times in all, the spin lock
 * ROUNDS times and the write lock once, and meets the others at a barrier,
 * where the last worker arrives LATE_MS after the others said they are
 * about to (another semaphore): the others' pthread_barrier_wait waits
 * about that long. After the joins, main tries
 * each lock once (uncontended: each try succeeds) and takes both rwlock
 * modes with a timeout. */
#define _GNU_SOURCE   /* pthread_rwlock_clockwrlock */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <time.h>

#define THREADS 4
#define ROUNDS 50
#define HOLD_MS 300
#define LATE_MS 300

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_spinlock_t spin;
static pthread_barrier_t barrier;
static sem_t about_to_read, about_to_meet;
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
