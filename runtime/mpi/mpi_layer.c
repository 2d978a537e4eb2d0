/* The MPI layer: the core's collective operations over PMPI, communicator,
 * group and window bookkeeping, and status decoding for C, Fortran and
 * Fortran 2008 status objects. */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "abort_peers.h"
#include "clock_sync.h"
#include "internal.h"
#include "experiment.h"
#include "lifecycle.h"
#include "mpi_requests.h"
#include "multiprocess.h"
#include "scorep_wrapgen/mpi_layer.h"

static MPI_Comm layer_comm = MPI_COMM_NULL;
static scorep_multiprocess_ops ops;
static int world_rank;
static pid_t layer_pid;
/* MPI was found running at a wrapper's first use, its MPI_Init unseen: the
 * ranks agree on nothing before MPI_Finalize (layer_comm stays null) */
static int layer_late;
static int layer_seen;    /* init or late init happened in this process */
static pthread_mutex_t late_lock = PTHREAD_MUTEX_INITIALIZER;
static void layer_exit_check(void);
static int layer_process_ends(void);
static uint32_t comm_counter;
#define LAYER_TAG 0x5C0E

/* ---- collective operations for the core ---- */

static void layer_barrier(void) { PMPI_Barrier(layer_comm); }

/* MPI counts are int: move big buffers in pieces */
#define PIECE ((size_t)1 << 30)

static void layer_bcast(void* buffer, size_t bytes, int root)
{
    for (size_t off = 0; off < bytes || (bytes == 0 && off == 0); off += PIECE) {
        size_t n = bytes - off < PIECE ? bytes - off : PIECE;
        PMPI_Bcast((char*)buffer + off, (int)n, MPI_BYTE, root, layer_comm);
        if (bytes == 0) break;
    }
}

static void layer_gather(const void* send, size_t bytes, void* recv, int root)
{
    PMPI_Gather(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE, root, layer_comm);
}

static int* int_array(const size_t* values, int n)
{
    int* out = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    for (int i = 0; i < n; i++) out[i] = values ? (int)values[i] : 0;
    return out;
}

static void layer_gatherv(const void* send, size_t bytes, void* recv, const size_t* counts, const size_t* displs,
                          int root)
{
    int n = ops.rank == root ? ops.size : 0;
    int* c = int_array(ops.rank == root ? counts : NULL, n);
    int* d = int_array(ops.rank == root ? displs : NULL, n);
    PMPI_Gatherv(send, (int)bytes, MPI_BYTE, recv, c, d, MPI_BYTE, root, layer_comm);
    free(c);
    free(d);
}

static void layer_scatter(const void* send, void* recv, size_t bytes, int root)
{
    PMPI_Scatter(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE, root, layer_comm);
}

static void layer_scatterv(const void* send, const size_t* counts, const size_t* displs, void* recv, size_t bytes,
                           int root)
{
    int n = ops.rank == root ? ops.size : 0;
    int* c = int_array(ops.rank == root ? counts : NULL, n);
    int* d = int_array(ops.rank == root ? displs : NULL, n);
    PMPI_Scatterv(send, c, d, MPI_BYTE, recv, (int)bytes, MPI_BYTE, root, layer_comm);
    free(c);
    free(d);
}

static void layer_allreduce(uint64_t* values, size_t count, int op)
{
    MPI_Op mpi_op = op == 1 ? MPI_MIN : op == 2 ? MPI_MAX : MPI_SUM;
    PMPI_Allreduce(MPI_IN_PLACE, values, (int)count, MPI_UINT64_T, mpi_op, layer_comm);
}

static void layer_send(const void* buffer, size_t bytes, int dest)
{
    uint64_t n = bytes;
    PMPI_Send(&n, 1, MPI_UINT64_T, dest, LAYER_TAG, layer_comm);
    for (size_t off = 0; off < bytes; off += PIECE) {
        size_t k = bytes - off < PIECE ? bytes - off : PIECE;
        PMPI_Send((const char*)buffer + off, (int)k, MPI_BYTE, dest, LAYER_TAG, layer_comm);
    }
}

