/*
 * Raw records -> OTF2: a location's raw buffer is encoded into its OTF2 event
 * writer when the buffer is full (on the location's thread, from the event
 * path, once per buffer) and at finalisation.
 *
 * Encoding is where the trace meets its limits:
 *   - OTF2 may flush its own buffer to disk while encoding (trace_flush.c);
 *     the time the location was held up, the whole drain, is then recorded
 *     as the core's TRACE_BUFFER_FLUSH region right after the drained records;
 *   - SCOREP_TRACING_MAX_SIZE is counted in OTF2 chunks (trace_memory.c), so
 *     it is found here: the first record that is encoded after the limit is
 *     reached is not written; instead the regions still open in the written
 *     records are left and MeasurementOnOff(OFF) closes the location's trace,
 *     at that record's time. The open regions are tracked while encoding (not
 *     the location's own stack, which is ahead by the buffered records).
 */
#include <stdlib.h>

#include "trace.h"

#define UNLIKELY(x) __builtin_expect(!!(x), 0)

/* words stored after the head, per kind (trace_events.c fills them) */
static const uint8_t words_of[RAW_KIND_COUNT_] = {
    [RAW_ENTER] = 0,
    [RAW_LEAVE] = 0,
    [RAW_MPI_SEND] = 2,
    [RAW_MPI_RECV] = 2,
    [RAW_MPI_ISEND] = 3,
    [RAW_MPI_ISEND_COMPLETE] = 1,
    [RAW_MPI_IRECV_REQUEST] = 1,
    [RAW_MPI_IRECV] = 3,
    [RAW_MPI_REQUEST_TEST] = 1,
    [RAW_MPI_REQUEST_CANCELLED] = 1,
    [RAW_MPI_COLLECTIVE_BEGIN] = 0,
    [RAW_MPI_COLLECTIVE_END] = 3,
    [RAW_RMA_WIN_CREATE] = 0,
    [RAW_RMA_WIN_DESTROY] = 0,
    [RAW_RMA_PUT] = 3,
    [RAW_RMA_GET] = 3,
    [RAW_RMA_ATOMIC] = 4,
    [RAW_RMA_OP_COMPLETE_BLOCKING] = 1,
    [RAW_RMA_OP_COMPLETE_NON_BLOCKING] = 1,
    [RAW_RMA_COLLECTIVE_BEGIN] = 0,
    [RAW_RMA_COLLECTIVE_END] = 4,
    [RAW_RMA_GROUP_SYNC] = 1,
    [RAW_RMA_ACQUIRE_LOCK] = 1,
    [RAW_RMA_RELEASE_LOCK] = 1,
    [RAW_RMA_SYNC] = 1,
    [RAW_PARAMETER_INT] = 1,
    [RAW_PARAMETER_STRING] = 1,
};

