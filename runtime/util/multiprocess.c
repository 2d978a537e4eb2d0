/* The multi-process layer seen from the core: a table of collective
 * operations. The serial table makes a program without MPI one process of
 * one rank; the MPI layer (runtime/mpi/) registers a PMPI-based table. The
 * binomial-tree helpers here build unification on point-to-point messages
 * so that no rank ever receives more than its subtree's data. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"
#include "buffer.h"
#include "multiprocess.h"

/* world communicator size / own rank: the serial ones until a process layer registers */
int scorep_process_rank = 0;
int scorep_process_size = 1;

static void serial_barrier(void) {}
static void serial_bcast(void* b, size_t n, int root) { (void)b; (void)n; (void)root; }
static void serial_gather(const void* s, size_t n, void* r, int root)
{
    (void)root;
    memmove(r, s, n);
}
static void serial_gatherv(const void* s, size_t n, void* r, const size_t* counts, const size_t* displs, int root)
{
    (void)counts; (void)root;
    memmove((char*)r + displs[0], s, n);
}
static void serial_scatter(const void* s, void* r, size_t n, int root)
{
    (void)root;
    memmove(r, s, n);
}
static void serial_scatterv(const void* s, const size_t* counts, const size_t* displs, void* r, size_t n, int root)
{
    (void)counts; (void)root;
    memmove(r, (const char*)s + displs[0], n);
}
static void serial_allreduce(uint64_t* v, size_t n, int op) { (void)v; (void)n; (void)op; }
static void serial_send(const void* b, size_t n, int dest) { (void)b; (void)n; (void)dest; }
static void* serial_recv(int source, size_t* n)
{
    (void)source;
    *n = 0;
    return NULL;
}
/* what the C library's _Exit does (the core's own _Exit is the life cycle's) */
static void serial_abort(int code)
{
    for (;;) syscall(SYS_exit_group, code);
}

static const scorep_multiprocess_ops serial_ops = {
    0, 1, serial_barrier, serial_bcast, serial_gather, serial_gatherv, serial_scatter,
    serial_scatterv, serial_allreduce, serial_send, serial_recv, serial_abort,
};

static const scorep_multiprocess_ops* active_ops = &serial_ops;
static int mpi_expected;

const scorep_multiprocess_ops* scorep_multiprocess(void) { return active_ops; }
/* An MPI_Init wrapper announced itself, or the MPI layer's
 * scorep_mpi_comm_create is in the process (linked or preloaded). A dlsym,
 * not a weak reference: the runtime's symbols are hidden by default, and a
 * hidden weak reference is bound to NULL at link time. */
int scorep_multiprocess_is_expected(void)
{
    return mpi_expected || dlsym(RTLD_DEFAULT, "scorep_mpi_comm_create") != NULL;
}
int scorep_multiprocess_is_registered(void) { return active_ops != &serial_ops; }

void scorep_multiprocess_expect(void) { mpi_expected = 1; }

/* Adopts the process layer's rank, size and collectives (the life cycle
 * calls this when the MPI layer registers); 0 if one was adopted already. */
int scorep_multiprocess_adopt(const scorep_multiprocess_ops* ops)
{
    if (scorep_multiprocess_is_registered()) return 0;
    active_ops = ops;
    scorep_process_rank = ops->rank;
    scorep_process_size = ops->size;
    mpi_expected = 1;
    return 1;
}

static void (*exit_check)(void);

void scorep_multiprocess_set_exit_check(void (*check)(void)) { exit_check = check; }

void scorep_multiprocess_exit_check(void)
{
    if (exit_check) exit_check();
}

static int (*process_ends)(void);

void scorep_multiprocess_set_process_ends(int (*hook)(void)) { process_ends = hook; }

int scorep_multiprocess_process_ends(void) { return process_ends && process_ends(); }

static void (*abnormal_end_written)(void);

void scorep_multiprocess_set_abnormal_end_written(void (*hook)(void)) { abnormal_end_written = hook; }

void scorep_multiprocess_abnormal_end_written(void)
{
    if (abnormal_end_written) abnormal_end_written();
}

bool scorep_tree_gather(scorep_buffer* mine, scorep_buffer* all)
{
    const scorep_multiprocess_ops* mp = active_ops;
    all->size = 0;
    all->read_pos = 0;
    scorep_buffer_put(all, mine->data, mine->size);
    for (int step = 1; step < mp->size; step <<= 1) {
        if (mp->rank & step) {
            mp->send(all->data, all->size, mp->rank - step);
            return false;
        }
        if (mp->rank + step < mp->size) {
            size_t n;
            void* child = mp->recv(mp->rank + step, &n);
            scorep_buffer_put(all, child, n);
            free(child);
        }
    }
    return mp->rank == 0;
}

void scorep_tree_reduce(scorep_buffer* mine, void (*merge)(scorep_buffer* child, scorep_buffer* into))
{
    const scorep_multiprocess_ops* mp = active_ops;
    for (int step = 1; step < mp->size; step <<= 1) {
        if (mp->rank & step) {
            mp->send(mine->data, mine->size, mp->rank - step);
            return;
        }
        if (mp->rank + step < mp->size) {
            size_t n;
            scorep_buffer child = {0};
            child.data = mp->recv(mp->rank + step, &n);
            child.size = child.capacity = n;
            merge(&child, mine);
            scorep_buffer_free(&child);
        }
    }
}

void scorep_bcast_buffer(scorep_buffer* b, int root)
{
    const scorep_multiprocess_ops* mp = active_ops;
    if (mp->size == 1) return;
    uint64_t n = b->size;
    mp->bcast(&n, sizeof n, root);
    if (mp->rank != root) {
        b->size = 0;
        b->read_pos = 0;
        uint8_t* tmp = malloc(n ? n : 1);
        scorep_buffer_put(b, tmp, n);
        free(tmp);
    }
    mp->bcast(b->data, n, root);
}
