/* Threads, I/O and memory in one program, for the side-by-side comparison
 * with Score-P (bench/scorep_side_by_side): WORKERS threads each allocate a
 * block, fill it, write it to a file of their own with write(), read it
 * back with fread(), free it, and add what they read to a sum under a mutex.
 * The main thread keeps one allocation to the end (a leak the memory
 * recording reports). The workers take their turns one after another (a
 * spin on an atomic turn, which neither tool records), so that the heap
 * each allocation sees, and with it the high-water mark per call path, is
 * the same in every run; each waits for the last turn before it ends, so
 * that the three live at the same time and have a location each in both
 * tools. Prints the sum, which the measurement must not change.
 * Usage: workers [directory] */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WORKERS 3
#define BLOCK 4096

static const char* directory;
static pthread_mutex_t sum_lock = PTHREAD_MUTEX_INITIALIZER;
static long sum;
static long turn;

static void wait_for_turn(long me)
{
    while (__atomic_load_n(&turn, __ATOMIC_ACQUIRE) < me) sched_yield();
}

static long write_and_read(long me, const char* block, size_t size)
{
    char name[4096];
    snprintf(name, sizeof name, "%s/worker%ld.dat", directory, me);
    int fd = open(name, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    if (fd < 0 || write(fd, block, size) != (ssize_t)size || close(fd) != 0) exit(1);
    char* back = malloc(size);
    FILE* file = fopen(name, "r");
    if (back == NULL || file == NULL) exit(1);
    size_t got = fread(back, 1, size, file);
    fclose(file);
    long total = 0;
    for (size_t i = 0; i < got; i++) total += back[i];
    free(back);
    return total;
}

static void* work(void* arg)
{
    long me = (long)arg;
    wait_for_turn(me);
    size_t size = (size_t)(me + 1) * BLOCK;
    char* block = malloc(size);
    if (block == NULL) exit(1);
    memset(block, 'a' + (int)me, size);
    long total = write_and_read(me, block, size);
    free(block);
    pthread_mutex_lock(&sum_lock);
    sum += total;
    pthread_mutex_unlock(&sum_lock);
    __atomic_store_n(&turn, me + 1, __ATOMIC_RELEASE);
    wait_for_turn(WORKERS);
    return NULL;
}

int main(int argc, char** argv)
{
    directory = argc > 1 ? argv[1] : ".";
    char* kept = malloc(1000);   /* never freed */
    if (kept == NULL) return 1;
    pthread_t threads[WORKERS];
    for (long i = 0; i < WORKERS; i++)
        if (pthread_create(&threads[i], NULL, work, (void*)i) != 0) return 1;
    for (int i = 0; i < WORKERS; i++) pthread_join(threads[i], NULL);
    printf("sum %ld\n", sum);
    return 0;
}
