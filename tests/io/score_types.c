/* Regions of every system adapter and user functions around them, for
 * test_score_types.py (scorep-score's region types). Built with compiler
 * instrumentation and --io=posix --thread=pthread --memory:
 *   IO:      open 1, write SAVES, close 1 (on the main thread)
 *   PTHREAD: pthread_create 1, pthread_join 1 (the start routine is
 *            instrumented: its own region stands in for the adapter's)
 *   MEMORY:  malloc, free (the worker's; the C library may allocate more)
 *   COM:     main, save (lead to I/O), the worker's own region (leads to malloc)
 *   USR:     compute (leads to nothing of a paradigm) */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define SAVES 5
#define COMPUTES 10

static int __attribute__((noinline)) compute(int x)
{
    return x * x + 1;
}

static void __attribute__((noinline)) save(int fd, int value)
{
    (void)!write(fd, &value, sizeof value);
}

static void* worker(void* arg)
{
    int* block = malloc(64);
    if (block == NULL) return NULL;
    *block = compute(*(int*)arg);
    *(int*)arg = *block;
    free(block);
    return arg;
}

int main(int argc, char** argv)
{
    if (argc != 2) return 2;
    int fd = open(argv[1], O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0) return 1;
    int sum = 0;
    for (int i = 0; i < COMPUTES; i++) {
        sum += compute(i);
        if (i % (COMPUTES / SAVES) == 0) save(fd, sum);
    }
    pthread_t thread;
    int value = 3;
    if (pthread_create(&thread, NULL, worker, &value) != 0) return 1;
    pthread_join(thread, NULL);
    close(fd);
    printf("sum %d, worker %d\n", sum, value);
    return 0;
}