static void* layer_recv(int source, size_t* bytes)
{
    uint64_t n = 0;
    PMPI_Recv(&n, 1, MPI_UINT64_T, source, LAYER_TAG, layer_comm, MPI_STATUS_IGNORE);
    char* buffer = malloc(n ? n : 1);
    for (size_t off = 0; off < n; off += PIECE) {
        size_t k = n - off < PIECE ? n - off : PIECE;
        PMPI_Recv(buffer + off, (int)k, MPI_BYTE, source, LAYER_TAG, layer_comm, MPI_STATUS_IGNORE);
    }
    *bytes = n;
    return buffer;
}

static void layer_abort(int code) { PMPI_Abort(MPI_COMM_WORLD, code); }

/* ---- status decoding ---- */

static int decode_c(const void* status, scorep_status_fields* out)
{
    const MPI_Status* s = status;
    out->source = s->MPI_SOURCE;
    out->tag = s->MPI_TAG;
    out->error = s->MPI_ERROR;
    int count = 0, flag = 0;
    PMPI_Get_count(s, MPI_BYTE, &count);
    out->bytes = count == MPI_UNDEFINED || count < 0 ? 0 : (uint64_t)count;
    PMPI_Test_cancelled(s, &flag);
    out->cancelled = flag;
    return 0;
}

scorep_region scorep_mpi_procedure_region(const char* name, int role, const char* group)
{
    scorep_mpi_layer_notice();
    /* racing threads get the same id: the core deduplicates definitions */
    /* the file "MPI", as Score-P names it: Cube matches regions by file, and
     * Scalasca recognises MPI regions by it */
    return scorep_region_define(name, "MPI", SCOREP_PARADIGM_MPI, (scorep_region_role)role, group);
}

/* 1 if PMPI_Status_f2c copies the INTEGERs of a status the size of the C
 * one: every byte of the C status comes from the Fortran status, unchanged
 * (two prefills tell bytes the conversion leaves alone). */
static int status_f2c_is_copy(void)
{
    if (sizeof(MPI_Status) % sizeof(MPI_Fint) != 0) return 0;
    enum { N = sizeof(MPI_Status) / sizeof(MPI_Fint) };
    MPI_Fint probe[N];
    for (int i = 0; i < N; i++) probe[i] = (MPI_Fint)(0x5a5a0000 + 97 * i);
    for (int fill = 0; fill < 2; fill++) {
        MPI_Status converted;
        memset(&converted, fill ? 0xff : 0x00, sizeof converted);
        if (PMPI_Status_f2c(probe, &converted) != MPI_SUCCESS) return 0;
        if (memcmp(&converted, probe, sizeof converted) != 0) return 0;
    }
    return 1;
}

int scorep_mpi_status_f2c_copies = -1;   /* a race only repeats the check */

int scorep_mpi_status_f2c(const MPI_Fint* f_status, MPI_Status* c_status)
{
    if (!f_status)
        return MPI_ERR_ARG;
    if (__builtin_expect(scorep_mpi_status_f2c_copies < 0, 0))
        scorep_mpi_status_f2c_copies = status_f2c_is_copy();
    if (scorep_mpi_status_f2c_copies) {
        memcpy(c_status, f_status, sizeof *c_status);
        return MPI_SUCCESS;
    }
    return PMPI_Status_f2c(f_status, c_status);
}

static int decode_fortran(const void* status, scorep_status_fields* out)
{
    MPI_Status scratch;
    const MPI_Status* c = scorep_mpi_status_from_fortran((const MPI_Fint*)status, &scratch);
    return c ? decode_c(c, out) : -1;
}

static int decode_fortran2008(const void* status, scorep_status_fields* out)
{
    /* Open MPI 4 and MPICH 4 lay type(MPI_Status) out like the INTEGER status
     * array (MPICH's C library does not export PMPI_Status_f082c). */
    return decode_fortran(status, out);
}

__attribute__((constructor)) static void announce_mpi(void)
{
    /* the experiment directory waits for MPI_Init so all ranks share one */
    scorep_multiprocess_expect();
    scorep_register_status_decoder(SCOREP_LANGUAGE_C, decode_c);
    scorep_register_status_decoder(SCOREP_LANGUAGE_FORTRAN, decode_fortran);
    scorep_register_status_decoder(SCOREP_LANGUAGE_FORTRAN2008, decode_fortran2008);
    scorep_multiprocess_set_exit_check(layer_exit_check);
    scorep_multiprocess_set_process_ends(layer_process_ends);
}