static OTF2_ErrorCode encode(OTF2_EvtWriter* w, const raw_record* r)
{
    const uint64_t t = r->time;
    const uint64_t* v = r->word;
    switch ((raw_kind)r->kind) {
    case RAW_ENTER: return OTF2_EvtWriter_Enter(w, NULL, t, r->id);
    case RAW_LEAVE: return OTF2_EvtWriter_Leave(w, NULL, t, r->id);
    case RAW_MPI_SEND:
        return OTF2_EvtWriter_MpiSend(w, NULL, t, raw_low(v[0]), r->id, raw_high(v[0]), v[1]);
    case RAW_MPI_RECV:
        return OTF2_EvtWriter_MpiRecv(w, NULL, t, raw_low(v[0]), r->id, raw_high(v[0]), v[1]);
    case RAW_MPI_ISEND:
        return OTF2_EvtWriter_MpiIsend(w, NULL, t, raw_low(v[0]), r->id, raw_high(v[0]), v[1],
                                       v[2]);
    case RAW_MPI_ISEND_COMPLETE: return OTF2_EvtWriter_MpiIsendComplete(w, NULL, t, v[0]);
    case RAW_MPI_IRECV_REQUEST: return OTF2_EvtWriter_MpiIrecvRequest(w, NULL, t, v[0]);
    case RAW_MPI_IRECV:
        return OTF2_EvtWriter_MpiIrecv(w, NULL, t, raw_low(v[0]), r->id, raw_high(v[0]), v[1],
                                       v[2]);
    case RAW_MPI_REQUEST_TEST: return OTF2_EvtWriter_MpiRequestTest(w, NULL, t, v[0]);
    case RAW_MPI_REQUEST_CANCELLED: return OTF2_EvtWriter_MpiRequestCancelled(w, NULL, t, v[0]);
    case RAW_MPI_COLLECTIVE_BEGIN: return OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, t);
    case RAW_MPI_COLLECTIVE_END:
        return OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, t, (OTF2_CollectiveOp)raw_low(v[0]), r->id,
                                               raw_high(v[0]), v[1], v[2]);
    case RAW_RMA_WIN_CREATE: return OTF2_EvtWriter_RmaWinCreate(w, NULL, t, r->id);
    case RAW_RMA_WIN_DESTROY: return OTF2_EvtWriter_RmaWinDestroy(w, NULL, t, r->id);
    case RAW_RMA_PUT: return OTF2_EvtWriter_RmaPut(w, NULL, t, r->id, raw_low(v[0]), v[1], v[2]);
    case RAW_RMA_GET: return OTF2_EvtWriter_RmaGet(w, NULL, t, r->id, raw_low(v[0]), v[1], v[2]);
    case RAW_RMA_ATOMIC:
        return OTF2_EvtWriter_RmaAtomic(w, NULL, t, r->id, raw_low(v[0]),
                                        (OTF2_RmaAtomicType)raw_high(v[0]), v[1], v[2], v[3]);
    case RAW_RMA_OP_COMPLETE_BLOCKING:
        return OTF2_EvtWriter_RmaOpCompleteBlocking(w, NULL, t, r->id, v[0]);
    case RAW_RMA_OP_COMPLETE_NON_BLOCKING:
        return OTF2_EvtWriter_RmaOpCompleteNonBlocking(w, NULL, t, r->id, v[0]);
    case RAW_RMA_COLLECTIVE_BEGIN: return OTF2_EvtWriter_RmaCollectiveBegin(w, NULL, t);
    case RAW_RMA_COLLECTIVE_END:
        return OTF2_EvtWriter_RmaCollectiveEnd(w, NULL, t, (OTF2_CollectiveOp)raw_low(v[0]),
                                               (OTF2_RmaSyncLevel)raw_high(v[0]), r->id,
                                               raw_low(v[1]), v[2], v[3]);
    case RAW_RMA_GROUP_SYNC:
        return OTF2_EvtWriter_RmaGroupSync(w, NULL, t, (OTF2_RmaSyncLevel)raw_low(v[0]), r->id,
                                           raw_high(v[0]));
    case RAW_RMA_ACQUIRE_LOCK:
        return OTF2_EvtWriter_RmaAcquireLock(w, NULL, t, r->id, raw_low(v[0]), 0,
                                             raw_high(v[0]) ? OTF2_LOCK_EXCLUSIVE
                                                            : OTF2_LOCK_SHARED);
    case RAW_RMA_RELEASE_LOCK:
        return OTF2_EvtWriter_RmaReleaseLock(w, NULL, t, r->id, raw_low(v[0]), 0);
    case RAW_RMA_SYNC:
        return OTF2_EvtWriter_RmaSync(w, NULL, t, r->id, raw_low(v[0]),
                                      OTF2_RMA_SYNC_TYPE_MEMORY);
    case RAW_PARAMETER_INT: return OTF2_EvtWriter_ParameterInt(w, NULL, t, r->id, (int64_t)v[0]);
    case RAW_PARAMETER_STRING: return OTF2_EvtWriter_ParameterString(w, NULL, t, r->id, v[0]);
    case RAW_KIND_COUNT_: break;
    }
    return OTF2_ERROR_INVALID_ARGUMENT;
}

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

