/* POSIX asynchronous I/O: the operations in flight and their events
 * (scorep_wrapgen/io_async.h; docs/IO_ADAPTER.md, "Asynchronous I/O").
 *
 * An aio operation begins in one call (aio_read, aio_write, lio_listio) and
 * ends in another (aio_return), perhaps on another thread: the table below
 * remembers, per aiocb, what its end needs (handle, direction, start). It is
 * shared by all threads, guarded by a spin lock held for a few loads and
 * stores (no pthread mutex: the thread adapter wraps those, and nothing here
 * may reach a wrapper). aio calls cost microseconds in the C library; a few
 * nanoseconds here do not show.
 *
 * Records, through the event layer (events.c: scorep_io_async_record,
 * scorep_io_async_complete): the trace's IoOperationBegin with NON_BLOCKING,
 * Issued, Test, Cancelled and, at the end, IoOperationComplete as for a
 * blocking transfer; the profile gets the bytes done at aio_return through
 * scorep_io_bytes (the region open then is aio_return's) and the file's
 * totals one transfer from submission to aio_return. Each event reads the
 * clock: it is not a region's enter or exit whose time it could take. */
#include <aio.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <time.h>

#include "internal.h"
#include "events.h"
#include "scorep_wrapgen/io_async.h"

/* operations in flight at once per process; beyond, an operation is not
 * recorded (no records, no bytes): its region is, as any call's */
#define AIO_SLOTS 1024

/* SCOREP_IO_TEST_AIO_LOCK_HOLD_US (test only): hold the table's lock this
 * long, so that a test's notification signals arrive while it is held; read
 * at the first use (-1 till then), after which a run without it pays one
 * predicted branch */
static void test_hold_lock(void)
{
    static long hold_us = -1;
    if (UNLIKELY(hold_us != 0)) scorep_test_hold("SCOREP_IO_TEST_AIO_LOCK_HOLD_US", &hold_us);
}

typedef struct aio_op {
    const void* aiocb;   /* NULL: a free slot */
    int fd;
    scorep_io_handle handle;
    scorep_io_operation mode;
    uint64_t began;
} aio_op;

static aio_op ops[AIO_SLOTS];
static int ops_lock;
/* The table is the measurement's work (substrate.h, "inside the
 * measurement"): aio_error and aio_return are async-signal-safe, and
 * programs collect completions in the handler of the aio's own notification
 * signal (SIGEV_SIGNAL). A handler that interrupts its thread's hold of the
 * lock passes through the wrappers unrecorded, so it never waits for the
 * lock (it would wait for ever); lock() refuses on a thread already inside
 * all the same. */
static int lock(int* was)
{
    if (scorep_inside()) return 0;
    *was = scorep_inside_begin();
    while (__atomic_exchange_n(&ops_lock, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&ops_lock, __ATOMIC_RELAXED))
            __builtin_ia32_pause();
    test_hold_lock();
    return 1;
}

static void unlock(int was)
{
    __atomic_store_n(&ops_lock, 0, __ATOMIC_RELEASE);
    scorep_inside_end(was);
}

static size_t slot_of(const void* aiocb)
{
    uintptr_t p = (uintptr_t)aiocb;
    return (size_t)((p >> 4) ^ (p >> 16)) & (AIO_SLOTS - 1);
}

/* the slot of aiocb, or of the free slot where it would go (lock held);
 * AIO_SLOTS: the table is full */
static size_t find(const void* aiocb)
{
    size_t i = slot_of(aiocb);
    for (size_t n = 0; n < AIO_SLOTS; n++, i = (i + 1) & (AIO_SLOTS - 1))
        if (ops[i].aiocb == aiocb || ops[i].aiocb == NULL)
            return i;
    return AIO_SLOTS;
}

/* empties slot i, moving later entries of its probe run back (linear
 * probing without tombstones; lock held) */
static void remove_at(size_t i)
{
    size_t j = i;
    for (;;) {
        ops[i].aiocb = NULL;
        for (;;) {
            j = (j + 1) & (AIO_SLOTS - 1);
            if (ops[j].aiocb == NULL)
                return;
            size_t home = slot_of(ops[j].aiocb);
            /* ops[j] may move to i unless its home lies cyclically in (i, j] */
            if (i <= j ? (home <= i || home > j) : (home <= i && home > j))
                break;
        }
        ops[i] = ops[j];
        i = j;
    }
}

