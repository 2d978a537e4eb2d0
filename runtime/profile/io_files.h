/* The per-file I/O totals' per-thread sums (io_files.c), visible to the
 * event layer so that a profiled transfer's end (events.c:
 * scorep_io_transfer_exit) adds to its file's sums inline: no call, the
 * duration the profile's node gets reused. Only io_files.c and events.c
 * include this. */
#ifndef SCOREP_WRAPGEN_IO_FILES_H
#define SCOREP_WRAPGEN_IO_FILES_H

#include "internal.h"

#define IO_FILES_MAX 1024   /* handles per process with totals of their own */

typedef struct io_file_sum {
    /* bytes[0]: read, bytes[1]: written (indexed by the direction, no branch) */
    uint64_t visits, bytes[2], ticks;
} io_file_sum;

typedef struct io_files_thread {
    struct io_files_thread* next;
    /* the transfer begun and not yet completed on this thread: its slot,
     * direction and begin time (transfers do not nest on one thread: a
     * wrapped call inside another records nothing) */
    uint32_t pending_slot;
    scorep_io_operation pending_mode;
    uint64_t pending_ticks;
    io_file_sum sums[IO_FILES_MAX + 1];   /* [IO_FILES_MAX]: other files */
} io_files_thread;

/* this thread's sums, NULL before its first transfer (the thread owns
 * them: plain loads and stores) */
extern __thread io_files_thread* scorep_io_files_mine TLS_FAST __attribute__((visibility("hidden")));

static inline io_file_sum* scorep_io_files_slot(io_files_thread* f, scorep_io_handle handle)
{
    return &f->sums[handle < IO_FILES_MAX ? handle : IO_FILES_MAX];
}

/* a transfer of `bytes` in direction mode (read or not) that took `ticks` */
static inline void scorep_io_files_add(io_file_sum* s, scorep_io_operation mode, uint64_t bytes, uint64_t ticks)
{
    s->visits++;
    s->bytes[mode != SCOREP_IO_OP_READ] += bytes;
    s->ticks += ticks;
}

#endif /* SCOREP_WRAPGEN_IO_FILES_H */
