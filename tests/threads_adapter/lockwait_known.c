/* A lock wait of known length, for test_pthread_adapter.py: main holds the
 * mutex, starts `waiter`, waits until waiter is blocked in its
 * pthread_mutex_lock (blocked.h: its system call in /proc; a semaphore
 * first, which the adapter does not wrap, says it is about to lock), sleeps
 * HOLD_MS more and unlocks. The waiter's pthread_mutex_lock waits at least
 * HOLD_MS, however long the waiter was off the CPU before it locked. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <time.h>

#include "blocked.h"

#define HOLD_MS 300

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static sem_t about_to_lock;
static pid_t waiter_id;

static void* waiter(void* arg)
{
    waiter_id = blocked_this_thread();
    sem_post(&about_to_lock);
    pthread_mutex_lock(&lock);
    pthread_mutex_unlock(&lock);
    return arg;
}

int main(void)
{
    pthread_t thread;
    sem_init(&about_to_lock, 0, 0);
    pthread_mutex_lock(&lock);
    if (pthread_create(&thread, NULL, waiter, NULL) != 0)
        return 1;
    sem_wait(&about_to_lock);
    wait_until_blocked_in(waiter_id, &lock, sizeof lock);
    struct timespec hold = {0, HOLD_MS * 1000000L};
    nanosleep(&hold, NULL);
    pthread_mutex_unlock(&lock);
    pthread_join(thread, NULL);
    printf("held the lock %d ms\n", HOLD_MS);
    return 0;
}
