/* The lock records' program (test_pthread_lock_records.py): NTHREADS
 * threads, each locking a shared mutex ITER times (lock/unlock) and once with
 * trylock; the main thread waits on a condition variable until all are done
 * (one cond_wait per wake-up it counts), then joins them. */
#include <pthread.h>
#include <stdio.h>

#define NTHREADS 4
#define ITER 5

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static int counter, done;

static void* worker(void* arg)
{
    (void)arg;
    for (int i = 0; i < ITER; i++) {
        pthread_mutex_lock(&lock);
        counter++;
        pthread_mutex_unlock(&lock);
    }
    while (pthread_mutex_trylock(&lock) != 0)
        ;
    counter++;
    done++;
    pthread_cond_signal(&done_cond);
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(void)
{
    pthread_t t[NTHREADS];
    for (int i = 0; i < NTHREADS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    int waits = 0, locks = 1;
    pthread_mutex_lock(&lock);
    while (done < NTHREADS) {
        pthread_cond_wait(&done_cond, &lock);
        waits++;
    }
    pthread_mutex_unlock(&lock);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(t[i], NULL);
    printf("THREADS %d counter %d main_locks %d cond_waits %d\n", NTHREADS, counter, locks, waits);
    return 0;
}
