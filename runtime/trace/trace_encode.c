/*
 * Raw records -> OTF2, at finalisation: every location's blocks, spilled ones
 * first (trace_blocks.c), are encoded into its OTF2 event writer in record
 * order, with the values the event path stored. OTF2 takes its chunks from
 * the same pool (trace_memory.c), which the encoded blocks return to, and
 * flushes them to the location's .evt file when the pool is empty. Nothing
 * here runs while the program does: the event path only stores records.
 */
#include <stdlib.h>

#include "trace.h"
#include "strict_metrics.h"

/* A message's peer as a rank of the communicator the definitions describe
 * (an intercommunicator's remote rank becomes its place among both groups). */
static uint32_t peer_of(const raw_record* r)
{
    return scorep_comm_defined_rank(r->id, raw_low(r->word[0]));
}

/* The attributes stored before the next Enter or Leave (RAW_ATTRIBUTE,
 * scorep_attribute; a Metric record of the same call may come between);
 * OTF2 empties the list when it writes the record. */
static _Thread_local OTF2_AttributeList* attributes;
static _Thread_local int attributes_pending;

static OTF2_AttributeList* take_attributes(void)
{
    if (!attributes_pending)
        return NULL;
    attributes_pending = 0;
    return attributes;
}

static OTF2_ErrorCode add_attribute(uint32_t kind, uint64_t value)
{
    if (attributes == NULL && (attributes = OTF2_AttributeList_New()) == NULL)
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    attributes_pending = 1;
    /* the global attribute ids are the kinds (trace_definitions.c) */
    return OTF2_AttributeList_AddUint64(attributes, kind, value);
}

#define PROGRAM_MAX_ARGUMENTS 256
static OTF2_StringRef program_name = OTF2_UNDEFINED_STRING;
static OTF2_StringRef program_arguments[PROGRAM_MAX_ARGUMENTS];
static uint32_t program_argument_count;

void trace_program_strings_define(void)
{
    program_name = scorep_string_define(scorep_process_executable());
    const char* const* args;
    int n = scorep_process_arguments(&args);
    program_argument_count = 0;
    for (int i = 0; i < n && i < PROGRAM_MAX_ARGUMENTS; i++)
        program_arguments[program_argument_count++] = scorep_string_define(args[i]);
}

/* The program region's enter and leave are Score-P's ProgramBegin and
 * ProgramEnd (the region itself is defined: the profile's root is it). */
static OTF2_ErrorCode encode_enter(OTF2_EvtWriter* w, const raw_record* r, uint64_t t)
{
    if (r->id == scorep_program_region && program_name != OTF2_UNDEFINED_STRING)
        return OTF2_EvtWriter_ProgramBegin(w, take_attributes(), t, program_name, program_argument_count, program_arguments);
    return OTF2_EvtWriter_Enter(w, take_attributes(), t, r->id);
}

static OTF2_ErrorCode encode_leave(OTF2_EvtWriter* w, const raw_record* r, uint64_t t)
{
    if (r->id == scorep_program_region && program_name != OTF2_UNDEFINED_STRING)
        return OTF2_EvtWriter_ProgramEnd(w, take_attributes(), t, OTF2_UNDEFINED_INT64);
    return OTF2_EvtWriter_Leave(w, take_attributes(), t, r->id);
}

/* The strict metrics' values of the next Enter or Leave, gathered from
 * their RAW_STRICT_METRICS records and written as one Metric record of
 * their class when the last is in. The class's id is the first strict
 * metric's (trace_definitions.c), so that OTF2's metric mapping maps it. */
static _Thread_local OTF2_MetricValue strict_values[SCOREP_STRICT_METRICS_MAX + 4];

static OTF2_ErrorCode encode_strict_metrics(OTF2_EvtWriter* w, const raw_record* r, uint64_t t)
{
    uint32_t n = scorep_strict_metric_count;
    if (r->id >= n) return OTF2_SUCCESS;
    for (uint32_t k = 0; k < 4; k++) strict_values[r->id + k].unsigned_int = r->word[k];
    if (r->id + 4 < n) return OTF2_SUCCESS;
    OTF2_Type types[SCOREP_STRICT_METRICS_MAX];
    for (uint32_t k = 0; k < n; k++) types[k] = OTF2_TYPE_UINT64;
    return OTF2_EvtWriter_Metric(w, NULL, t, scorep_strict_metric_ids[0], (uint8_t)n, types, strict_values);
}

