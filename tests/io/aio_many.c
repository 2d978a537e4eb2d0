/* Many POSIX aio operations in flight at once, completed out of order and
 * on two threads (tests/io/test_posix_aio.py): OPS aio_writes of 1, 2, ...,
 * OPS bytes at distinct offsets of aio_many.dat, all submitted before any is
 * waited for; a second thread completes (aio_suspend, aio_return) the odd
 * ones from the last down, the main thread the even ones from the first up.
 * The output: the bytes each thread's aio_return calls returned. */
#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OPS 500

static struct aiocb ops[OPS];
static char data[OPS];

static long complete(int i)
{
    const struct aiocb* list[1] = {&ops[i]};
    while (aio_suspend(list, 1, NULL) != 0)
        if (errno != EINTR && errno != EAGAIN) {
            perror("aio_suspend");
            exit(1);
        }
    return (long)aio_return(&ops[i]);
}

static void* odd_ones(void* arg)
{
    long* bytes = arg;
    for (int i = OPS - 1; i >= 0; i--)
        if (i % 2)
            *bytes += complete(i);
    return NULL;
}

int main(void)
{
    memset(data, 'x', sizeof data);
    int fd = open("aio_many.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0) { perror("open"); return 1; }
    for (int i = 0; i < OPS; i++) {
        ops[i].aio_fildes = fd;
        ops[i].aio_buf = data;
        ops[i].aio_nbytes = (size_t)i + 1;
        ops[i].aio_offset = (off_t)i * OPS;
        if (aio_write(&ops[i]) != 0) { perror("aio_write"); return 1; }
    }
    long even = 0, odd = 0;
    pthread_t thread;
    pthread_create(&thread, NULL, odd_ones, &odd);
    for (int i = 0; i < OPS; i += 2)
        even += complete(i);
    pthread_join(thread, NULL);
    close(fd);
    printf("main thread %ld bytes, second thread %ld bytes\n", even, odd);
    return 0;
}
