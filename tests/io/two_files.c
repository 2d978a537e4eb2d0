/* Known bytes to and from two files (tests/io/test_io_files.py).
 * File A (argv[1]), on the main thread, with POSIX calls: A_WRITES write()s
 * of A_CHUNK bytes and one pwrite() of A_TAIL bytes at the end, then read
 * back with read()s of A_READ bytes until one returns 0.
 * File B (argv[2]), on a second thread, with ISO C calls: B_WRITES fwrite()s
 * of B_CHUNK bytes and one fputs(), then read back with fread()s of B_READ
 * bytes until one returns 0; then, on the main thread, read once more with
 * POSIX read()s of B_READ bytes until one returns 0 (the same file in both
 * paradigms: one file in the per-file figures).
 * It counts its own transfers and bytes per file and prints them: the test's
 * oracle besides the files' sizes on disk. Every call is checked. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define A_CHUNK 1000
#define A_WRITES 3
#define A_TAIL 24
#define A_READ 512
#define B_CHUNK 333
#define B_WRITES 5
#define B_READ 1000

static void check(int ok, const char* what)
{
    if (!ok) {
        perror(what);
        exit(1);
    }
}

typedef struct counts {
    unsigned long transfers, bytes_read, bytes_written;
} counts;

static counts a, b;
static char buffer[4096];

static void* file_b(void* path)
{
    static char chunk[B_CHUNK];
    memset(chunk, 'b', sizeof chunk);
    FILE* f = fopen(path, "w");
    check(f != NULL, "fopen for writing");
    for (int i = 0; i < B_WRITES; i++) {
        check(fwrite(chunk, 1, sizeof chunk, f) == sizeof chunk, "fwrite");
        b.transfers++, b.bytes_written += sizeof chunk;
    }
    check(fputs("the end of file B\n", f) >= 0, "fputs");
    b.transfers++, b.bytes_written += strlen("the end of file B\n");
    check(fclose(f) == 0, "fclose");
    f = fopen(path, "r");
    check(f != NULL, "fopen for reading");
    size_t n;
    do {
        static char in[B_READ];
        n = fread(in, 1, sizeof in, f);
        b.transfers++, b.bytes_read += n;
    } while (n > 0);
    check(fclose(f) == 0, "fclose");
    return NULL;
}

int main(int argc, char** argv)
{
    check(argc == 3, "usage: two_files A B");
    int fd = open(argv[1], O_CREAT | O_TRUNC | O_RDWR, 0600);
    check(fd >= 0, "open A");
    memset(buffer, 'a', sizeof buffer);
    for (int i = 0; i < A_WRITES; i++) {
        check(write(fd, buffer, A_CHUNK) == A_CHUNK, "write");
        a.transfers++, a.bytes_written += A_CHUNK;
    }
    check(pwrite(fd, buffer, A_TAIL, A_CHUNK * A_WRITES) == A_TAIL, "pwrite");
    a.transfers++, a.bytes_written += A_TAIL;
    check(close(fd) == 0, "close A");

    pthread_t thread;
    check(pthread_create(&thread, NULL, file_b, argv[2]) == 0, "pthread_create");
    check(pthread_join(thread, NULL) == 0, "pthread_join");

    fd = open(argv[1], O_RDONLY);
    check(fd >= 0, "open A for reading");
    ssize_t n;
    do {
        n = read(fd, buffer, A_READ);
        check(n >= 0, "read A");
        a.transfers++, a.bytes_read += (unsigned long)n;
    } while (n > 0);
    check(close(fd) == 0, "close A");
    fd = open(argv[2], O_RDONLY);
    check(fd >= 0, "open B for reading");
    do {
        n = read(fd, buffer, B_READ);
        check(n >= 0, "read B");
        b.transfers++, b.bytes_read += (unsigned long)n;
    } while (n > 0);
    check(close(fd) == 0, "close B");

    printf("A %lu %lu %lu\n", a.transfers, a.bytes_read, a.bytes_written);
    printf("B %lu %lu %lu\n", b.transfers, b.bytes_read, b.bytes_written);
    return 0;
}