/* ---- handle tables ---- */

typedef struct handle_entry {
    MPI_Fint handle;
    uint32_t id;
} handle_entry;

typedef struct handle_table {
    handle_entry* entries;
    size_t count, capacity;
} handle_table;

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static handle_table comm_table, win_table;

static int table_find(handle_table* t, MPI_Fint handle, uint32_t* id)
{
    for (size_t i = t->count; i-- > 0;)
        if (t->entries[i].handle == handle) {
            *id = t->entries[i].id;
            return 1;
        }
    return 0;
}

static void table_set(handle_table* t, MPI_Fint handle, uint32_t id)
{
    for (size_t i = 0; i < t->count; i++)
        if (t->entries[i].handle == handle) {
            t->entries[i].id = id;
            return;
        }
    if (t->count == t->capacity) {
        t->capacity = t->capacity ? 2 * t->capacity : 32;
        t->entries = realloc(t->entries, t->capacity * sizeof *t->entries);
    }
    t->entries[t->count++] = (handle_entry){handle, id};
}

static void table_remove(handle_table* t, MPI_Fint handle)
{
    for (size_t i = 0; i < t->count; i++)
        if (t->entries[i].handle == handle) {
            t->entries[i] = t->entries[--t->count];
            return;
        }
}

static int* world_ranks_of_group(MPI_Group group, int* size)
{
    MPI_Group world_group;
    PMPI_Group_size(group, size);
    int* local = malloc((size_t)(*size > 0 ? *size : 1) * sizeof(int));
    int* world = malloc((size_t)(*size > 0 ? *size : 1) * sizeof(int));
    for (int i = 0; i < *size; i++) local[i] = i;
    PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
    PMPI_Group_translate_ranks(group, *size, local, world_group, world);
    PMPI_Group_free(&world_group);
    free(local);
    return world;
}

/* Every measured call with a communicator or window looks its id up, and the
 * tables are shared under a lock. So each thread keeps the ids it looked up
 * last, by handle value (a pointer in Open MPI, an int in MPICH), valid while
 * its table has not changed since: the table's generation is read before the
 * table, so an entry never outlives a change it missed. */
#define HANDLE_CACHE_SIZE 8
typedef struct handle_cache_entry {
    uintptr_t handle;
    uint32_t id;
    uint64_t generation;
} handle_cache_entry;
typedef struct handle_cache {
    handle_cache_entry entries[HANDLE_CACHE_SIZE];
} handle_cache;
enum { COMM_IDS, WINDOW_IDS, CACHED_TABLES };
static uint64_t table_generation[CACHED_TABLES] = {1, 1};
static __thread handle_cache id_cache[CACHED_TABLES] TLS_FAST;
/* communicator ids by Fortran handle (generation of COMM_IDS) */
static __thread handle_cache fortran_comm_ids TLS_FAST;

static inline handle_cache_entry* slot_of(handle_cache* cache, uintptr_t handle)
{
    return &cache->entries[(handle ^ (handle >> 4) ^ (handle >> 12)) & (HANDLE_CACHE_SIZE - 1)];
}

static inline handle_cache_entry* cache_slot(int table, uintptr_t handle)
{
    return slot_of(&id_cache[table], handle);
}

/* caller holds table_lock and has just changed the table */
static void table_changed(int table)
{
    __atomic_fetch_add(&table_generation[table], 1, __ATOMIC_RELEASE);
}

/* id of a handle: this thread's cache, else the locked table (keyed by the
 * Fortran handle, converted only on a miss) */
static inline int cache_hit(const handle_cache_entry* cached, uint64_t generation, uintptr_t handle,
                            uint32_t* id)
{
    if (cached->generation != generation || cached->handle != handle) return 0;
    *id = cached->id;
    return 1;
}

