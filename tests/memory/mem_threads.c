/* Four threads allocating and freeing at the same time (tests/memory/
 * test_memory.py): thread i makes ROUNDS malloc/free pairs of 16 * (i + 1)
 * bytes, then leaks one block of 1000 + i bytes. No thread ends before all
 * have allocated: the measurement gives an ended thread's location to the
 * next new thread, and the test wants each thread's figures on its own. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 4
#define ROUNDS 2000

static pthread_barrier_t all_allocated;

static __attribute__((noinline)) void touch(void* p, size_t n) { memset(p, 1, n); }

static void* worker(void* arg)
{
    size_t i = (size_t)arg;
    for (int k = 0; k < ROUNDS; k++) {
        void* p = malloc(16 * (i + 1));
        touch(p, 16 * (i + 1));
        free(p);
    }
    void* kept = malloc(1000 + i);
    touch(kept, 1000 + i);
    pthread_barrier_wait(&all_allocated);
    return kept;
}

int main(void)
{
    static char out[4096];
    setvbuf(stdout, out, _IOFBF, sizeof out);
    pthread_t t[THREADS];
    pthread_barrier_init(&all_allocated, NULL, THREADS);
    for (size_t i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, worker, (void*)i);
    for (size_t i = 0; i < THREADS; i++) {
        void* kept;
        pthread_join(t[i], &kept);
        printf("thread %zu kept %s\n", i, kept ? "a block" : "nothing");
    }
    return 0;
}
