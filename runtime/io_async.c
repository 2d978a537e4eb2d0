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
 * Records: the substrates' io_operation_async callback (the trace:
 * IoOperationBegin with NON_BLOCKING, Issued, Test, Cancelled) and, at the
 * end, io_operation_complete as for a blocking transfer; the profile gets
 * the bytes done at aio_return through scorep_io_bytes (the region open then
 * is aio_return's) and the file's totals one transfer
 * (scorep_io_files_transfer). Each event reads the clock: it is not a
 * region's enter or exit whose time it could take. */
#include <aio.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <time.h>

#include "internal.h"
#include "scorep_wrapgen/io_async.h"
#include "timer.h"

/* operations in flight at once per process; beyond, an operation is not
 * recorded (no records, no bytes): its region is, as any call's */
#define AIO_SLOTS 1024

/* SCOREP_IO_TEST_AIO_LOCK_HOLD_US (test only): hold the table's lock this
 * long, so that a test's notification signals arrive while it is held */
static void test_hold_lock(void)
{
    static long hold_us = -1;
    if (hold_us < 0) {
        const char* v = getenv("SCOREP_IO_TEST_AIO_LOCK_HOLD_US");
        hold_us = v ? strtol(v, NULL, 10) : 0;
    }
    if (hold_us > 0) {
        struct timespec pause = {hold_us / 1000000, (hold_us % 1000000) * 1000};
        nanosleep(&pause, NULL);
    }
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
/* This thread is taking or holds ops_lock. aio_error and aio_return are
 * async-signal-safe, and programs collect completions in the handler of
 * the aio's own notification signal (SIGEV_SIGNAL): a handler that
 * interrupts its thread's hold of the lock must not wait for it (it would
 * wait for ever); it leaves the table alone instead, and that operation's
 * records and bytes are not written. */
static __thread int holding __attribute__((tls_model("initial-exec")));

static int lock(void)
{
    if (holding) return 0;
    holding = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    while (__atomic_exchange_n(&ops_lock, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&ops_lock, __ATOMIC_RELAXED))
            __builtin_ia32_pause();
    test_hold_lock();
    return 1;
}

static void unlock(void)
{
    __atomic_store_n(&ops_lock, 0, __ATOMIC_RELEASE);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    holding = 0;
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
    if (!lock()) return 0;
    size_t i = find(aiocb);
    int found = i < AIO_SLOTS && ops[i].aiocb == aiocb;
    if (found) {
        *op = ops[i];
        remove_at(i);
    }
    unlock();
    return found;
}

static int lookup(const void* aiocb, aio_op* op)
{
    if (!lock()) return 0;
    size_t i = find(aiocb);
    int found = i < AIO_SLOTS && ops[i].aiocb == aiocb;
    if (found)
        *op = ops[i];
    unlock();
    return found;
}

/* The calling thread's location while the measurement records, else NULL. */
static scorep_location* here(void)
{
    if (!scorep_events_recording)
        return NULL;
    return scorep_tls_location ? scorep_tls_location : scorep_location_create_for_thread();
}

/* the event's time: the clock, never before the location's last event */
static uint64_t stamp(scorep_location* loc)
{
    uint64_t t = scorep_timer_read();
    if (t < loc->last_ticks)
        t = loc->last_ticks;
    loc->last_ticks = t;
    return t;
}

static uint64_t matching_id(const void* aiocb) { return (uint64_t)(uintptr_t)aiocb; }

static void dispatch(scorep_location* loc, uint64_t t, scorep_io_async_event event, const aio_op* op,
                     uint64_t bytes_request)
{
    scorep_location_count_events(loc, 1);
    for (int i = 0; i < scorep_substrate_count_active; i++) {
        const scorep_substrate* s = scorep_substrates[i];
        if (s->io_operation_async)
            s->io_operation_async(loc, t, event, op->handle, op->mode, bytes_request, matching_id(op->aiocb));
    }
}

static void complete(scorep_location* loc, uint64_t t, const aio_op* op, uint64_t bytes_done)
{
    scorep_location_count_events(loc, 1);
    for (int i = 0; i < scorep_substrate_count_active; i++) {
        const scorep_substrate* s = scorep_substrates[i];
        if (s == scorep_profile_substrate())
            scorep_io_files_transfer(op->began, t, op->handle, op->mode, bytes_done);
        if (s->io_operation_complete)
            s->io_operation_complete(loc, t, op->handle, bytes_done, matching_id(op->aiocb));
    }
}

void scorep_io_aio_begin(const void* aiocb, int fd, scorep_io_handle handle, scorep_io_operation mode,
                         uint64_t bytes_request, int non_blocking)
{
    scorep_location* loc = here();
    if (!loc || aiocb == NULL)
        return;
    aio_op op = {aiocb, fd, handle, mode, stamp(loc)};
    if (!lock()) return;
    size_t i = find(aiocb);
    /* an aiocb submitted again before its aio_return (which POSIX does not
     * allow) replaces its earlier operation, which then never ends */
    if (i < AIO_SLOTS)
        ops[i] = op;
    unlock();
    if (i < AIO_SLOTS && handle != SCOREP_INVALID_ID)
        dispatch(loc, op.began, non_blocking ? SCOREP_IO_ASYNC_BEGIN : SCOREP_IO_ASYNC_BEGIN_BLOCKING, &op,
                 bytes_request);
}

void scorep_io_aio_issued(const void* aiocb, int queued)
{
    aio_op op;
    if (!(queued ? lookup(aiocb, &op) : take(aiocb, &op)))
        return;
    scorep_location* loc = here();
    if (!loc || op.handle == SCOREP_INVALID_ID)
        return;
    uint64_t t = stamp(loc);
    if (queued)
        dispatch(loc, t, SCOREP_IO_ASYNC_ISSUED, &op, 0);
    else
        complete(loc, t, &op, 0);
}

void scorep_io_aio_test(const void* aiocb)
{
    aio_op op;
    if (!lookup(aiocb, &op) || op.handle == SCOREP_INVALID_ID)
        return;
    scorep_location* loc = here();
    if (loc)
        dispatch(loc, stamp(loc), SCOREP_IO_ASYNC_TEST, &op, 0);
}

void scorep_io_aio_return(const void* aiocb, int64_t result)
{
    aio_op op;
    if (!take(aiocb, &op))
        return;
    scorep_location* loc = here();
    if (!loc)
        return;
    uint64_t bytes = result > 0 ? (uint64_t)result : 0;
    uint64_t t = stamp(loc);
    /* the profile's bytes: aio_return's region, stamped with t */
    if (bytes)
        scorep_io_bytes(op.mode == SCOREP_IO_OP_READ ? bytes : 0, op.mode == SCOREP_IO_OP_READ ? 0 : bytes);
    if (op.handle != SCOREP_INVALID_ID)
        complete(loc, t, &op, bytes);
}

/* aio_error of an operation still in flight: the C library's (a call from
 * here reaches the run-time wrapper, which passes it on inside aio_cancel's
 * recorded call) */
static int cancelled(const void* aiocb) { return aio_error((const struct aiocb*)aiocb) == ECANCELED; }

void scorep_io_aio_cancelled(int fd, const void* aiocb)
{
    scorep_location* loc = here();
    if (!loc)
        return;
    /* the candidates first, then their status: a call into the C library,
     * not made with the lock held (8 KiB of stack, aio_cancel is rare) */
    const void* candidates[AIO_SLOTS];
    size_t n = 0;
    if (!lock()) return;
    for (size_t i = 0; i < AIO_SLOTS; i++)
        if (ops[i].aiocb != NULL && (aiocb != NULL ? ops[i].aiocb == aiocb : ops[i].fd == fd))
            candidates[n++] = ops[i].aiocb;
    unlock();
    for (size_t c = 0; c < n; c++) {
        aio_op op;
        if (cancelled(candidates[c]) && take(candidates[c], &op) && op.handle != SCOREP_INVALID_ID)
            dispatch(loc, stamp(loc), SCOREP_IO_ASYNC_CANCELLED, &op, 0);
    }
}
