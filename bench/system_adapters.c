/* The bench program of bench/system_adapters: N calls of one system call
 * the system adapters wrap, timed around the loop (clock_gettime), built
 * plainly and with scorep --io=posix / --thread=pthread by the bench command.
 *
 *   system_adapters write N     N write(fd, buf, 8) to /dev/null
 *   system_adapters mutex N     N pthread_mutex_lock + unlock pairs
 *   system_adapters malloc N    N malloc(64) + free pairs
 *
 * Prints "ns_per_call <ns>" and "done <count>" (what the calls returned,
 * summed: the same with and without measurement). */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char** argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s write|mutex|malloc N\n", argv[0]);
        return 2;
    }
    long calls = atol(argv[2]);
    long done = 0;
    double t0, t1;
    if (strcmp(argv[1], "write") == 0) {
        /* opened through the wrapper: the descriptor has a handle, so the
         * trace gets the I/O operation records of a real file's transfer */
        int fd = open("/dev/null", O_WRONLY);
        if (fd < 0) {
            perror("/dev/null");
            return 1;
        }
        static const char buf[8] = "01234567";
        for (long i = 0; i < calls / 100; i++) done += write(fd, buf, 8);   /* warm up */
        t0 = now_ns();
        for (long i = 0; i < calls; i++) done += write(fd, buf, 8);
        t1 = now_ns();
        close(fd);
    } else if (strcmp(argv[1], "mutex") == 0) {
        static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
        for (long i = 0; i < calls / 100; i++) {
            done += pthread_mutex_lock(&mutex) == 0;
            pthread_mutex_unlock(&mutex);
        }
        t0 = now_ns();
        for (long i = 0; i < calls; i++) {
            done += pthread_mutex_lock(&mutex) == 0;
            pthread_mutex_unlock(&mutex);
        }
        t1 = now_ns();
    } else if (strcmp(argv[1], "malloc") == 0) {
        /* the block escapes through a volatile: the compiler may not drop
         * the pair */
        static void* volatile sink;
        for (long i = 0; i < calls / 100; i++) {
            sink = malloc(64);
            done += sink != NULL;
            free(sink);
        }
        t0 = now_ns();
        for (long i = 0; i < calls; i++) {
            sink = malloc(64);
            done += sink != NULL;
            free(sink);
        }
        t1 = now_ns();
    } else {
        fprintf(stderr, "%s: unknown kind %s (write, mutex or malloc)\n", argv[0], argv[1]);
        return 2;
    }
    printf("ns_per_call %.3f\ndone %ld\n", (t1 - t0) / calls, done);
    return 0;
}
