/* Run-time support of the OpenSHMEM adapter (see scorep_shmem_adapter.h). */
#include <mpi.h>
#include <stdlib.h>

#include "scorep_shmem_adapter.h"
#include "scorep_wrapgen/mpi_layer.h"

#define UNLIKELY(x) __builtin_expect(!!(x), 0)

static int world_rank;
static int world_size;       /* 0 until shmem_init returned */

/* Every PE's symmetric objects (static data and the symmetric heap) are
 * remotely accessible: one window over all PEs, keyed alike on every PE. */
#define SHMEM_KEY ((uint64_t)0x5E0Du << 48)
static scorep_window heap_window = SCOREP_INVALID_ID;
static scorep_parameter pe_parameter = SCOREP_INVALID_ID;
static uint64_t next_id;

static void sets_free(void);

void scorep_shmem_init_done(void)
{
    int initialized = 0;
    PMPI_Initialized(&initialized);
    if (!initialized || world_size) return;   /* a failed init, or a second one */
    scorep_mpi_layer_init();
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
    heap_window = scorep_rma_window_define(SHMEM_KEY | 1u, SCOREP_COMM_WORLD, "symmetric heap");
    scorep_rma_window_create(heap_window);
    pe_parameter = scorep_parameter_define("pe", SCOREP_PARAMETER_INT64);
}

void scorep_shmem_finalize(void)
{
    if (!world_size) return;
    scorep_rma_window_free(heap_window);
    scorep_mpi_layer_finalize();
    sets_free();
}

void scorep_shmem_abort(void)
{
    if (world_size) scorep_mpi_layer_abort();
}

/* ---- one-sided operations ----
 * A put, get or atomic is the whole call: issued right after its enter (the
 * enter's time, with the target parameter, in one call into the core) and
 * complete right before its exit. A call before shmem_init or to a PE that
 * does not exist records nothing but its region. */

static inline int issue(int pe, scorep_shmem_op* op)
{
    if (UNLIKELY(pe < 0 || pe >= world_size)) {
        op->id = 0;
        return 0;
    }
    op->id = ++next_id;
    return 1;
}

void scorep_shmem_put(int pe, uint64_t bytes, scorep_shmem_op* op)
{
    if (issue(pe, op)) scorep_rma_put_at_call_start(heap_window, pe, bytes, op->id, pe_parameter, pe);
}

void scorep_shmem_get(int pe, uint64_t bytes, scorep_shmem_op* op)
{
    if (issue(pe, op)) scorep_rma_get_at_call_start(heap_window, pe, bytes, op->id, pe_parameter, pe);
}

void scorep_shmem_atomic(int pe, scorep_rma_atomic_kind kind, uint64_t sent, uint64_t received,
                         scorep_shmem_op* op)
{
    if (issue(pe, op))
        scorep_rma_atomic_at_call_start(heap_window, pe, kind, sent, received, op->id, pe_parameter, pe);
}

void scorep_shmem_complete(const scorep_shmem_op* op, int blocking)
{
    if (op->id) scorep_rma_op_complete_at_call_end(heap_window, op->id, blocking);
}

/* ---- active sets ----
 * An active set is a communicator of the core keyed by its triple, so that
 * its PEs define the same one. Each set is defined once, at its first
 * collective (which allocates); the core appends a communicator at every
 * definition, so the sets seen are kept, never evicted. A program uses a
 * few: the table is searched from the most recent. */
typedef struct active_set {
    int start, log_stride, size;
    scorep_comm comm;
} active_set;
static active_set* sets;
static size_t set_count, set_capacity;
static size_t last_set;

static scorep_comm set_comm(int start, int log_stride, int size)
{
    if (size < 0 || (start == 0 && size == world_size && log_stride == 0)) return SCOREP_COMM_WORLD;
    if (last_set < set_count && sets[last_set].start == start && sets[last_set].log_stride == log_stride &&
        sets[last_set].size == size)
        return sets[last_set].comm;
    for (size_t i = set_count; i-- > 0;)
        if (sets[i].start == start && sets[i].log_stride == log_stride && sets[i].size == size) {
            last_set = i;
            return sets[i].comm;
        }
    /* a set that names PEs that do not exist is the library's error to
     * report: its collective is counted over all PEs */
    if (size <= 0 || log_stride < 0 || log_stride > 30 || start < 0 ||
        start + ((int64_t)(size - 1) << log_stride) >= world_size)
        return SCOREP_COMM_WORLD;
    if (set_count == set_capacity) {
        size_t capacity = set_capacity ? 2 * set_capacity : 16;
        active_set* grown = realloc(sets, capacity * sizeof *grown);
        if (!grown) return SCOREP_COMM_WORLD;
        sets = grown;
        set_capacity = capacity;
    }
    int* members = malloc((size_t)size * sizeof(int));
    if (!members) return SCOREP_COMM_WORLD;
    for (int i = 0; i < size; i++) members[i] = start + (i << log_stride);
    uint64_t key = ((uint64_t)0x5E0Eu << 48) | ((uint64_t)(uint16_t)start << 32) |
                   ((uint64_t)(uint8_t)log_stride << 24) | (uint64_t)(size & 0xFFFFFF);
    scorep_comm comm = scorep_comm_define(key, 0, (uint32_t)size, members, "active set");
    free(members);
    last_set = set_count;
    sets[set_count++] = (active_set){start, log_stride, size, comm};
    return comm;
}

static void sets_free(void)
{
    free(sets);
    sets = NULL;
    set_count = set_capacity = last_set = 0;
}

void scorep_shmem_collective_end(scorep_collective_kind kind, int start, int log_stride, int size, int root,
                                 uint64_t bytes)
{
    scorep_comm comm = set_comm(start, log_stride, size);
    int n = size < 0 ? world_size : size;
    int me = size < 0 ? world_rank : (world_rank - start) >> (log_stride > 0 ? log_stride : 0);
    uint64_t sent = bytes, received = bytes;
    switch (kind) {
    case SCOREP_COLL_BARRIER: sent = received = 0; break;
    case SCOREP_COLL_BCAST:
        if (root == me) received = 0;
        else sent = 0;
        break;
    case SCOREP_COLL_ALLGATHER: received = bytes * (uint64_t)n; break;
    case SCOREP_COLL_ALLGATHERV: received = 0; break;   /* the others' counts are not known here */
    case SCOREP_COLL_ALLTOALL: sent = received = bytes * (uint64_t)n; break;
    default: break;
    }
    scorep_mpi_collective_end(kind, comm, root >= 0 ? root : SCOREP_NO_ROOT, sent, received);
}
