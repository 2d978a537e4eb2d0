/* For the programs of known lock waits (lockwait_known.c, rwlock_known.c):
 * wait until a thread of this process is blocked in a given lock, so that a
 * hold that starts then is all wait in that thread's lock call.
 *
 * A semaphore posted just before the call says only that the thread is
 * about to call it: on a loaded machine the thread may be off the CPU for
 * tens of milliseconds between its post and the call, and a hold timed from
 * the post is that much shorter than the wait it should make. Linux shows
 * a thread's current system call and its arguments in
 * /proc/self/task/<tid>/syscall: a thread blocked in a lock is in futex(2)
 * on a word inside the lock object. */
#ifndef BLOCKED_H
#define BLOCKED_H

#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static inline pid_t blocked_this_thread(void)
{
    return (pid_t)syscall(SYS_gettid);
}

/* 1: thread `tid` is in futex(2) on a word of [object, object + size);
 * 0: it is not (yet); -1: /proc cannot tell */
static inline int blocked_in(pid_t tid, const void* object, size_t size)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
    FILE* f = fopen(path, "r");
    if (f == NULL)
        return -1;
    int got = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    if (!got)
        return -1;
    long number;
    unsigned long long word;
    if (sscanf(line, "%ld %llx", &number, &word) != 2)
        return 0;   /* "running", or a number alone */
    int futex = number == SYS_futex;
#ifdef SYS_futex_time64
    futex |= number == SYS_futex_time64;
#endif
    uintptr_t start = (uintptr_t)object;
    return futex && word >= start && word < start + size;
}

/* Returns once thread `tid` is blocked in the lock at `object`; at once if
 * /proc cannot tell (the caller's semaphore is all there is then), after
 * 10 s at the latest (the test's figures say what went wrong then). */
static inline void wait_until_blocked_in(pid_t tid, const void* object, size_t size)
{
    const struct timespec poll = {0, 1000000L};
    for (int i = 0; i < 10000 && blocked_in(tid, object, size) == 0; i++)
        nanosleep(&poll, NULL);
}

#endif
