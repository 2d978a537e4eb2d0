/* Duplicated descriptors of known I/O (tests/io/test_io_dup.py): file A is
 * written through the descriptor open gave it and through five duplicates
 * (dup, fcntl F_DUPFD, fcntl F_DUPFD_CLOEXEC, dup2, dup3 O_CLOEXEC), then
 * read back through a dup of a descriptor already closed; stdout is
 * redirected to file B with dup2 and restored from its own dup; a pipe's
 * dup has no file. Usage: dup_known A B. Prints its own counts. */
#define _GNU_SOURCE   /* dup3 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void put(int fd, const char* text) { (void)!write(fd, text, strlen(text)); }

int main(int argc, char** argv)
{
    if (argc != 3) return 2;
    char buf[600];
    memset(buf, 'x', sizeof buf);
    long a_written = 0, a_read = 0, b_written = 0;
    put(1, "start\n");

    int fd = open(argv[1], O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0) return 1;
    a_written += write(fd, buf, 100);
    int d1 = dup(fd);
    a_written += write(d1, buf, 200);
    int d2 = fcntl(fd, F_DUPFD, 10);
    a_written += write(d2, buf, 300);
    int d3 = fcntl(fd, F_DUPFD_CLOEXEC, 20);
    a_written += write(d3, buf, 400);
    if (dup2(fd, 30) != 30 || dup3(fd, 31, O_CLOEXEC) != 31) return 1;
    a_written += write(30, buf, 500);
    a_written += write(31, buf, 600);
    /* not duplications: the region only; no argument, and a pointer the
     * C library must get unchanged (F_GETLK writes through it) */
    if ((fcntl(fd, F_GETFD) & FD_CLOEXEC) || !(fcntl(d3, F_GETFD) & FD_CLOEXEC)) return 1;
    struct flock lock = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if (fcntl(fd, F_SETLK, &lock) != 0) return 1;
    lock.l_type = F_RDLCK;
    if (fcntl(fd, F_GETLK, &lock) != 0 || lock.l_type != F_UNLCK) return 1;   /* our own lock: no conflict */
    close(d1), close(d2), close(d3), close(30), close(31), close(fd);

    /* stdout into B, and back */
    int saved = dup(1);
    int fb = open(argv[2], O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (saved < 0 || fb < 0 || dup2(fb, 1) != 1) return 1;
    close(fb);
    b_written += write(1, "into b\n", 7);
    if (dup2(saved, 1) != 1) return 1;
    close(saved);

    /* A read back through a duplicate that outlives its original */
    int r = open(argv[1], O_RDONLY);
    int rd = dup(r);
    close(r);
    ssize_t n;
    while ((n = read(rd, buf, sizeof buf)) > 0)
        a_read += n;
    close(rd);

    /* a pipe: no file, so its duplicate has no handle either */
    int p[2];
    if (pipe(p) != 0) return 1;
    int pd = dup(p[1]);
    (void)!write(pd, "p", 1);
    (void)!read(p[0], buf, 1);
    close(pd), close(p[0]), close(p[1]);

    char line[128];
    snprintf(line, sizeof line, "A %ld %ld\nB 0 %ld\n", a_read, a_written, b_written);
    put(1, line);
    return 0;
}
