/* POSIX asynchronous I/O in the I/O adapters (docs/IO_ADAPTER.md,
 * "Asynchronous I/O"): the core's part of the aio wrappers
 * (tasks/io_aio.c.j2), implemented in runtime/adapter_api/io_async.c.
 *
 * An aio operation spans several calls: aio_read / aio_write / lio_listio
 * submit it, aio_error tests it, aio_return observes its end, aio_cancel may
 * cancel it; each call on its own thread, possibly another one. The core
 * keeps the operations in flight in one table per process, keyed by the
 * aiocb (its address is the operation's matching id in the trace), with the
 * handle, direction and start of each: the later calls find them there.
 *
 * Trace records (OTF2): IoOperationBegin (flag NON_BLOCKING for aio_read,
 * aio_write and lio_listio's LIO_NOWAIT; the aiocb's aio_nbytes requested)
 * and IoOperationIssued at the submission, IoOperationTest for each
 * aio_error that sees EINPROGRESS, IoOperationComplete (the bytes done) at
 * aio_return, IoOperationCancelled for an operation aio_cancel cancelled.
 * Profile: the bytes done are counted once per operation, at aio_return,
 * as io_bytes_read / io_bytes_written of aio_return's call path, and for the
 * file in the per-file totals (one transfer, its time from the submission
 * to aio_return). An operation on a descriptor without an I/O handle has no
 * trace records and no per-file figures, only its bytes at aio_return. */
#ifndef SCOREP_WRAPGEN_IO_ASYNC_H
#define SCOREP_WRAPGEN_IO_ASYNC_H

#include <stdint.h>

#include "scorep_wrapgen/adapter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The records of an asynchronous operation besides its IoOperationComplete
 * (the substrates' io_operation_async callback, substrate.h) */
typedef enum scorep_io_async_event {
    SCOREP_IO_ASYNC_BEGIN,            /* IoOperationBegin, flag NON_BLOCKING */
    SCOREP_IO_ASYNC_BEGIN_BLOCKING,   /* IoOperationBegin of lio_listio(LIO_WAIT)'s entries */
    SCOREP_IO_ASYNC_ISSUED,           /* IoOperationIssued */
    SCOREP_IO_ASYNC_TEST,             /* IoOperationTest */
    SCOREP_IO_ASYNC_CANCELLED         /* IoOperationCancelled */
} scorep_io_async_event;

/* Before the submitting call (aio_read, aio_write; each entry of
 * lio_listio): the operation of aiocb on descriptor fd, whose handle is
 * `handle` (SCOREP_INVALID_ID: none), in direction mode, of bytes_request
 * bytes; non_blocking 0 for lio_listio(LIO_WAIT). */
void scorep_io_aio_begin(const void* aiocb, int fd, scorep_io_handle handle, scorep_io_operation mode,
                         uint64_t bytes_request, int non_blocking);
/* After it: queued (the call returned 0, or lio_listio's entries whatever
 * it returned): IoOperationIssued; not queued (aio_read/aio_write returned
 * -1): the operation ends with no bytes done and is forgotten. */
void scorep_io_aio_issued(const void* aiocb, int queued);
/* aio_error returned EINPROGRESS for aiocb. */
void scorep_io_aio_test(const void* aiocb);
/* aio_return returned result for aiocb: the operation's end. */
void scorep_io_aio_return(const void* aiocb, int64_t result);
/* aio_cancel(fd, aiocb) cancelled some operations (it returned AIO_CANCELED
 * or AIO_NOTCANCELED): those of aiocb (or, aiocb NULL, of fd) whose status
 * is now ECANCELED end cancelled. */
void scorep_io_aio_cancelled(int fd, const void* aiocb);

#ifdef __cplusplus
}
#endif
#endif /* SCOREP_WRAPGEN_IO_ASYNC_H */