static int cached_find(int table, handle_table* t, uintptr_t handle, MPI_Fint (*fortran_handle)(uintptr_t),
                       uint32_t* id)
{
    handle_cache_entry* cached = cache_slot(table, handle);
    uint64_t generation = __atomic_load_n(&table_generation[table], __ATOMIC_ACQUIRE);
    if (cache_hit(cached, generation, handle, id)) return 1;
    MPI_Fint f = fortran_handle(handle);
    pthread_mutex_lock(&table_lock);
    int found = table_find(t, f, id);
    pthread_mutex_unlock(&table_lock);
    if (found) *cached = (handle_cache_entry){handle, *id, generation};
    return found;
}

/* The handle value back as the MPI type: the inverse of (uintptr_t)handle. */
static MPI_Fint comm_to_fortran(uintptr_t handle) { return PMPI_Comm_c2f((MPI_Comm)handle); }
static MPI_Fint win_to_fortran(uintptr_t handle) { return PMPI_Win_c2f((MPI_Win)handle); }

/* The world ranks a communicator's peer ranks name: its group's, or on an
 * intercommunicator the remote group's (MPI semantics), with its own group
 * beside them. An intercommunicator to processes outside MPI_COMM_WORLD
 * (MPI_Comm_spawn, connect/accept, join between jobs) has no world ranks
 * for its remote group: it is kept as its own group only, as an
 * intracommunicator (its messages are not resolved to the other job). */
typedef struct comm_groups {
    int size, remote_size;
    int *local, *remote;   /* remote NULL: an intracommunicator, or one to another job */
} comm_groups;

static void comm_groups_of(MPI_Comm comm, comm_groups* g)
{
    MPI_Group group;
    int inter = 0;
    PMPI_Comm_group(comm, &group);
    g->local = world_ranks_of_group(group, &g->size);
    PMPI_Group_free(&group);
    g->remote = NULL;
    g->remote_size = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (!inter) return;
    PMPI_Comm_remote_group(comm, &group);
    g->remote = world_ranks_of_group(group, &g->remote_size);
    PMPI_Group_free(&group);
    for (int i = 0; i < g->remote_size || i == 0; i++)   /* an empty remote group: the same */
        if (g->remote_size == 0 || g->remote[i] == MPI_UNDEFINED) {
            free(g->remote);
            g->remote = NULL;
            g->remote_size = 0;
            return;
        }
}

static int lowest_rank(const int* ranks, int n)
{
    int low = INT_MAX;
    for (int i = 0; i < n; i++)
        if (ranks[i] < low) low = ranks[i];
    return low;
}

static scorep_comm define_comm(MPI_Comm comm, uint64_t key, comm_groups* g)
{
    char name[MPI_MAX_OBJECT_NAME] = "";
    int len = 0;
    PMPI_Comm_get_name(comm, name, &len);
    scorep_comm id = g->remote ? scorep_comm_define_inter(key, (uint32_t)g->size, g->local, (uint32_t)g->remote_size,
                                                          g->remote, len > 0 ? name : NULL)
                               : scorep_comm_define(key, 0, (uint32_t)g->size, g->local, len > 0 ? name : NULL);
    free(g->local);
    free(g->remote);
    pthread_mutex_lock(&table_lock);
    table_set(&comm_table, PMPI_Comm_c2f(comm), id);
    table_changed(COMM_IDS);
    pthread_mutex_unlock(&table_lock);
    return id;
}

static uint64_t next_local_key(void)
{
    return ((uint64_t)(uint32_t)world_rank << 32) | __atomic_fetch_add(&comm_counter, 1, __ATOMIC_RELAXED);
}

/* One key for both groups of an intercommunicator, so that it unifies into
 * one communicator: rank 0 of the group holding the lowest world rank (A)
 * makes it; an intercommunicator broadcast goes from A's rank 0 to group B,
 * a second one from B's rank 0 to group A. */
static uint64_t inter_key(MPI_Comm comm, const comm_groups* g)
{
    int rank;
    PMPI_Comm_rank(comm, &rank);
    int in_a = lowest_rank(g->local, g->size) < lowest_rank(g->remote, g->remote_size);
    int root_here = rank == 0 ? MPI_ROOT : MPI_PROC_NULL;
    uint64_t key = in_a && rank == 0 ? next_local_key() : 0;
    PMPI_Bcast(&key, 1, MPI_UINT64_T, in_a ? root_here : 0, comm);
    PMPI_Bcast(&key, 1, MPI_UINT64_T, in_a ? 0 : root_here, comm);
    return key;
}

