/* Many small transfers of every kind the I/O adapters record, as a tool like
 * git makes them (tests/io/test_io_event_counts.py): the main thread writes
 * FILES files in chunks with write and reads them back with read, lseek and
 * pread; it moves bytes through a pipe (a descriptor without an I/O handle:
 * bytes but no I/O records), writes and reads a file with fwrite, fprintf,
 * fread and fgets, and completes one aio_write; THREADS threads, one after
 * the other, each read one of the files with pread into a block of their
 * own. Some transfers move no bytes (reads at the end of a file). The
 * program prints what it read. Argument: the directory to write in. */
#include <aio.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FILES 4
#define CHUNKS 8
#define CHUNK 64
#define THREADS 3

static const char* directory;
static long thread_bytes[THREADS];

static void path_of(char* out, size_t size, int i) { snprintf(out, size, "%s/file%d.dat", directory, i); }

static void* reader(void* arg)
{
    long me = (long)arg;
    char name[4096];
    path_of(name, sizeof name, (int)(me % FILES));
    char* block = malloc(CHUNK);
    int fd = open(name, O_RDONLY);
    long total = 0;
    ssize_t n;
    while ((n = pread(fd, block, CHUNK, total)) > 0)
        total += n;
    close(fd);
    free(block);
    thread_bytes[me] = total;
    return NULL;
}

int main(int argc, char** argv)
{
    directory = argc > 1 ? argv[1] : ".";
    char name[4096], chunk[CHUNK];
    long read_back = 0;
    for (int i = 0; i < FILES; i++) {
        path_of(name, sizeof name, i);
        memset(chunk, 'a' + i, sizeof chunk);
        int fd = open(name, O_CREAT | O_TRUNC | O_RDWR, 0600);
        for (int c = 0; c < CHUNKS; c++)
            if (write(fd, chunk, CHUNK) != CHUNK) return 1;
        lseek(fd, 0, SEEK_SET);
        ssize_t n;
        while ((n = read(fd, chunk, CHUNK)) > 0)   /* the last read moves nothing */
            read_back += n;
        read_back += pread(fd, chunk, 10, 5);
        close(fd);
    }

    int pipe_fds[2];
    if (pipe(pipe_fds) != 0) return 1;
    long piped = write(pipe_fds[1], "hello", 5);
    piped += read(pipe_fds[0], chunk, 5);
    close(pipe_fds[0]);
    close(pipe_fds[1]);

    snprintf(name, sizeof name, "%s/stream.txt", directory);
    FILE* f = fopen(name, "w");
    fwrite("0123456789", 1, 10, f);
    fprintf(f, "\nline %d\n", 2);
    fclose(f);
    f = fopen(name, "r");
    char line[64] = "";
    size_t got = fread(line, 1, 4, f);
    if (!fgets(line, sizeof line, f)) return 1;
    fclose(f);

    snprintf(name, sizeof name, "%s/aio.dat", directory);
    int fd = open(name, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    struct aiocb cb;
    memset(&cb, 0, sizeof cb);
    cb.aio_fildes = fd;
    cb.aio_buf = chunk;
    cb.aio_nbytes = 32;
    if (aio_write(&cb) != 0) return 1;
    const struct aiocb* list[1] = {&cb};
    while (aio_suspend(list, 1, NULL) != 0)   /* so that aio_error is called once, after the end */
        ;
    long aio_bytes = aio_error(&cb) == 0 ? aio_return(&cb) : -1;
    close(fd);

    for (long t = 0; t < THREADS; t++) {
        pthread_t thread;
        pthread_create(&thread, NULL, reader, (void*)t);
        pthread_join(thread, NULL);
    }
    long threads_read = 0;
    for (int t = 0; t < THREADS; t++)
        threads_read += thread_bytes[t];
    printf("read back %ld, piped %ld, stream %zu+%zu, aio %ld, threads %ld\n", read_back, piped, got,
           strlen(line), aio_bytes, threads_read);
    return 0;
}