/* The regions open in the records written so far (for the Leave records of
 * a stop). Grows at flush time only; out of memory, the deepest are not
 * tracked and a stop leaves the outer ones (with a warning). */
static void track_open_regions(trace_location* tl, const raw_record* r)
{
    if (r->kind == RAW_LEAVE) {
        if (tl->open_depth > 0)
            tl->open_depth--;
        return;
    }
    if (r->kind != RAW_ENTER)
        return;
    if (tl->open_depth == tl->open_capacity) {
        uint32_t capacity = tl->open_capacity ? 2 * tl->open_capacity : 64;
        uint32_t* grown = realloc(tl->open, capacity * sizeof *grown);
        if (grown == NULL) {
            scorep_warning("trace: out of memory tracking the open regions of location %u",
                           tl->location->local_id);
            return;
        }
        tl->open = grown;
        tl->open_capacity = capacity;
    }
    tl->open[tl->open_depth++] = r->id;
}

/* SCOREP_TRACING_MAX_SIZE reached: close the location's trace at time t. */
static void stop_location(trace_location* tl, uint64_t t)
{
    tl->stopped = 1;
    OTF2_ErrorCode code = OTF2_SUCCESS;
    while (tl->open_depth > 0 && code == OTF2_SUCCESS)
        code = OTF2_EvtWriter_Leave(tl->writer, NULL, t, tl->open[--tl->open_depth]);
    if (code == OTF2_SUCCESS)
        code = OTF2_EvtWriter_MeasurementOnOff(tl->writer, NULL, t, OTF2_MEASUREMENT_OFF);
    if (code != OTF2_SUCCESS)
        write_failed(tl, code);
    static atomic_int warned;
    if (!atomic_exchange(&warned, 1))
        scorep_warning("trace: the events of this process reached SCOREP_TRACING_MAX_SIZE=%llu bytes "
                       "(%llu chunks of %llu bytes): tracing stops here, marked in the trace by a "
                       "MeasurementOnOff record after the open regions are left; the profile goes on. "
                       "Set SCOREP_TRACING_MAX_SIZE (e.g. 8G, or unlimited) to trace more",
                       (unsigned long long)trace_memory_max_size(),
                       (unsigned long long)(trace_memory_event_chunks() - 1),
                       (unsigned long long)trace_memory_chunk_bytes());
}

/* Encodes the buffered records in order and empties the buffer. */
static void encode_buffer(trace_location* tl)
{
    const char* p = tl->raw_begin;
    const char* end = tl->raw_next;
    tl->raw_next = tl->raw_begin;
    if (tl->writer == NULL || tl->stopped)
        return;
    while (p < end) {
        const raw_record* r = (const raw_record*)p;
        if (UNLIKELY(trace_limit_reached())) {
            stop_location(tl, r->time);
            return;
        }
        OTF2_ErrorCode code = encode(tl->writer, r);
        if (UNLIKELY(code != OTF2_SUCCESS))
            write_failed(tl, code);
        track_open_regions(tl, r);
        p += raw_bytes(words_of[r->kind]);
    }
}

void trace_raw_drain(trace_location* tl)
{
    uint64_t begin = scorep_timer_now();
    encode_buffer(tl);
    if (UNLIKELY(tl->flush_pending)) {
        tl->flush_begin = begin;
        tl->flush_end = scorep_timer_now();
        trace_flush_report(tl);
    }
}

void trace_location_stop(trace_location* tl, uint64_t t)
{
    if (tl->stopped)
        return;
    trace_raw_drain(tl);   /* stops at its first record: the limit is reached */
    if (!tl->stopped && tl->writer != NULL)
        stop_location(tl, t);
}

void trace_raw_drain_final(trace_location* tl)
{
    encode_buffer(tl);
    tl->flush_pending = 0;   /* the event layer takes no more events */
}
