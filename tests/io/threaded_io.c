/* POSIX I/O on threads (tests/io/test_posix_io.py): THREADS threads each
 * write WRITES blocks of (thread index + 1) * 10 bytes to a file of their own
 * and read it back in one pread(); the main thread waits for them and prints
 * the bytes every thread read. The threads live at the same time (a barrier
 * after their I/O): the core reuses the location of a thread that ended. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define THREADS 3
#define WRITES 5

static const char* directory;
static long got[THREADS];
static pthread_barrier_t all_done;

static void* work(void* arg)
{
    long me = (long)arg;
    char name[4096], block[40], back[WRITES * 40];
    snprintf(name, sizeof name, "%s/thread%ld.dat", directory, me);
    size_t size = (size_t)(me + 1) * 10;
    memset(block, 'a' + (int)me, sizeof block);
    int fd = open(name, O_CREAT | O_TRUNC | O_RDWR, 0600);
    if (fd < 0) exit(1);
    for (int i = 0; i < WRITES; i++)
        if (write(fd, block, size) != (ssize_t)size) exit(1);
    got[me] = pread(fd, back, sizeof back, 0);
    close(fd);
    pthread_barrier_wait(&all_done);
    return NULL;
}

int main(int argc, char** argv)
{
    directory = argc > 1 ? argv[1] : ".";
    pthread_t threads[THREADS];
    pthread_barrier_init(&all_done, NULL, THREADS);
    for (long i = 0; i < THREADS; i++)
        if (pthread_create(&threads[i], NULL, work, (void*)i) != 0) return 1;
    for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
    for (int i = 0; i < THREADS; i++) printf("thread %d read %ld bytes\n", i, got[i]);
    return 0;
}