scorep_comm scorep_mpi_comm_create(MPI_Comm newcomm)
{
    if (newcomm == MPI_COMM_NULL) return SCOREP_INVALID_ID;
    int inter = 0;
    PMPI_Comm_test_inter(newcomm, &inter);
    comm_groups g;
    comm_groups_of(newcomm, &g);
    uint64_t key = 0;
    if (g.remote) {
        key = inter_key(newcomm, &g);
    } else if (inter) {
        /* to another job, whose processes may not be measured: nothing is
         * communicated, the key stays process-local */
        key = next_local_key() | (1ull << 31);
    } else {
        int rank;
        PMPI_Comm_rank(newcomm, &rank);
        if (rank == 0) key = next_local_key();
        PMPI_Bcast(&key, 1, MPI_UINT64_T, 0, newcomm);
    }
    return define_comm(newcomm, key, &g);
}

/* ---- communicators from MPI_Comm_idup: keys agreed without communication ---- */

typedef struct idup_count {
    scorep_comm parent;
    uint32_t count;
} idup_count;
typedef struct idup_pending {
    uintptr_t handle;
    uint64_t key;
} idup_pending;
/* idups are rare: short arrays, searched linearly, under table_lock */
static idup_count* idup_counts;
static size_t idup_count_n;
static idup_pending* idup_pendings;
static size_t idup_pending_n;

static uint64_t parent_key(scorep_comm parent)
{
    if (parent == SCOREP_COMM_WORLD) return UINT64_MAX;
    const scorep_comm_def* def = scorep_comm_get(parent);
    return def ? def->stable_key : 0;
}

