/*
 * The OpenSHMEM adapter's run-time support (hand-written), used by the
 * generated wrappers generated/shmem/wrap_*.c (tasks/shmem.json,
 * tasks/shmem_*.c.j2): the multi-process lifecycle (Open MPI's oshmem runs
 * on Open MPI's runtime: one PE, one MPI process, PE number = rank in
 * MPI_COMM_WORLD), the symmetric heap as one window of the core, active sets
 * (PE_start, logPE_stride, PE_size) as communicators of the core.
 *
 * Threading: the matching ids are not meant for concurrent SHMEM calls from
 * several threads of a PE (SHMEM_THREAD_MULTIPLE).
 */
#ifndef SCOREP_SHMEM_ADAPTER_H
#define SCOREP_SHMEM_ADAPTER_H

#include <stddef.h>
#include <stdint.h>

#include <shmem.h>

#include <scorep_wrapgen/libwrap.h>

#ifdef __cplusplus
extern "C" {
#endif

/* lifecycle: after the real shmem_init (MPI runs); before the real
 * shmem_finalize (collective: unify and write); before shmem_global_exit
 * (local: this PE's partial data) */
void scorep_shmem_init_done(void);
void scorep_shmem_finalize(void);
void scorep_shmem_abort(void);

/* one-sided operations: issued at the call's enter (with the target PE as
 * region parameter "pe", so that the profile has the bytes per target PE),
 * complete at its exit */
typedef struct scorep_shmem_op {
    uint64_t id;          /* 0: nothing recorded */
} scorep_shmem_op;
void scorep_shmem_put(int pe, uint64_t bytes, scorep_shmem_op* op);
void scorep_shmem_get(int pe, uint64_t bytes, scorep_shmem_op* op);
void scorep_shmem_atomic(int pe, scorep_rma_atomic_kind kind, uint64_t sent, uint64_t received,
                         scorep_shmem_op* op);
/* blocking: 0 for the _nbi calls (completed by a later quiet, which the
 * adapter does not follow: their completion is recorded non-blocking at the
 * call's end) */
void scorep_shmem_complete(const scorep_shmem_op* op, int blocking);

/* barriers and collectives (after scorep_mpi_collective_begin): over the
 * active set PE_start, logPE_stride, PE_size (PE_size -1: all PEs);
 * root: PE_root, the root's index in the active set, -1 for none; bytes:
 * the call's count in bytes (per PE for alltoall) */
void scorep_shmem_collective_end(scorep_collective_kind kind, int start, int log_stride, int size, int root,
                                 uint64_t bytes);

#ifdef __cplusplus
}
#endif
#endif