/* t: the record's time as written (trace_clock_condition.c may move it) */
static OTF2_ErrorCode encode(OTF2_EvtWriter* w, const raw_record* r, uint64_t t)
{
    const uint64_t* v = r->word;
    switch ((raw_kind)r->kind) {
    case RAW_ENTER: return encode_enter(w, r, t);
    case RAW_LEAVE: return encode_leave(w, r, t);
    case RAW_ATTRIBUTE: return add_attribute(r->id, v[0]);
    case RAW_COMM_CREATE: return OTF2_EvtWriter_CommCreate(w, NULL, t, r->id);
    case RAW_COMM_DESTROY: return OTF2_EvtWriter_CommDestroy(w, NULL, t, r->id);
    case RAW_MPI_SEND:
        return OTF2_EvtWriter_MpiSend(w, NULL, t, peer_of(r), r->id, raw_high(v[0]), v[1]);
    case RAW_MPI_RECV:
        return OTF2_EvtWriter_MpiRecv(w, NULL, t, peer_of(r), r->id, raw_high(v[0]), v[1]);
    case RAW_MPI_ISEND:
        return OTF2_EvtWriter_MpiIsend(w, NULL, t, peer_of(r), r->id, raw_high(v[0]), v[1],
                                       v[2]);
    case RAW_MPI_ISEND_COMPLETE: return OTF2_EvtWriter_MpiIsendComplete(w, NULL, t, v[0]);
    case RAW_MPI_IRECV_REQUEST: return OTF2_EvtWriter_MpiIrecvRequest(w, NULL, t, v[0]);
    case RAW_MPI_IRECV:
        return OTF2_EvtWriter_MpiIrecv(w, NULL, t, peer_of(r), r->id, raw_high(v[0]), v[1],
                                       v[2]);
    case RAW_MPI_REQUEST_TEST: return OTF2_EvtWriter_MpiRequestTest(w, NULL, t, v[0]);
    case RAW_MPI_REQUEST_CANCELLED: return OTF2_EvtWriter_MpiRequestCancelled(w, NULL, t, v[0]);
    case RAW_MPI_COLLECTIVE_BEGIN: return OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, t);
    case RAW_MPI_COLLECTIVE_END:
        return OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, t, (OTF2_CollectiveOp)raw_low(v[0]), r->id,
                                               scorep_comm_defined_rank(r->id, raw_high(v[0])), v[1], v[2]);
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
    case RAW_MEASUREMENT_OFF:
        return OTF2_EvtWriter_MeasurementOnOff(w, NULL, t, OTF2_MEASUREMENT_OFF);
    case RAW_IO_CREATE_HANDLE:
        return OTF2_EvtWriter_IoCreateHandle(w, NULL, t, r->id, trace_io_access_mode(raw_low(v[0])),
                                             trace_io_creation_flags(raw_high(v[0])),
                                             trace_io_status_flags(raw_high(v[0])));
    case RAW_IO_DESTROY_HANDLE: return OTF2_EvtWriter_IoDestroyHandle(w, NULL, t, r->id);
    case RAW_IO_OPERATION_BEGIN:
        return OTF2_EvtWriter_IoOperationBegin(w, NULL, t, r->id,
                                               v[0] == SCOREP_IO_OP_WRITE ? OTF2_IO_OPERATION_MODE_WRITE
                                                                          : OTF2_IO_OPERATION_MODE_READ,
                                               OTF2_IO_OPERATION_FLAG_NONE, v[1], v[2]);
    case RAW_IO_OPERATION_COMPLETE: return OTF2_EvtWriter_IoOperationComplete(w, NULL, t, r->id, v[0], v[1]);
    case RAW_IO_SEEK:
        return OTF2_EvtWriter_IoSeek(w, NULL, t, r->id, (int64_t)v[0], trace_io_seek_option((int64_t)v[1]), v[2]);
    case RAW_IO_DUPLICATE_HANDLE:
        return OTF2_EvtWriter_IoDuplicateHandle(w, NULL, t, r->id, (OTF2_IoHandleRef)v[0],
                                                v[1] ? OTF2_IO_STATUS_FLAG_CLOSE_ON_EXEC : OTF2_IO_STATUS_FLAG_NONE);
    case RAW_IO_OPERATION_ASYNC: return trace_io_async_encode(w, t, r->id, v[0], v[1], v[2]);
    case RAW_THREAD: return trace_thread_encode(w, t, (scorep_thread_event_kind)r->id, v[0]);
    case RAW_THREAD_TASK: return trace_thread_task_encode(w, t, (scorep_thread_event_kind)r->id, v[0], v[1]);
    case RAW_METRIC: {
        /* the metric class of the same (global) id has this one member */
        OTF2_Type type = OTF2_TYPE_INT64;
        OTF2_MetricValue value = {.signed_int = (int64_t)v[0]};
        return OTF2_EvtWriter_Metric(w, NULL, t, r->id, 1, &type, &value);
    }
    case RAW_STRICT_METRICS: return encode_strict_metrics(w, r, t);
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

