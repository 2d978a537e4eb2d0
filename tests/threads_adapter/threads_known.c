/* Four threads of known behaviour, for the POSIX threads adapter's tests
 * (test_pthread_adapter.py). Each worker waits until all four have started
 * (a barrier: each worker has a location of its own, none ends before the
 * last one's first event), then takes the
 * shared mutex ROUNDS times, tries its own mutex once (it succeeds: no one
 * else has it) and reports that it is done under the shared mutex,
 * signalling the condition variable. The main thread creates the workers, waits on the
 * condition until all are done and joins them.
 *
 * Per worker location: the start routine `worker` as the root region, below
 * it pthread_mutex_lock ROUNDS + 1 visits, pthread_mutex_unlock ROUNDS + 2,
 * pthread_mutex_trylock 1, pthread_cond_broadcast 1, pthread_barrier_wait 1.
 * Main: pthread_create
 * 4, pthread_join 4, pthread_mutex_lock 1, pthread_mutex_unlock 1,
 * pthread_cond_wait >= 0. The output does not depend on the schedule. */
#include <pthread.h>
#include <stdio.h>

#define THREADS 4
#define ROUNDS 100

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t all_done = PTHREAD_COND_INITIALIZER;
static pthread_barrier_t all_started;
static int done;
static long counter;

static void* worker(void* arg)
{
    long id = (long)arg;
    pthread_mutex_t mine = PTHREAD_MUTEX_INITIALIZER;   /* this worker's only: trylock succeeds */
    pthread_barrier_wait(&all_started);
    for (int i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&lock);
        counter += id + 1;
        pthread_mutex_unlock(&lock);
    }
    if (pthread_mutex_trylock(&mine) == 0)
        pthread_mutex_unlock(&mine);
    pthread_mutex_lock(&lock);
    done++;
    pthread_cond_broadcast(&all_done);
    pthread_mutex_unlock(&lock);
    return (void*)(id * 10);
}

int main(void)
{
    pthread_t threads[THREADS];
    pthread_barrier_init(&all_started, NULL, THREADS);
    for (long i = 0; i < THREADS; i++)
        if (pthread_create(&threads[i], NULL, worker, (void*)i) != 0)
            return 1;
    pthread_mutex_lock(&lock);
    while (done < THREADS)
        pthread_cond_wait(&all_done, &lock);
    long total = counter;
    pthread_mutex_unlock(&lock);
    for (int i = 0; i < THREADS; i++) {
        void* result;
        pthread_join(threads[i], &result);
        printf("thread %d returned %ld\n", i, (long)result);
    }
    printf("counter %ld\n", total);
    return 0;
}
