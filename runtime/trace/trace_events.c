/*
 * Event callbacks of the trace substrate: the hot path.
 *
 * Each callback is one OTF2 record written into the calling location's own
 * event writer: no lock, no allocation, no system call (OTF2 encodes into its
 * current chunk; only a full chunk leaves this path, once per chunk, see
 * trace_memory.c and trace_flush.c). Ids are process-local; the mapping
 * tables written at finalisation translate them (trace_definitions.c).
 */
#include "trace.h"

#define UNLIKELY(x) __builtin_expect(!!(x), 0)

static void write_failed(trace_location* tl, OTF2_ErrorCode code)
{
    if (tl->write_failed)
        return;
    tl->write_failed = 1;
    scorep_warning("trace: writing an event of location %u failed: %s (%s); "
                   "the trace of this location is incomplete",
                   tl->location->local_id, OTF2_Error_GetName(code),
                   OTF2_Error_GetDescription(code));
}

/* After every record: a flush may have happened inside it, or it failed. */
static inline void after_write(trace_location* tl, OTF2_ErrorCode code)
{
    if (UNLIKELY(code != OTF2_SUCCESS))
        write_failed(tl, code);
    if (UNLIKELY(tl->flush_pending))
        trace_flush_report(tl);
}

/* The process reached SCOREP_TRACING_MAX_SIZE (one relaxed load of a flag
 * that stays in every core's cache until then). */
static inline int limit_reached(void)
{
    return atomic_load_explicit(&trace.limit_reached, memory_order_relaxed);
}

