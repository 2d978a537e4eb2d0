/* Threads started one after another, as servers and runtimes start them
 * (tests/threads_adapter/test_pthread_thread_reuse.py): REQUESTS threads one
 * at a time (a thread per request), then a pool of POOL workers made and
 * joined ROUNDS times (a pool re-created for each phase of the work). Each
 * thread allocates a block it frees itself and one it keeps in thread-local
 * storage, freed by a pthread key destructor when the thread ends (as the C
 * library, Python and OpenMP runtimes free their per-thread state); the
 * pool's workers meet at a barrier, so POOL of them run at once. Every
 * thread adds its number to a sum the program prints. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REQUESTS 200
#define POOL 4
#define ROUNDS 50
#define BLOCK 100
#define KEPT 48

static pthread_key_t state_key;
static pthread_barrier_t barrier;
static pthread_mutex_t sum_lock = PTHREAD_MUTEX_INITIALIZER;
static long sum;

static void drop_state(void* state) { free(state); }

static void add(long number)
{
    /* a block of its own, written and read so that it is not optimised away */
    char* volatile block = malloc(BLOCK);
    memset(block, (int)(number & 0x7f), BLOCK);
    long value = block[BLOCK - 1] == (char)(number & 0x7f) ? number : -1;
    free(block);
    pthread_setspecific(state_key, malloc(KEPT));
    pthread_mutex_lock(&sum_lock);
    sum += value;
    pthread_mutex_unlock(&sum_lock);
}

static void* request(void* arg)
{
    add((long)arg);
    return NULL;
}

static void* pool_worker(void* arg)
{
    pthread_barrier_wait(&barrier);
    add((long)arg);
    return NULL;
}

int main(void)
{
    pthread_key_create(&state_key, drop_state);
    long number = 0, expected = 0;
    for (int i = 0; i < REQUESTS; i++) {
        pthread_t thread;
        number++;
        expected += number;
        if (pthread_create(&thread, NULL, request, (void*)number) != 0) return 1;
        pthread_join(thread, NULL);
    }
    pthread_barrier_init(&barrier, NULL, POOL);
    for (int round = 0; round < ROUNDS; round++) {
        pthread_t pool[POOL];
        for (int w = 0; w < POOL; w++) {
            number++;
            expected += number;
            if (pthread_create(&pool[w], NULL, pool_worker, (void*)number) != 0) return 1;
        }
        for (int w = 0; w < POOL; w++)
            pthread_join(pool[w], NULL);
    }
    pthread_barrier_destroy(&barrier);
    printf("%ld threads, sum %ld: %s\n", number, sum, sum == expected ? "ok" : "WRONG");
    return 0;
}