/* the operation of aiocb, taken out of the table (0: none in flight) */
static int take(const void* aiocb, aio_op* op)
{
    int was;
    if (!lock(&was)) return 0;
    size_t i = find(aiocb);
    int found = i < AIO_SLOTS && ops[i].aiocb == aiocb;
    if (found) {
        *op = ops[i];
        remove_at(i);
    }
    unlock(was);
    return found;
}

static int lookup(const void* aiocb, aio_op* op)
{
    int was;
    if (!lock(&was)) return 0;
    size_t i = find(aiocb);
    int found = i < AIO_SLOTS && ops[i].aiocb == aiocb;
    if (found)
        *op = ops[i];
    unlock(was);
    return found;
}

static uint64_t matching_id(const void* aiocb) { return (uint64_t)(uintptr_t)aiocb; }

void scorep_io_aio_begin(const void* aiocb, int fd, scorep_io_handle handle, scorep_io_operation mode,
                         uint64_t bytes_request, int non_blocking)
{
    if (aiocb == NULL)
        return;
    aio_op op = {aiocb, fd, handle, mode, scorep_timer_now()};
    int was;
    if (!lock(&was)) return;
    size_t i = find(aiocb);
    /* an aiocb submitted again before its aio_return (which POSIX does not
     * allow) replaces its earlier operation, which then never ends */
    if (i < AIO_SLOTS)
        ops[i] = op;
    unlock(was);
    if (i < AIO_SLOTS && handle != SCOREP_INVALID_ID)
        scorep_io_async_record(op.began, non_blocking ? SCOREP_IO_ASYNC_BEGIN : SCOREP_IO_ASYNC_BEGIN_BLOCKING,
                              handle, mode, bytes_request, matching_id(aiocb));
}

void scorep_io_aio_issued(const void* aiocb, int queued)
{
    aio_op op;
    if (!(queued ? lookup(aiocb, &op) : take(aiocb, &op)) || op.handle == SCOREP_INVALID_ID)
        return;
    if (queued)
        scorep_io_async_record(scorep_timer_now(), SCOREP_IO_ASYNC_ISSUED, op.handle, op.mode, 0, matching_id(aiocb));
    else
        scorep_io_async_complete(op.handle, op.mode, op.began, 0, matching_id(aiocb));
}

void scorep_io_aio_test(const void* aiocb)
{
    aio_op op;
    if (lookup(aiocb, &op) && op.handle != SCOREP_INVALID_ID)
        scorep_io_async_record(scorep_timer_now(), SCOREP_IO_ASYNC_TEST, op.handle, op.mode, 0, matching_id(aiocb));
}

void scorep_io_aio_return(const void* aiocb, int64_t result)
{
    aio_op op;
    if (!take(aiocb, &op))
        return;
    uint64_t bytes = result > 0 ? (uint64_t)result : 0;
    /* the profile's bytes: aio_return's region */
    if (bytes)
        scorep_io_bytes(op.mode == SCOREP_IO_OP_READ ? bytes : 0, op.mode == SCOREP_IO_OP_READ ? 0 : bytes);
    if (op.handle != SCOREP_INVALID_ID)
        scorep_io_async_complete(op.handle, op.mode, op.began, bytes, matching_id(aiocb));
}

/* aio_error of an operation still in flight: the C library's (a call from
 * here reaches the run-time wrapper, which passes it on inside aio_cancel's
 * recorded call) */
static int cancelled(const void* aiocb) { return aio_error((const struct aiocb*)aiocb) == ECANCELED; }

void scorep_io_aio_cancelled(int fd, const void* aiocb)
{
    /* the candidates first, then their status: a call into the C library,
     * not made with the lock held (8 KiB of stack, aio_cancel is rare) */
    const void* candidates[AIO_SLOTS];
    size_t n = 0;
    int was;
    if (!lock(&was)) return;
    for (size_t i = 0; i < AIO_SLOTS; i++)
        if (ops[i].aiocb != NULL && (aiocb != NULL ? ops[i].aiocb == aiocb : ops[i].fd == fd))
            candidates[n++] = ops[i].aiocb;
    unlock(was);
    for (size_t c = 0; c < n; c++) {
        aio_op op;
        if (cancelled(candidates[c]) && take(candidates[c], &op) && op.handle != SCOREP_INVALID_ID)
            scorep_io_async_record(scorep_timer_now(), SCOREP_IO_ASYNC_CANCELLED, op.handle, op.mode, 0,
                                  matching_id(op.aiocb));
    }
}
