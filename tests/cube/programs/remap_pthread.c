/* POSIX threads calls of the three kinds Cube's derived metrics sort apart:
 * management (create, join), mutexes and condition variables. */
#include <pthread.h>
#include <stdio.h>

#define THREADS 3

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t arrived = PTHREAD_COND_INITIALIZER;
static int count;

static void* work(void* arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    count++;
    pthread_cond_signal(&arrived);
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(void)
{
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++) pthread_create(&threads[i], NULL, work, NULL);
    pthread_mutex_lock(&lock);
    while (count < THREADS) pthread_cond_wait(&arrived, &lock);
    pthread_mutex_unlock(&lock);
    for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
    printf("%d threads arrived\n", count);
    return 0;
}
