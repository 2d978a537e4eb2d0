/* An I/O program of known behaviour (tests/io/test_posix_io.py): in
 * write_file, writes CHUNKS chunks of CHUNK bytes to a new file, the first
 * CHUNKS-1 with write(), the last with pwrite(), seeks to the end and writes
 * 7 bytes more with writev() of two pieces; in read_file, reads the file back
 * with read() in READS calls plus one read() at its end (0 bytes) and 4 bytes
 * with pread(), closes it, and then fails a read() and a close() of the closed
 * descriptor (EBADF: errno must be the C library's, and no bytes); prints
 * what it read so that its output shows any change.
 * Every call is checked: a failed call ends the program with exit code 1. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define CHUNK 100
#define CHUNKS 7
#define READS 4

static void check(int ok, const char* what)
{
    if (!ok) {
        perror(what);
        exit(1);
    }
}

static char data[CHUNK * CHUNKS + 7];
/* values the compiler cannot fold: built with -D_FORTIFY_SOURCE=2 -O2, the
 * calls that use them become __open_2, __read_chk and __pread_chk */
static volatile int read_only = O_RDONLY, one = 1, four = 4;

static __attribute__((noinline)) void write_file(const char* path)
{
    char chunk[CHUNK];
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    check(fd >= 0, "open for writing");
    for (int i = 0; i < CHUNKS - 1; i++) {
        memset(chunk, 'a' + i, sizeof chunk);
        check(write(fd, chunk, sizeof chunk) == CHUNK, "write");
    }
    memset(chunk, 'a' + CHUNKS - 1, sizeof chunk);
    check(pwrite(fd, chunk, sizeof chunk, (off_t)(CHUNK * (CHUNKS - 1))) == CHUNK, "pwrite");
    check(lseek(fd, 0, SEEK_END) == CHUNK * CHUNKS, "lseek");
    char head[] = "vec", tail[] = "tor\n";
    struct iovec iov[2] = {{head, 3}, {tail, 4}};
    check(writev(fd, iov, 2) == 7, "writev");
    check(close(fd) == 0, "close");
}

static __attribute__((noinline)) void read_file(const char* path)
{
    int fd = open(path, read_only);
    check(fd >= 0, "open for reading");
    size_t each = sizeof data / READS + 1, got = 0;
    for (int i = 0; i < READS; i++) {
        ssize_t n = read(fd, data + got, each);
        check(n > 0, "read");
        got += (size_t)n;
    }
    char first[5] = {0};
    check(read(fd, first, (size_t)one) == 0, "read at the end");
    check(pread(fd, first, (size_t)four, 0) == 4, "pread");
    check(close(fd) == 0, "close");
    check(read(fd, first, 1) == -1 && errno == EBADF, "read of a closed descriptor");
    check(close(fd) == -1 && errno == EBADF, "close of a closed descriptor");
    printf("read %zu bytes, first %s, chunk 6 starts with %c, ends with %.7s", got, first, data[CHUNK * 6],
           data + CHUNK * CHUNKS);
}

int main(int argc, char** argv)
{
    const char* path = argc > 1 ? argv[1] : "io_known.dat";
    write_file(path);
    read_file(path);
    return 0;
}
