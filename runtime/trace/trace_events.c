/*
 * Event callbacks of the trace substrate: the hot path.
 *
 * Each callback copies its event into the calling location's current raw
 * block (trace_raw.h): a few stores and a pointer bump, no lock, no
 * allocation, no system call besides the clock the event layer already read,
 * no OTF2 call. Once per block the location takes a new one or spills its
 * blocks (trace_blocks.c); OTF2 encodes them at finalisation
 * (trace_encode.c). Ids are process-local; the mapping tables written at
 * finalisation translate them (trace_definitions.c).
 */
#include <string.h>

#include "trace.h"
#include "definitions.h"
#include "strict_metrics.h"

/* The location's next record at time t; stored by the caller, then committed
 * with its word count. */
static inline raw_record* next_record(trace_location* tl, uint64_t t, raw_kind kind, uint32_t id)
{
    raw_record* r = (raw_record*)tl->raw_next;
    r->time = t;
    r->kind = kind;
    r->id = id;
    return r;
}

static inline void commit_record(trace_location* tl, raw_record* r, uint32_t words)
{
    tl->raw_next = (char*)r + raw_bytes(words);
    if (UNLIKELY(tl->raw_next > tl->raw_full_at))
        trace_blocks_full(tl);
}

/* A record of the head and `words` words (the rest of w is not stored),
 * unless SCOREP_TRACING_MAX_SIZE stopped the location. */
static inline void record(scorep_location* loc, uint64_t t, raw_kind kind, uint32_t id,
                          uint32_t words, uint64_t w0, uint64_t w1, uint64_t w2, uint64_t w3)
{
    trace_location* tl = trace_location_of(loc);
    if (UNLIKELY(trace_limit_reached()) && trace_location_stop(tl, t, 0))
        return;
    raw_record* r = next_record(tl, t, kind, id);
    if (words > 0) r->word[0] = w0;
    if (words > 1) r->word[1] = w1;
    if (words > 2) r->word[2] = w2;
    if (words > 3) r->word[3] = w3;
    commit_record(tl, r, words);
}

#define record0(loc, t, kind, id) record(loc, t, kind, id, 0, 0, 0, 0, 0)
#define record1(loc, t, kind, id, a) record(loc, t, kind, id, 1, a, 0, 0, 0)
#define record2(loc, t, kind, id, a, b) record(loc, t, kind, id, 2, a, b, 0, 0)
#define record3(loc, t, kind, id, a, b, c) record(loc, t, kind, id, 3, a, b, c, 0)
#define record4(loc, t, kind, id, a, b, c, d) record(loc, t, kind, id, 4, a, b, c, d)

/* The core's measurement region for buffer flushes ("TRACE_BUFFER_FLUSH"),
 * defined at initialisation; the profile uses the same region. */
extern scorep_region scorep_flush_region;

