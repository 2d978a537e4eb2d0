/* POSIX asynchronous I/O of known calls and bytes (tests/io/test_posix_aio.py):
 * on a file aio.dat, aio_write 1000 bytes, aio_read 600, lio_listio(LIO_WAIT)
 * of a write of 300 and a read of 100 (and a LIO_NOP entry), lio_listio(LIO_NOWAIT)
 * of a write of 50, an aio_fsync; on a FIFO aio.fifo (opened read-write, so
 * reads wait for data and never see an end of file) two aio_reads of 10:
 * the first waits for data, so the C library queues the second behind it
 * (one request per descriptor at a time) and aio_cancel cancels it; an
 * aio_error of the first before the data comes sees EINPROGRESS; then a
 * write of 10 bytes completes the first. Every operation but those two is
 * waited for with aio_suspend before its aio_error and aio_return, so the
 * calls are the same in every run. Last, an aio_write of 5 bytes into a pipe
 * (a descriptor without an I/O handle: no operation records, only the bytes)
 * read back with read(). The output: what the calls returned. */
#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char data[1000], back[1000], fifo_in[10];

static void wait_for(struct aiocb* cb)
{
    const struct aiocb* list[1] = {cb};
    while (aio_suspend(list, 1, NULL) != 0)
        if (errno != EINTR && errno != EAGAIN) {
            perror("aio_suspend");
            exit(1);
        }
}

/* the operation's status and result once it is done */
static long finish(struct aiocb* cb, const char* what)
{
    int status = aio_error(cb);
    long result = (long)aio_return(cb);
    printf("%s: status %d, result %ld\n", what, status, result);
    return result;
}

static struct aiocb request(int fd, void* buf, size_t bytes, off_t offset, int opcode)
{
    struct aiocb cb;
    memset(&cb, 0, sizeof cb);
    cb.aio_fildes = fd;
    cb.aio_buf = buf;
    cb.aio_nbytes = bytes;
    cb.aio_offset = offset;
    cb.aio_lio_opcode = opcode;
    return cb;
}

int main(void)
{
    memset(data, 'a', sizeof data);
    int fd = open("aio.dat", O_CREAT | O_RDWR | O_TRUNC, 0644);
    if (fd < 0) {
        perror("open aio.dat");
        return 1;
    }
    long written = 0, read_back = 0;

    struct aiocb w1 = request(fd, data, 1000, 0, LIO_NOP);
    if (aio_write(&w1) != 0) { perror("aio_write"); return 1; }
    wait_for(&w1);
    written += finish(&w1, "aio_write 1000");

    struct aiocb r1 = request(fd, back, 600, 200, LIO_NOP);
    if (aio_read(&r1) != 0) { perror("aio_read"); return 1; }
    wait_for(&r1);
    read_back += finish(&r1, "aio_read 600");

    struct aiocb w2 = request(fd, data, 300, 1000, LIO_WRITE), r2 = request(fd, back, 100, 0, LIO_READ),
                 nop = request(fd, NULL, 0, 0, LIO_NOP);
    struct aiocb* wait_list[3] = {&w2, &r2, &nop};
    if (lio_listio(LIO_WAIT, wait_list, 3, NULL) != 0) { perror("lio_listio"); return 1; }
    written += finish(&w2, "lio_listio LIO_WAIT write 300");
    read_back += finish(&r2, "lio_listio LIO_WAIT read 100");

    struct aiocb w3 = request(fd, data, 50, 1300, LIO_WRITE);
    struct aiocb* nowait_list[1] = {&w3};
    if (lio_listio(LIO_NOWAIT, nowait_list, 1, NULL) != 0) { perror("lio_listio"); return 1; }
    wait_for(&w3);
    written += finish(&w3, "lio_listio LIO_NOWAIT write 50");

    struct aiocb fs = request(fd, NULL, 0, 0, LIO_NOP);
    if (aio_fsync(O_SYNC, &fs) != 0) { perror("aio_fsync"); return 1; }
    wait_for(&fs);
    finish(&fs, "aio_fsync");

    unlink("aio.fifo");
    if (mkfifo("aio.fifo", 0600) != 0) { perror("mkfifo"); return 1; }
    int ff = open("aio.fifo", O_RDWR);
    if (ff < 0) { perror("open aio.fifo"); return 1; }
    char b_buf[10];
    struct aiocb a = request(ff, fifo_in, 10, 0, LIO_NOP), b = request(ff, b_buf, 10, 0, LIO_NOP);
    if (aio_read(&a) != 0 || aio_read(&b) != 0) { perror("aio_read fifo"); return 1; }
    printf("first fifo read before data: %s\n", aio_error(&a) == EINPROGRESS ? "in progress" : "done");
    int c = aio_cancel(ff, &b);
    printf("aio_cancel of the second: %s\n", c == AIO_CANCELED ? "cancelled" : "not cancelled");
    if (write(ff, "0123456789", 10) != 10) { perror("write fifo"); return 1; }
    wait_for(&a);
    read_back += finish(&a, "fifo aio_read 10");
    finish(&b, "fifo aio_read cancelled");

    int pipe_fds[2];
    char piped[5];
    if (pipe(pipe_fds) != 0) { perror("pipe"); return 1; }
    struct aiocb pw = request(pipe_fds[1], "piped", 5, 0, LIO_NOP);
    if (aio_write(&pw) != 0) { perror("aio_write pipe"); return 1; }
    wait_for(&pw);
    written += finish(&pw, "pipe aio_write 5");
    if (read(pipe_fds[0], piped, 5) != 5) { perror("read pipe"); return 1; }

    close(ff);
    close(fd);
    unlink("aio.fifo");
    struct stat st;
    stat("aio.dat", &st);
    printf("written %ld, read %ld, file size %lld, fifo data %.10s\n", written, read_back, (long long)st.st_size,
           fifo_in);
    return 0;
}