/* splitmix64 of the parent's key and the idup's number */
static uint64_t derived_key(uint64_t parent, uint32_t number)
{
    uint64_t x = parent ^ (0x9E3779B97F4A7C15ull * (number + 1ull));
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

void scorep_mpi_comm_idup(MPI_Comm parent, MPI_Comm newcomm)
{
    if (newcomm == MPI_COMM_NULL || parent == MPI_COMM_SELF) return;  /* SELF: local anyway */
    scorep_comm parent_id = scorep_mpi_comm_id(parent);
    uint64_t key = parent_key(parent_id);
    pthread_mutex_lock(&table_lock);
    size_t i = 0;
    while (i < idup_count_n && idup_counts[i].parent != parent_id) i++;
    void* grown = i == idup_count_n ? realloc(idup_counts, (i + 1) * sizeof *idup_counts) : idup_counts;
    void* pending = realloc(idup_pendings, (idup_pending_n + 1) * sizeof *idup_pendings);
    if (grown) idup_counts = grown;
    if (pending) idup_pendings = pending;
    if (grown && pending) {
        if (i == idup_count_n) idup_counts[idup_count_n++] = (idup_count){parent_id, 0};
        idup_pendings[idup_pending_n++] = (idup_pending){(uintptr_t)newcomm, derived_key(key, idup_counts[i].count++)};
    }
    pthread_mutex_unlock(&table_lock);
}

/* the key of a communicator met for the first time: its idup's, else process-local */
static uint64_t first_use_key(MPI_Comm comm)
{
    uint64_t key = next_local_key() | (1ull << 31);
    pthread_mutex_lock(&table_lock);
    for (size_t i = 0; i < idup_pending_n; i++)
        if (idup_pendings[i].handle == (uintptr_t)comm) {
            key = idup_pendings[i].key;
            idup_pendings[i] = idup_pendings[--idup_pending_n];
            break;
        }
    pthread_mutex_unlock(&table_lock);
    return key;
}

void scorep_mpi_comm_free(MPI_Comm comm)
{
    uint32_t id;
    pthread_mutex_lock(&table_lock);
    MPI_Fint f = PMPI_Comm_c2f(comm);
    int found = table_find(&comm_table, f, &id);
    if (found) {
        table_remove(&comm_table, f);
        table_changed(COMM_IDS);
    }
    for (size_t i = 0; i < idup_pending_n;)  /* an idup's communicator freed unused */
        if (idup_pendings[i].handle == (uintptr_t)comm) idup_pendings[i] = idup_pendings[--idup_pending_n];
        else i++;
    pthread_mutex_unlock(&table_lock);
    if (found) scorep_comm_free(id);
}

scorep_comm scorep_mpi_comm_id(MPI_Comm comm)
{
    if (comm == MPI_COMM_WORLD) return SCOREP_COMM_WORLD;
    if (comm == MPI_COMM_SELF) return SCOREP_COMM_SELF;
    if (comm == MPI_COMM_NULL) return SCOREP_INVALID_ID;
    uint32_t id;
    if (cached_find(COMM_IDS, &comm_table, (uintptr_t)comm, comm_to_fortran, &id)) return id;
    comm_groups g;
    comm_groups_of(comm, &g);
    return define_comm(comm, first_use_key(comm), &g);
}

scorep_comm scorep_mpi_comm_id_fortran(MPI_Fint comm)
{
    /* the final id is cached (MPI_COMM_WORLD too, which the table does not hold) */
    const uintptr_t key = (uintptr_t)(unsigned)comm;
    handle_cache_entry* cached = slot_of(&fortran_comm_ids, key);
    uint64_t generation = __atomic_load_n(&table_generation[COMM_IDS], __ATOMIC_ACQUIRE);
    scorep_comm id;
    if (cache_hit(cached, generation, key, &id)) return id;
    id = scorep_mpi_comm_id(PMPI_Comm_f2c(comm));
    if (id != SCOREP_INVALID_ID) *cached = (handle_cache_entry){key, id, generation};
    return id;
}

scorep_comm scorep_mpi_group_id(MPI_Group group)
{
    if (group == MPI_GROUP_NULL || group == MPI_GROUP_EMPTY) return SCOREP_INVALID_ID;
    int size;
    int* map = world_ranks_of_group(group, &size);
    scorep_comm id = scorep_comm_define(0, 1, (uint32_t)size, map, NULL);
    free(map);
    return id;
}

scorep_window scorep_mpi_win_create(MPI_Win win, MPI_Comm comm)
{
    if (win == MPI_WIN_NULL) return SCOREP_INVALID_ID;
    int rank;
    uint64_t key = 0;
    PMPI_Comm_rank(comm, &rank);
    if (rank == 0) key = next_local_key();
    PMPI_Bcast(&key, 1, MPI_UINT64_T, 0, comm);
    scorep_comm c = scorep_mpi_comm_id(comm);
    scorep_window id = scorep_rma_window_define(key, c, NULL);
    pthread_mutex_lock(&table_lock);
    table_set(&win_table, PMPI_Win_c2f(win), id);
    table_changed(WINDOW_IDS);
    pthread_mutex_unlock(&table_lock);
    return id;
}

scorep_window scorep_mpi_win_id(MPI_Win win)
{
    uint32_t id;
    return cached_find(WINDOW_IDS, &win_table, (uintptr_t)win, win_to_fortran, &id) ? id
                                                                                       : SCOREP_INVALID_ID;
}

void scorep_mpi_win_free(MPI_Win win)
{
    pthread_mutex_lock(&table_lock);
    table_remove(&win_table, PMPI_Win_c2f(win));
    table_changed(WINDOW_IDS);
    pthread_mutex_unlock(&table_lock);
}

/* ---- lifecycle ---- */

static void install_finalize_hook(void);

/* This process's rank and size and the layer's collectives, for the core:
 * registered now, or (register_deferred) for when all ranks meet. */
static void register_process(void (*register_ops)(const scorep_multiprocess_ops*))
{
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    layer_pid = getpid();
    int size;
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    ops = (scorep_multiprocess_ops){
        world_rank, size, layer_barrier, layer_bcast, layer_gather, layer_gatherv, layer_scatter,
        layer_scatterv, layer_allreduce, layer_send, layer_recv, layer_abort,
    };
    register_ops(&ops);
    int provided = MPI_THREAD_MULTIPLE;
    PMPI_Query_thread(&provided);
    scorep_requests_concurrent(provided == MPI_THREAD_MULTIPLE);
}

/* MPI installs its crash handlers (Open MPI: the "Process received signal"
 * backtrace) only where the action is the default: the core's step aside
 * until registration puts them back on top, chaining to MPI's. */
void scorep_mpi_layer_before_init(void) { scorep_measurement_mpi_init_begins(); }

/* The layer's own copy of MPI_COMM_WORLD, made without a collective on
 * MPI_COMM_WORLD. Open MPI numbers the non-blocking collectives of each
 * communicator (libnbc message tags, counting down from -27), and creating a
 * communicator from MPI_COMM_WORLD (MPI_Comm_dup) runs two of them there:
 * the program's own then get other numbers than in a plain run. Its treematch
 * topology component exchanges the edges of MPI_Dist_graph_create on the
 * parent communicator with tags -50/-51 from that range and a wildcard source,
 * so with the numbering shifted a measured run hung where the plain one did
 * not. MPI_Comm_create_group agrees on the new communicator by point-to-point
 * messages with our tag (before the program can have posted a receive). */
static MPI_Comm private_world(void)
{
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Group group;
    if (PMPI_Comm_group(MPI_COMM_WORLD, &group) == MPI_SUCCESS) {
        if (PMPI_Comm_create_group(MPI_COMM_WORLD, group, LAYER_TAG, &comm) != MPI_SUCCESS) comm = MPI_COMM_NULL;
        PMPI_Group_free(&group);
    }
    if (comm == MPI_COMM_NULL) PMPI_Comm_dup(MPI_COMM_WORLD, &comm);
    return comm;
}

void scorep_mpi_layer_init(void)
{
    if (layer_comm != MPI_COMM_NULL || layer_late) return;
    int generation = scorep_event_generation_is_on();
    scorep_event_generation_off();
    layer_seen = 1;
    MPI_Comm parent = MPI_COMM_NULL;
    PMPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) scorep_experiment_spawned();
    layer_comm = private_world();
    PMPI_Comm_set_name(layer_comm, "scorep-wrapgen internal");
    register_process(scorep_multiprocess_register);
    scorep_abort_peers_init(layer_comm);
    install_finalize_hook();
    if (scorep_measurement_is_active()) scorep_clock_sync(layer_comm);
    if (generation) scorep_event_generation_on();
}