int trace_location_stop(trace_location* tl, uint64_t t, int skip_newest)
{
    if (tl->stopped)
        return 1;
    tl->stopped = 1;   /* first: a spill for the records below records no flush region */
    const scorep_region* open = NULL;
    uint32_t depth = scorep_location_open_regions(tl->location, &open);
    if (skip_newest && depth > 0)
        depth--;
    while (depth > 0)
        commit_record(tl, next_record(tl, t, RAW_LEAVE, open[--depth]), 0);
    commit_record(tl, next_record(tl, t, RAW_MEASUREMENT_OFF, 0), 0);
    static atomic_int warned;
    const char* why = trace_memory_stop_reason();
    if (why != NULL && !atomic_exchange(&warned, 1))
        scorep_warning("trace: %s: tracing stops here, marked in the trace by a MeasurementOnOff "
                       "record after the open regions are left; the profile goes on", why);
    else if (!atomic_exchange(&warned, 1))
        scorep_warning("trace: the events of the processes on this node reached "
                       "SCOREP_TRACING_MAX_SIZE=%llu bytes (a budget shared by the node's processes): "
                       "tracing stops here, marked in the trace by a MeasurementOnOff record after "
                       "the open regions are left; the profile goes on. Set SCOREP_TRACING_MAX_SIZE "
                       "(e.g. 8G, or unlimited) to trace more",
                       (unsigned long long)trace_budget_bytes());
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

/* The synchronous strict metrics' values (strict_metrics.h) of an Enter or
 * a Leave, before it, four to a record (the location's array has room for
 * a multiple of four); the encoder writes them as one Metric record.
 * Score-P writes none with ProgramBegin and ProgramEnd. */
static inline void record_strict_metrics(scorep_location* loc, trace_location* tl, uint64_t t,
                                         scorep_region region)
{
    if (region == scorep_program_region) return;
    const uint64_t* v = loc->metric_values;
    for (uint32_t i = 0; i < scorep_strict_metric_count; i += 4) {
        raw_record* r = next_record(tl, t, RAW_STRICT_METRICS, i);
        memcpy(r->word, v + i, sizeof r->word);
        commit_record(tl, r, 4);
    }
}

static void enter(scorep_location* loc, uint64_t t, scorep_region region)
{
    trace_location* tl = trace_location_of(loc);
    /* the region is on the location's stack already: its enter is declined */
    if (UNLIKELY(trace_limit_reached()) && trace_location_stop(tl, t, 1))
        return;
    if (UNLIKELY(loc->metric_values != NULL)) record_strict_metrics(loc, tl, t, region);
    commit_record(tl, next_record(tl, t, RAW_ENTER, region), 0);
}

static void leave(scorep_location* loc, uint64_t t, scorep_region region)
{
    trace_location* tl = trace_location_of(loc);
    if (UNLIKELY(trace_limit_reached())) {
        if (tl->stopped)
            return;
        /* its enter was recorded (and it is off the stack already) */
        commit_record(tl, next_record(tl, t, RAW_LEAVE, region), 0);
        trace_location_stop(tl, t, 0);
        return;
    }
    if (UNLIKELY(loc->metric_values != NULL)) record_strict_metrics(loc, tl, t, region);
    commit_record(tl, next_record(tl, t, RAW_LEAVE, region), 0);
}

static void mpi_send(scorep_location* loc, uint64_t t, scorep_comm comm, int peer, int tag,
                     uint64_t bytes)
{
    record2(loc, t, RAW_MPI_SEND, comm, raw_pack((uint32_t)peer, (uint32_t)tag), bytes);
}

static void mpi_recv(scorep_location* loc, uint64_t t, scorep_comm comm, int peer, int tag,
                     uint64_t bytes)
{
    record2(loc, t, RAW_MPI_RECV, comm, raw_pack((uint32_t)peer, (uint32_t)tag), bytes);
}

static void mpi_isend(scorep_location* loc, uint64_t t, scorep_comm comm, int peer, int tag,
                      uint64_t bytes, uint64_t request_id)
{
    record3(loc, t, RAW_MPI_ISEND, comm, raw_pack((uint32_t)peer, (uint32_t)tag), bytes,
            request_id);
}

static void mpi_isend_complete(scorep_location* loc, uint64_t t, uint64_t request_id)
{
    record1(loc, t, RAW_MPI_ISEND_COMPLETE, 0, request_id);
}

static void mpi_irecv_request(scorep_location* loc, uint64_t t, uint64_t request_id)
{
    record1(loc, t, RAW_MPI_IRECV_REQUEST, 0, request_id);
}

static void mpi_irecv(scorep_location* loc, uint64_t t, scorep_comm comm, int peer, int tag,
                      uint64_t bytes, uint64_t request_id)
{
    record3(loc, t, RAW_MPI_IRECV, comm, raw_pack((uint32_t)peer, (uint32_t)tag), bytes,
            request_id);
}

static void mpi_request_test(scorep_location* loc, uint64_t t, uint64_t request_id)
{
    record1(loc, t, RAW_MPI_REQUEST_TEST, 0, request_id);
}

static void mpi_request_cancelled(scorep_location* loc, uint64_t t, uint64_t request_id)
{
    record1(loc, t, RAW_MPI_REQUEST_CANCELLED, 0, request_id);
}

static void mpi_collective_begin(scorep_location* loc, uint64_t t)
{
    record0(loc, t, RAW_MPI_COLLECTIVE_BEGIN, 0);
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
    record3(loc, t, RAW_MPI_COLLECTIVE_END, comm, raw_pack((uint32_t)kind, root_of(root)),
            bytes_sent, bytes_received);
}

static void rma_win_create(scorep_location* loc, uint64_t t, scorep_window win)
{
    record0(loc, t, RAW_RMA_WIN_CREATE, win);
}

static void rma_win_destroy(scorep_location* loc, uint64_t t, scorep_window win)
{
    record0(loc, t, RAW_RMA_WIN_DESTROY, win);
}

static void rma_put(scorep_location* loc, uint64_t t, scorep_window win, int target,
                    uint64_t bytes, uint64_t matching_id)
{
    record3(loc, t, RAW_RMA_PUT, win, (uint32_t)target, bytes, matching_id);
}

static void rma_get(scorep_location* loc, uint64_t t, scorep_window win, int target,
                    uint64_t bytes, uint64_t matching_id)
{
    record3(loc, t, RAW_RMA_GET, win, (uint32_t)target, bytes, matching_id);
}

static void rma_atomic(scorep_location* loc, uint64_t t, scorep_window win, int target,
                       scorep_rma_atomic_kind kind, uint64_t bytes_sent,
                       uint64_t bytes_received, uint64_t matching_id)
{
    record4(loc, t, RAW_RMA_ATOMIC, win, raw_pack((uint32_t)target, atomic_type(kind)),
            bytes_sent, bytes_received, matching_id);
}

static void rma_op_complete(scorep_location* loc, uint64_t t, scorep_window win,
                            uint64_t matching_id, int blocking)
{
    record1(loc, t, blocking ? RAW_RMA_OP_COMPLETE_BLOCKING : RAW_RMA_OP_COMPLETE_NON_BLOCKING,
            win, matching_id);
}

static void rma_collective_begin(scorep_location* loc, uint64_t t)
{
    record0(loc, t, RAW_RMA_COLLECTIVE_BEGIN, 0);
}

static void rma_collective_end(scorep_location* loc, uint64_t t, scorep_collective_kind kind,
                               scorep_rma_sync_level level, scorep_window win, int root,
                               uint64_t bytes_sent, uint64_t bytes_received)
{
    record4(loc, t, RAW_RMA_COLLECTIVE_END, win, raw_pack((uint32_t)kind, (uint32_t)level),
            root_of(root), bytes_sent, bytes_received);
}

/* The group is a core comm-table id; trace_definitions.c maps it to the OTF2
 * group written for that entry. */
static void rma_group_sync(scorep_location* loc, uint64_t t, scorep_rma_sync_level level,
                           scorep_window win, scorep_comm group)
{
    record1(loc, t, RAW_RMA_GROUP_SYNC, win, raw_pack((uint32_t)level, group));
}

/* target -1 (all processes) is OTF2's undefined rank; one lock per window
 * and target, so the lock id is 0. */
static void rma_lock(scorep_location* loc, uint64_t t, scorep_window win, int target,
                     int exclusive)
{
    record1(loc, t, RAW_RMA_ACQUIRE_LOCK, win, raw_pack(root_of(target), exclusive != 0));
}

static void rma_unlock(scorep_location* loc, uint64_t t, scorep_window win, int target)
{
    record1(loc, t, RAW_RMA_RELEASE_LOCK, win, root_of(target));
}

static void rma_sync(scorep_location* loc, uint64_t t, scorep_window win, int target)
{
    record1(loc, t, RAW_RMA_SYNC, win, root_of(target));
}

static void parameter_int(scorep_location* loc, uint64_t t, scorep_parameter param,
                          int64_t value)
{
    record1(loc, t, RAW_PARAMETER_INT, param, (uint64_t)value);
}

static void parameter_string(scorep_location* loc, uint64_t t, scorep_parameter param,
                             scorep_string value)
{
    record1(loc, t, RAW_PARAMETER_STRING, param, value);
}

/* I/O handles (the I/O adapters): the handle is the record's id */
static void io_create_handle(scorep_location* loc, uint64_t t, scorep_io_handle handle, scorep_io_access mode,
                             uint32_t open_flags)
{
    record1(loc, t, RAW_IO_CREATE_HANDLE, handle, (uint64_t)mode | (uint64_t)open_flags << 32);
}

static void io_destroy_handle(scorep_location* loc, uint64_t t, scorep_io_handle handle)
{
    record0(loc, t, RAW_IO_DESTROY_HANDLE, handle);
}

/* the old handle is the record's id, the new one the first word: the
 * location's OTF2_MAPPING_IO_HANDLE table translates both (trace_io.c) */
static void io_duplicate_handle(scorep_location* loc, uint64_t t, scorep_io_handle old_handle,
                                scorep_io_handle new_handle, int close_on_exec)
{
    record2(loc, t, RAW_IO_DUPLICATE_HANDLE, old_handle, new_handle, (uint64_t)(close_on_exec != 0));
}

static void io_operation_begin(scorep_location* loc, uint64_t t, scorep_io_handle handle,
                               scorep_io_operation mode, uint64_t bytes_request, uint64_t matching_id)
{
    record3(loc, t, RAW_IO_OPERATION_BEGIN, handle, (uint64_t)mode, bytes_request, matching_id);
}

static void io_operation_complete(scorep_location* loc, uint64_t t, scorep_io_handle handle,
                                  uint64_t bytes_result, uint64_t matching_id)
{
    record2(loc, t, RAW_IO_OPERATION_COMPLETE, handle, bytes_result, matching_id);
}

/* POSIX aio's records (io_async.c): encoded by trace_io.c */
static void io_operation_async(scorep_location* loc, uint64_t t, scorep_io_async_event event, scorep_io_handle handle,
                               scorep_io_operation mode, uint64_t bytes_request, uint64_t matching_id)
{
    record3(loc, t, RAW_IO_OPERATION_ASYNC, handle, raw_pack((uint32_t)event, (uint32_t)mode), bytes_request,
            matching_id);
}

static void io_seek(scorep_location* loc, uint64_t t, scorep_io_handle handle, int64_t offset_request,
                    int whence, uint64_t offset_result)
{
    record3(loc, t, RAW_IO_SEEK, handle, (uint64_t)offset_request, (uint64_t)(int64_t)whence, offset_result);
}

/* a user metric's value (scorep_metric_add: the memory adapter's bytes per
 * call): an OTF2 Metric record of the metric's class (trace_definitions.c) */
static void metric_add(scorep_location* loc, uint64_t t, scorep_metric metric, int64_t value)
{
    record1(loc, t, RAW_METRIC, metric, (uint64_t)value);
}

/* the thread adapter's events: the kind is the record's id */
static void thread_event(scorep_location* loc, uint64_t t, scorep_thread_event_kind kind, uint64_t sequence)
{
    record1(loc, t, RAW_THREAD, (uint32_t)kind, sequence);
    __atomic_store_n(&trace_thread_events, 1, __ATOMIC_RELAXED);
}

/* a member's part of a fork/join team: the team is its forker's location
 * and its key, level and size (trace_threads.c numbers the process's teams) */
static uint64_t team_word(const scorep_thread_team* team)
{
    return (uint64_t)team->forker->local_id << 32 | team->level << 24 |
           (__atomic_load_n(&team->size, __ATOMIC_RELAXED) & 0xffffff);
}

static void thread_team_begin(scorep_location* loc, uint64_t t, const scorep_thread_team* team)
{
    record1(loc, t, RAW_THREAD, SCOREP_THREAD_TEAM_BEGIN, team_word(team));
    __atomic_store_n(&trace_thread_events, 1, __ATOMIC_RELAXED);
}

static void thread_team_end(scorep_location* loc, uint64_t t, const scorep_thread_team* team)
{
    record1(loc, t, RAW_THREAD, SCOREP_THREAD_TEAM_END, team_word(team));
}

static void thread_task(scorep_location* loc, uint64_t t, scorep_thread_event_kind kind, const scorep_thread_team* team,
                        uint32_t creator, uint32_t generation)
{
    record2(loc, t, RAW_THREAD_TASK, (uint32_t)kind, team ? team_word(team) : 0, raw_pack(generation, creator));
    __atomic_store_n(&trace_thread_events, 1, __ATOMIC_RELAXED);
}

int trace_handle_collectives;
int trace_attributes_used;

/* CommCreate and CommDestroy always; the collective pair around them only
 * with SCOREP_TRACING_HANDLE_COLLECTIVES (trace_substrate.c): Scalasca 2.6
 * stops on an MpiCollectiveEnd of OTF2's CREATE_HANDLE or DESTROY_HANDLE
 * (docs/MPI_ADAPTER.md), while OTF2 2.x readers skip the CommCreate and
 * CommDestroy records they do not know. */
static void comm_event(scorep_location* loc, uint64_t t, scorep_comm_event kind, scorep_comm comm)
{
    switch (kind) {
    case SCOREP_COMM_EVENT_CREATE: record0(loc, t, RAW_COMM_CREATE, comm); break;
    case SCOREP_COMM_EVENT_DESTROY: record0(loc, t, RAW_COMM_DESTROY, comm); break;
    case SCOREP_COMM_EVENT_HANDLE_BEGIN:
        if (trace_handle_collectives) record0(loc, t, RAW_MPI_COLLECTIVE_BEGIN, 0);
        break;
    case SCOREP_COMM_EVENT_HANDLE_END_CREATE:
    case SCOREP_COMM_EVENT_HANDLE_END_DESTROY:
        if (trace_handle_collectives) {
            scorep_collective_kind op = kind == SCOREP_COMM_EVENT_HANDLE_END_CREATE ? SCOREP_COLL_CREATE_HANDLE
                                                                                     : SCOREP_COLL_DESTROY_HANDLE;
            record3(loc, t, RAW_MPI_COLLECTIVE_END, comm, raw_pack((uint32_t)op, root_of(SCOREP_NO_ROOT)), 0, 0);
        }
        break;
    }
}

/* the attribute is stored before the record it belongs to, with that
 * location's last time (trace_encode.c attaches it) */
static void attribute(scorep_location* loc, scorep_attribute_kind kind, uint64_t value)
{
    record1(loc, loc->last_ticks, RAW_ATTRIBUTE, (uint32_t)kind, value);
    __atomic_store_n(&trace_attributes_used, 1, __ATOMIC_RELAXED);
}

/* Called right after a spill (trace_blocks.c), in a fresh block. */
static void buffer_flush(scorep_location* loc, uint64_t t_begin, uint64_t t_end)
{
    trace_location* tl = trace_location_of(loc);
    if (tl->stopped)
        return;
    commit_record(tl, next_record(tl, t_begin, RAW_ENTER, scorep_flush_region), 0);
    commit_record(tl, next_record(tl, t_end, RAW_LEAVE, scorep_flush_region), 0);
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
    table->io_create_handle = io_create_handle;
    table->io_destroy_handle = io_destroy_handle;
    table->io_duplicate_handle = io_duplicate_handle;
    table->io_operation_begin = io_operation_begin;
    table->io_operation_complete = io_operation_complete;
    table->io_seek = io_seek;
    table->io_operation_async = io_operation_async;
    table->thread_event = thread_event;
    table->thread_team_begin = thread_team_begin;
    table->thread_task = thread_task;
    table->thread_team_end = thread_team_end;
    table->comm_event = comm_event;
    table->attribute = attribute;
    table->metric_add = metric_add;
}