/* The time of the record being encoded: a flush OTF2 makes meanwhile takes
 * no time of the run, so its BufferFlush record ends where it begins
 * (trace_flush.c). */
static _Thread_local uint64_t encoding_time;

uint64_t trace_encode_time(void)
{
    return encoding_time;
}

/* What the disk has room for (trace_room.c): raw bytes this location may
 * still encode; the first record beyond is where its trace ends. */
static _Thread_local uint64_t room;
static _Thread_local uint64_t cut_time, cut_bytes, last_time;

/* 1 once the room is used up: the rest is left out */
static int encode_block(trace_location* tl, const char* data, uint64_t bytes)
{
    const char* end = data + bytes;
    for (const char* p = data; p < end;) {
        const raw_record* r = (const raw_record*)p;
        if (UNLIKELY(r->kind >= RAW_KIND_COUNT_)) {
            write_failed(tl, OTF2_ERROR_INVALID_DATA);
            return 1;
        }
        uint64_t size = raw_record_bytes(r);
        if (UNLIKELY(cut_bytes != 0 || size > room)) {
            if (cut_bytes == 0)
                cut_time = r->time;
            cut_bytes += (uint64_t)(end - p);
            return 1;
        }
        room -= size;
        uint64_t t = trace_clock_time(r);
        encoding_time = last_time = t;
        OTF2_ErrorCode code = encode(tl->writer, r, t);
        if (UNLIKELY(code != OTF2_SUCCESS))
            write_failed(tl, code);
        p += size;
    }
    return 0;
}

/* keep: a prefix; the raw blocks stay for the next encoding */
static int encode_location(trace_location* tl, uint64_t* events, trace_encode_cut* cut, int keep)
{
    *events = 0;
    room = cut != NULL ? cut->room : UINT64_MAX;
    cut_time = cut_bytes = last_time = 0;
    /* created only now: an event writer holds a chunk from its creation on */
    tl->writer = OTF2_Archive_GetEvtWriter(trace.archive, trace_location_global_id(tl));
    if (tl->writer == NULL) {
        scorep_warning("trace: OTF2 cannot create an event writer for location %u: its "
                       "events are lost", tl->location->local_id);
        if (!keep)
            trace_blocks_free(tl);
        return -1;
    }
    trace_clock_begin_location(tl);
    if (keep)
        trace_blocks_walk(tl, encode_block);
    else
        trace_blocks_drain(tl, encode_block);
    /* the disk had no room for the rest: the trace says where it ends */
    if (cut_bytes != 0)
        OTF2_EvtWriter_MeasurementOnOff(tl->writer, NULL, last_time, OTF2_MEASUREMENT_OFF);
    if (cut != NULL) {
        cut->time = cut_time;
        cut->bytes = cut_bytes;
    }
    if (attributes != NULL) {
        OTF2_AttributeList_Delete(attributes);
        attributes = NULL;
        attributes_pending = 0;
    }
    OTF2_EvtWriter_GetNumberOfEvents(tl->writer, events);
    int failed = OTF2_Archive_CloseEvtWriter(trace.archive, tl->writer) != OTF2_SUCCESS;
    tl->writer = NULL;
    return failed || tl->write_failed ? -1 : 0;
}

int trace_encode_location(trace_location* tl, uint64_t* events, trace_encode_cut* cut)
{
    return encode_location(tl, events, cut, 0);
}

int trace_encode_prefix(trace_location* tl, uint64_t* events, uint64_t prefix)
{
    trace_encode_cut cut = {.room = prefix};
    return encode_location(tl, events, &cut, 1);
}