/* ---- MPI started or ended behind the adapter's back ----
 * A binding without wrappers (Open MPI's Fortran layer calls PMPI_Init and
 * PMPI_Finalize directly) can start MPI, or end it, unseen. Start: the
 * wrappers' first region definitions ask PMPI_Initialized; if MPI runs, the
 * layer registers rank and size without communicating (ranks notice at
 * different calls, so any collective now could cross the program's own) and
 * the ranks agree inside MPI_Finalize, where all of them are. End: an
 * attribute on MPI_COMM_SELF whose delete callback MPI runs at the start of
 * every MPI_Finalize, whichever binding called it, while all of MPI still
 * works (MPI 4.0, 11.2.4): there the layer unifies and writes, unless the
 * MPI_Finalize wrapper did so already. At exit, a process that never saw
 * MPI running says so. */

/* How long late-noticed ranks wait inside MPI_Finalize for each other. */
#define LATE_AGREEMENT_SECONDS 60

static int finalize_hook(MPI_Comm comm, int keyval, void* value, void* extra)
{
    (void)comm, (void)keyval, (void)value, (void)extra;
    scorep_mpi_layer_finalize();
    return MPI_SUCCESS;
}

static void install_finalize_hook(void)
{
    static int keyval = MPI_KEYVAL_INVALID;
    if (keyval != MPI_KEYVAL_INVALID) return;
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_hook, &keyval, NULL) != MPI_SUCCESS
        || PMPI_Comm_set_attr(MPI_COMM_SELF, keyval, NULL) != MPI_SUCCESS)
        scorep_warning("cannot attach to MPI_COMM_SELF: an MPI_Finalize the MPI adapter does not wrap "
                       "will leave this rank's data unwritten");
}

static void layer_init_late(void)
{
    int generation = scorep_event_generation_is_on();
    scorep_event_generation_off();
    layer_seen = layer_late = 1;
    register_process(scorep_multiprocess_register_deferred);
    install_finalize_hook();
    if (world_rank == 0)
        scorep_warning("MPI was initialised without the MPI adapter seeing MPI_Init (from a binding it does "
                       "not wrap, e.g. a Fortran program with only the C adapter preloaded): measuring from "
                       "the first measured MPI call; calls through that binding are not measured "
                       "(scorep-exec --mpi preloads, scorep links, every adapter a program needs)");
    if (generation) scorep_event_generation_on();
}