/* One record at time t (the callback's), unless the location has stopped. */
#define WRITE(loc, record, ...)                                                   \
    do {                                                                          \
        trace_location* tl_ = trace_location_of(loc);                             \
        if (UNLIKELY(limit_reached()) && trace_location_stop(tl_, t, 0))          \
            break;                                                                \
        after_write(tl_, OTF2_EvtWriter_##record(tl_->writer, NULL, __VA_ARGS__)); \
    } while (0)

/* The core's measurement region for buffer flushes ("TRACE_BUFFER_FLUSH"),
 * defined at initialisation; the profile uses the same region. */
extern scorep_region scorep_flush_region;

int trace_location_stop(trace_location* tl, uint64_t t, int skip_newest)
{
    if (tl->stopped)
        return 1;
    tl->stopped = 1;   /* first: a flush inside the records below records no flush region */
    const scorep_region* open = NULL;
    uint32_t depth = scorep_location_open_regions(tl->location, &open);
    if (skip_newest && depth > 0)
        depth--;
    OTF2_ErrorCode code = OTF2_SUCCESS;
    while (depth > 0 && code == OTF2_SUCCESS)
        code = OTF2_EvtWriter_Leave(tl->writer, NULL, t, open[--depth]);
    if (code == OTF2_SUCCESS)
        code = OTF2_EvtWriter_MeasurementOnOff(tl->writer, NULL, t, OTF2_MEASUREMENT_OFF);
    after_write(tl, code);
    static atomic_int warned;
    if (!atomic_exchange(&warned, 1))
        scorep_warning("trace: the events of this process reached SCOREP_TRACING_MAX_SIZE=%llu bytes "
                       "(%llu chunks of %llu bytes): tracing stops here, marked in the trace by a "
                       "MeasurementOnOff record after the open regions are left; the profile goes on. "
                       "Set SCOREP_TRACING_MAX_SIZE (e.g. 8G, or unlimited) to trace more",
                       (unsigned long long)trace_memory_max_size(),
                       (unsigned long long)(trace_memory_event_chunks() - 1),
                       (unsigned long long)trace_memory_chunk_bytes());
    return 1;
}

static uint32_t root_of(int root)
{
    return root < 0 ? OTF2_UNDEFINED_UINT32 : (uint32_t)root;
}

/* The adapter's collective kinds are numbered like OTF2's collective ops. */
_Static_assert(SCOREP_COLL_BARRIER == (int)OTF2_COLLECTIVE_OP_BARRIER &&
               SCOREP_COLL_ALLREDUCE == (int)OTF2_COLLECTIVE_OP_ALLREDUCE &&
               SCOREP_COLL_REDUCE_SCATTER_BLOCK == (int)OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK &&
               SCOREP_COLL_DESTROY_HANDLE_AND_DEALLOCATE ==
                   (int)OTF2_COLLECTIVE_OP_DESTROY_HANDLE_AND_DEALLOCATE,
               "scorep_collective_kind must follow OTF2_CollectiveOp");
_Static_assert(SCOREP_COLL_OTF2_END_ == (int)OTF2_COLLECTIVE_OP_DESTROY_HANDLE_AND_DEALLOCATE + 1 &&
               SCOREP_COLL_NEIGHBOR_ALLGATHER > (int)SCOREP_COLL_OTF2_END_,
               "the kinds from SCOREP_COLL_OTF2_END_ on have no OTF2 collective op");
_Static_assert(SCOREP_RMA_SYNC_LEVEL_PROCESS == (int)OTF2_RMA_SYNC_LEVEL_PROCESS &&
               SCOREP_RMA_SYNC_LEVEL_MEMORY == (int)OTF2_RMA_SYNC_LEVEL_MEMORY,
               "scorep_rma_sync_level must be OTF2's bit set");

static OTF2_RmaAtomicType atomic_type(scorep_rma_atomic_kind kind)
{
    switch (kind) {
    case SCOREP_RMA_ATOMIC_INCREMENT: return OTF2_RMA_ATOMIC_TYPE_INCREMENT;
    case SCOREP_RMA_ATOMIC_TEST_AND_SET: return OTF2_RMA_ATOMIC_TYPE_TEST_AND_SET;
    case SCOREP_RMA_ATOMIC_COMPARE_AND_SWAP: return OTF2_RMA_ATOMIC_TYPE_COMPARE_AND_SWAP;
    case SCOREP_RMA_ATOMIC_SWAP: return OTF2_RMA_ATOMIC_TYPE_SWAP;
    case SCOREP_RMA_ATOMIC_FETCH_AND_ADD: return OTF2_RMA_ATOMIC_TYPE_FETCH_AND_ADD;
    case SCOREP_RMA_ATOMIC_FETCH_AND_INCREMENT: return OTF2_RMA_ATOMIC_TYPE_FETCH_AND_INCREMENT;
    case SCOREP_RMA_ATOMIC_FETCH_AND_ACCUMULATE: return OTF2_RMA_ATOMIC_TYPE_FETCH_AND_ACCUMULATE;
    /* OTF2 has no non-fetching add: it is an accumulate with MPI_SUM */
    case SCOREP_RMA_ATOMIC_ADD:
    case SCOREP_RMA_ATOMIC_ACCUMULATE:
    default: return OTF2_RMA_ATOMIC_TYPE_ACCUMULATE;
    }
}

static void enter(scorep_location* loc, uint64_t t, scorep_region region)
{
    trace_location* tl = trace_location_of(loc);
    /* the region is on the location's stack already: its enter is declined */
    if (UNLIKELY(limit_reached()) && trace_location_stop(tl, t, 1))
        return;
    after_write(tl, OTF2_EvtWriter_Enter(tl->writer, NULL, t, region));
}

static void leave(scorep_location* loc, uint64_t t, scorep_region region)
{
    trace_location* tl = trace_location_of(loc);
    if (UNLIKELY(limit_reached())) {
        if (tl->stopped)
            return;
        /* its enter was written (and it is off the stack already) */
        after_write(tl, OTF2_EvtWriter_Leave(tl->writer, NULL, t, region));
        trace_location_stop(tl, t, 0);
        return;
    }
    after_write(tl, OTF2_EvtWriter_Leave(tl->writer, NULL, t, region));
}

static void mpi_send(scorep_location* loc, uint64_t t, scorep_comm comm, int peer, int tag,
                     uint64_t bytes)
{
    WRITE(loc, MpiSend, t, (uint32_t)peer, comm, (uint32_t)tag, bytes);
}

static void mpi_recv(scorep_location* loc, uint64_t t, scorep_comm comm, int peer, int tag,
                     uint64_t bytes)
{
    WRITE(loc, MpiRecv, t, (uint32_t)peer, comm, (uint32_t)tag, bytes);
}

static void mpi_isend(scorep_location* loc, uint64_t t, scorep_comm comm, int peer, int tag,
                      uint64_t bytes, uint64_t request_id)
{
    WRITE(loc, MpiIsend, t, (uint32_t)peer, comm, (uint32_t)tag, bytes, request_id);
}

static void mpi_isend_complete(scorep_location* loc, uint64_t t, uint64_t request_id)
{
    WRITE(loc, MpiIsendComplete, t, request_id);
}

static void mpi_irecv_request(scorep_location* loc, uint64_t t, uint64_t request_id)
{
    WRITE(loc, MpiIrecvRequest, t, request_id);
}

static void mpi_irecv(scorep_location* loc, uint64_t t, scorep_comm comm, int peer, int tag,
                      uint64_t bytes, uint64_t request_id)
{
    WRITE(loc, MpiIrecv, t, (uint32_t)peer, comm, (uint32_t)tag, bytes, request_id);
}

static void mpi_request_test(scorep_location* loc, uint64_t t, uint64_t request_id)
{
    WRITE(loc, MpiRequestTest, t, request_id);
}

static void mpi_request_cancelled(scorep_location* loc, uint64_t t, uint64_t request_id)
{
    WRITE(loc, MpiRequestCancelled, t, request_id);
}

static void mpi_collective_begin(scorep_location* loc, uint64_t t)
{
    WRITE(loc, MpiCollectiveBegin, t);
}

/* A kind without an OTF2 collective op (the neighbourhood collectives) comes
 * without a begin (adapter.h) and writes nothing: the trace shows the call as
 * its region's enter and leave. Recording it as an OTF2 all-to-all or
 * all-gather over the whole communicator would tell wait-state analyses
 * (Scalasca) that every process waits for every other one. */
static void mpi_collective_end(scorep_location* loc, uint64_t t, scorep_collective_kind kind,
                               scorep_comm comm, int root, uint64_t bytes_sent,
                               uint64_t bytes_received)
{
    if (UNLIKELY((unsigned)kind >= (unsigned)SCOREP_COLL_OTF2_END_))
        return;
    WRITE(loc, MpiCollectiveEnd, t, (OTF2_CollectiveOp)kind, comm, root_of(root), bytes_sent,
          bytes_received);
}

static void rma_win_create(scorep_location* loc, uint64_t t, scorep_window win)
{
    WRITE(loc, RmaWinCreate, t, win);
}

static void rma_win_destroy(scorep_location* loc, uint64_t t, scorep_window win)
{
    WRITE(loc, RmaWinDestroy, t, win);
}

static void rma_put(scorep_location* loc, uint64_t t, scorep_window win, int target,
                    uint64_t bytes, uint64_t matching_id)
{
    WRITE(loc, RmaPut, t, win, (uint32_t)target, bytes, matching_id);
}

static void rma_get(scorep_location* loc, uint64_t t, scorep_window win, int target,
                    uint64_t bytes, uint64_t matching_id)
{
    WRITE(loc, RmaGet, t, win, (uint32_t)target, bytes, matching_id);
}

static void rma_atomic(scorep_location* loc, uint64_t t, scorep_window win, int target,
                       scorep_rma_atomic_kind kind, uint64_t bytes_sent,
                       uint64_t bytes_received, uint64_t matching_id)
{
    WRITE(loc, RmaAtomic, t, win, (uint32_t)target, atomic_type(kind), bytes_sent,
          bytes_received, matching_id);
}

static void rma_op_complete(scorep_location* loc, uint64_t t, scorep_window win,
                            uint64_t matching_id, int blocking)
{
    if (blocking)
        WRITE(loc, RmaOpCompleteBlocking, t, win, matching_id);
    else
        WRITE(loc, RmaOpCompleteNonBlocking, t, win, matching_id);
}

static void rma_collective_begin(scorep_location* loc, uint64_t t)
{
    WRITE(loc, RmaCollectiveBegin, t);
}

static void rma_collective_end(scorep_location* loc, uint64_t t, scorep_collective_kind kind,
                               scorep_rma_sync_level level, scorep_window win, int root,
                               uint64_t bytes_sent, uint64_t bytes_received)
{
    WRITE(loc, RmaCollectiveEnd, t, (OTF2_CollectiveOp)kind, (OTF2_RmaSyncLevel)level, win,
          root_of(root), bytes_sent, bytes_received);
}

/* The group is a core comm-table id; trace_definitions.c maps it to the OTF2
 * group written for that entry. */
static void rma_group_sync(scorep_location* loc, uint64_t t, scorep_rma_sync_level level,
                           scorep_window win, scorep_comm group)
{
    WRITE(loc, RmaGroupSync, t, (OTF2_RmaSyncLevel)level, win, group);
}

/* target -1 (all processes) is OTF2's undefined rank; one lock per window
 * and target, so the lock id is 0. */
static void rma_lock(scorep_location* loc, uint64_t t, scorep_window win, int target,
                     int exclusive)
{
    WRITE(loc, RmaAcquireLock, t, win, root_of(target), 0,
          exclusive ? OTF2_LOCK_EXCLUSIVE : OTF2_LOCK_SHARED);
}

static void rma_unlock(scorep_location* loc, uint64_t t, scorep_window win, int target)
{
    WRITE(loc, RmaReleaseLock, t, win, root_of(target), 0);
}

static void rma_sync(scorep_location* loc, uint64_t t, scorep_window win, int target)
{
    WRITE(loc, RmaSync, t, win, root_of(target), OTF2_RMA_SYNC_TYPE_MEMORY);
}

static void parameter_int(scorep_location* loc, uint64_t t, scorep_parameter param,
                          int64_t value)
{
    WRITE(loc, ParameterInt, t, param, value);
}

static void parameter_string(scorep_location* loc, uint64_t t, scorep_parameter param,
                             scorep_string value)
{
    WRITE(loc, ParameterString, t, param, value);
}

static void buffer_flush(scorep_location* loc, uint64_t t_begin, uint64_t t_end)
{
    trace_location* tl = trace_location_of(loc);
    if (tl->stopped)
        return;
    scorep_region region = scorep_flush_region;
    /* Not through after_write: these records could in theory fill the fresh
     * chunk, and a report from here would recurse into the event layer. */
    OTF2_ErrorCode code = OTF2_EvtWriter_Enter(tl->writer, NULL, t_begin, region);
    if (code == OTF2_SUCCESS)
        code = OTF2_EvtWriter_Leave(tl->writer, NULL, t_end, region);
    if (code != OTF2_SUCCESS)
        write_failed(tl, code);
}

void trace_events_fill_table(scorep_substrate* table)
{
    table->enter = enter;
    table->leave = leave;
    table->mpi_send = mpi_send;
    table->mpi_recv = mpi_recv;
    table->mpi_isend = mpi_isend;
    table->mpi_isend_complete = mpi_isend_complete;
    table->mpi_irecv_request = mpi_irecv_request;
    table->mpi_irecv = mpi_irecv;
    table->mpi_request_test = mpi_request_test;
    table->mpi_request_cancelled = mpi_request_cancelled;
    table->mpi_collective_begin = mpi_collective_begin;
    table->mpi_collective_end = mpi_collective_end;
    table->rma_win_create = rma_win_create;
    table->rma_win_destroy = rma_win_destroy;
    table->rma_put = rma_put;
    table->rma_get = rma_get;
    table->rma_atomic = rma_atomic;
    table->rma_op_complete = rma_op_complete;
    table->rma_collective_begin = rma_collective_begin;
    table->rma_collective_end = rma_collective_end;
    table->rma_group_sync = rma_group_sync;
    table->rma_lock = rma_lock;
    table->rma_unlock = rma_unlock;
    table->rma_sync = rma_sync;
    table->parameter_int = parameter_int;
    table->parameter_string = parameter_string;
    table->buffer_flush = buffer_flush;
}
