/* aio with signal notification: each completed aio_write raises SIGRTMIN
 * (queued: none is lost), whose handler collects it with aio_error and
 * aio_return (both async-signal-safe), while the main thread goes on
 * submitting and polling. Prints how many it collected, and their bytes. */
#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define N 500
static struct aiocb cbs[N];
static volatile sig_atomic_t collected;
static volatile long bytes;

static void on_done(int sig, siginfo_t* info, void* ctx)
{
    (void)sig; (void)ctx;
    struct aiocb* cb = info->si_value.sival_ptr;
    if (aio_error(cb) == 0) {
        bytes += aio_return(cb);
        collected++;
    }
}

int main(int argc, char** argv)
{
    if (argc != 2) return 2;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_done;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(SIGRTMIN, &sa, NULL);
    int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    static char data[N][16];
    for (int i = 0; i < N; i++) {
        memset(data[i], 'a' + i % 26, sizeof data[i]);
        cbs[i].aio_fildes = fd;
        cbs[i].aio_buf = data[i];
        cbs[i].aio_nbytes = sizeof data[i];
        cbs[i].aio_offset = (off_t)i * (off_t)sizeof data[i];
        cbs[i].aio_sigevent.sigev_notify = SIGEV_SIGNAL;
        cbs[i].aio_sigevent.sigev_signo = SIGRTMIN;
        cbs[i].aio_sigevent.sigev_value.sival_ptr = &cbs[i];
        while (aio_write(&cbs[i]) != 0 && errno == EAGAIN) usleep(100);
        /* the main thread polls too: its calls into the table meet the handler's */
        for (int j = i > 8 ? i - 8 : 0; j < i; j++) (void)aio_error(&cbs[j]);
    }
    /* and polls while the rest completes: the handler runs inside these calls */
    for (long k = 0; collected < N && k < 200000000L; k++) (void)aio_error(&cbs[k % N]);
    printf("collected %d, %ld bytes\n", (int)collected, bytes);
    return 0;
}
