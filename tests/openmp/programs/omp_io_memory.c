/* I/O and allocations inside a parallel region: every thread writes
 * WRITES blocks of BLOCK bytes to a file of its own with write(2) and
 * allocates and frees ALLOCS blocks of its thread number's size plus one
 * kilobyte. Prints the bytes each thread wrote, as the file sizes say. */
#include <fcntl.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WRITES 12
#define BLOCK 4096
#define ALLOCS 20

int main(int argc, char** argv)
{
    const char* dir = argc > 1 ? argv[1] : ".";
    long written[64] = {0};
    int threads = 1;
#pragma omp parallel
    {
        int me = omp_get_thread_num();
#pragma omp single
        threads = omp_get_num_threads();
        char path[4096], block[BLOCK];
        memset(block, 'a' + me, sizeof block);
        snprintf(path, sizeof path, "%s/thread%d.out", dir, me);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        for (int i = 0; i < WRITES && fd >= 0; i++)
            if (write(fd, block, sizeof block) == (ssize_t)sizeof block) written[me] += BLOCK;
        if (fd >= 0) close(fd);
        for (int i = 0; i < ALLOCS; i++) {
            volatile char* p = malloc(1024 + (size_t)me);
            if (p) p[0] = 1;
            free((void*)p);
        }
    }
    for (int t = 0; t < threads; t++) {
        struct stat st;
        char path[4096];
        snprintf(path, sizeof path, "%s/thread%d.out", dir, t);
        printf("thread %d wrote %ld bytes, file %ld\n", t, written[t], stat(path, &st) == 0 ? (long)st.st_size : -1L);
    }
    return 0;
}