void scorep_mpi_layer_notice(void)
{
    if (layer_comm != MPI_COMM_NULL || layer_late) return;
    int initialized = 0, finalized = 0;
    PMPI_Initialized(&initialized);
    if (!initialized) return;
    PMPI_Finalized(&finalized);
    if (finalized) return;
    pthread_mutex_lock(&late_lock);
    if (layer_comm == MPI_COMM_NULL && !layer_late && !layer_seen) layer_init_late();
    pthread_mutex_unlock(&late_lock);
}

/* All ranks inside MPI_Finalize, no user communication pending: a barrier
 * on MPI_COMM_WORLD, bounded in time (a rank that never noticed MPI never
 * comes). */
static int late_ranks_agree(void)
{
    MPI_Request request;
    int done = 0;
    if (PMPI_Ibarrier(MPI_COMM_WORLD, &request) != MPI_SUCCESS) return 0;
    struct timespec begin, now, pause = {0, 1000000};
    clock_gettime(CLOCK_MONOTONIC, &begin);
    for (;;) {
        PMPI_Test(&request, &done, MPI_STATUS_IGNORE);
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (done || now.tv_sec - begin.tv_sec >= LATE_AGREEMENT_SECONDS) break;
        nanosleep(&pause, NULL);
    }
    return done;
}

static void layer_exit_check(void)
{
    if (layer_seen) return;
    int initialized = 0, finalized = 0;
    PMPI_Initialized(&initialized);
    if (!initialized) return;
    PMPI_Finalized(&finalized);
    if (!finalized) {
        layer_init_late();  /* ends without MPI_Finalize: this rank's part, partial */
        return;
    }
    scorep_warning("MPI was initialised and finalised without the MPI adapter seeing it (no measured MPI "
                   "call in this process): its data is written as an experiment of its own, not as a rank "
                   "of the job (scorep-exec --mpi preloads, scorep links, every adapter a program needs)");
}

void scorep_mpi_layer_finalize(void)
{
    int finalized = 0;
    PMPI_Finalized(&finalized);
    if (finalized) return;
    int generation = scorep_event_generation_is_on();
    scorep_event_generation_off();
    if (layer_late && scorep_measurement_is_active()) {
        if (late_ranks_agree() && PMPI_Comm_dup(MPI_COMM_WORLD, &layer_comm) == MPI_SUCCESS) {
            PMPI_Comm_set_name(layer_comm, "scorep-wrapgen internal");
            scorep_clock_sync(layer_comm);
            scorep_measurement_finalize();
        } else {
            scorep_warning("rank %d: not every rank reached MPI_Finalize with the MPI adapter knowing MPI "
                           "runs within %d s: this rank's data is written on its own, marked partial",
                           world_rank, LATE_AGREEMENT_SECONDS);
            scorep_measurement_abort();
        }
        layer_late = 0;
    } else {
        if (layer_comm != MPI_COMM_NULL && scorep_measurement_is_active()) scorep_clock_sync(layer_comm);
        scorep_measurement_finalize();
    }
    if (layer_comm != MPI_COMM_NULL) PMPI_Comm_free(&layer_comm);
    if (generation) scorep_event_generation_on();
}

void scorep_mpi_layer_abort(void) { scorep_abort_peers_save(); }

/* The process ends without exit handlers (_exit), e.g. Open MPI's fatal error
 * handler (MPI_ERRORS_ARE_FATAL) ending this rank: write what it recorded.
 * Only in the process that initialised MPI (not in a forked child) while MPI
 * runs; after MPI_Finalize the data is written already. Before MPI_Init the
 * process is no rank yet: the life cycle writes it as a serial one. */
static int layer_process_ends(void)
{
    int initialized = 0;
    PMPI_Initialized(&initialized);
    if (!initialized) return 0;
    if ((layer_comm == MPI_COMM_NULL && !layer_late) || layer_pid != getpid()) return 1;
    scorep_verbose("rank %d ends without MPI_Finalize (_exit): writing the data recorded so far", world_rank);
    scorep_measurement_abort();
    return 1;
}
