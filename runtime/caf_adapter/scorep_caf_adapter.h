/*
 * The Coarray Fortran adapter's run-time support (hand-written), used by the
 * generated wrappers generated/caf/wrap_*.c (tasks/caf.json, tasks/caf_*.c.j2):
 * coarray token -> window registry, image -> rank mapping, bytes from
 * gfortran's array descriptors and reference chains, the multi-process
 * lifecycle (OpenCoarrays runs on MPI: one image, one MPI process).
 *
 * Threading: OpenCoarrays' calls come from the image's one thread; the
 * registry and the matching ids are not meant for concurrent CAF calls from
 * several threads of an image.
 */
#ifndef SCOREP_CAF_ADAPTER_H
#define SCOREP_CAF_ADAPTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* OpenCoarrays' header, with the prefix its library is built with */
#ifndef PREFIX_NAME
#define PREFIX_NAME _gfortran_caf_
#endif
#include <libcaf.h>
#include <mpi.h>

#include <scorep_wrapgen/libwrap.h>

#ifdef __cplusplus
extern "C" {
#endif

/* SCOREP_CAF_RECORD_MPI (read at _gfortran_caf_init): the MPI calls
 * OpenCoarrays makes inside a CAF call are recorded, nested in its region. */
extern int scorep_caf_record_mpi;

static inline void scorep_caf_quiet_begin(void)
{
    if (!scorep_caf_record_mpi) scorep_event_generation_off();
}
static inline void scorep_caf_quiet_end(void)
{
    if (!scorep_caf_record_mpi) scorep_event_generation_on();
}

/* lifecycle: after the real _gfortran_caf_init (MPI runs); before the real
 * finalize / stop (collective: unify and write); before error stop (local) */
void scorep_caf_init_done(void);
void scorep_caf_finalize(void);
void scorep_caf_abort(void);

/* Bytes of the array (section) a descriptor describes: element size x
 * elements (rank 0: one element). With a caf_vector_t per dimension (vector
 * subscripts or triplets) the elements come from it. */
uint64_t scorep_caf_desc_bytes(const gfc_descriptor_t* desc, const caf_vector_t* vector);
/* Bytes a reference chain moves: the last reference's item size times the
 * elements its array references name; where a reference leaves the extent to
 * the remote side (full or open ranges), the local descriptor's elements
 * (0 when there is none). */
uint64_t scorep_caf_ref_bytes(const caf_reference_t* refs, const gfc_descriptor_t* local);

/* coarrays (and lock, critical, event variables) as windows of the core */
void scorep_caf_window_register(caf_token_t token, int type);
void scorep_caf_window_deregister(caf_token_t token);
scorep_window scorep_caf_window(caf_token_t token);
/* world rank of an image index of the current team (1-based), -1 if none */
int scorep_caf_rank(int image);
/* after change team / end team: the current team's communicator (Fortran
 * handle), from OpenCoarrays' get_communicator(NULL), which libcaf.h declares
 * only with HAVE_MPI; its member list maps the team's image indices to
 * ranks and is the communicator of sync all and collectives in the team */
MPI_Fint _gfortran_caf_get_communicator(caf_team_t* team);
void scorep_caf_team_changed(MPI_Fint team_comm);
/* after end team: the parent team's mapping again */
void scorep_caf_team_ended(void);

/* one-sided operations: issued at the call's enter, complete at its exit */
typedef struct scorep_caf_op {
    scorep_window window;
    uint64_t id;          /* 0: nothing recorded */
    caf_token_t token;    /* a get by reference counted after the call */
    int image, parameter, deferred;
} scorep_caf_op;
/* parameter: record the target image as the region parameter "image" first,
 * so that the profile has the bytes per target image (a child node
 * image=N of the call path); 0 for the second target of a sendget whose get
 * was recorded. An operation on the calling image itself records nothing
 * (no remote communication). */
void scorep_caf_put(caf_token_t token, int image, uint64_t bytes, scorep_caf_op* op, int parameter);
void scorep_caf_get(caf_token_t token, int image, uint64_t bytes, scorep_caf_op* op, int parameter);
/* a get through a reference chain: issued now where the chain names the
 * elements, else at scorep_caf_complete_get_ref from the destination */
void scorep_caf_get_ref(caf_token_t token, int image, const caf_reference_t* refs, scorep_caf_op* op,
                        int parameter);
void scorep_caf_atomic(caf_token_t token, int image, scorep_rma_atomic_kind kind, uint64_t sent,
                       uint64_t received, scorep_caf_op* op);
void scorep_caf_complete(const scorep_caf_op* op);
/* whether an operation was recorded (or will be, at its completion): the
 * put of a sendget takes the image parameter when its get did not */
static inline int scorep_caf_recorded(const scorep_caf_op* op) { return op->id != 0 || op->deferred; }
/* completes a scorep_caf_get_ref; a deferred one is issued first, its bytes
 * counted from the destination the call filled */
void scorep_caf_complete_get_ref(scorep_caf_op* op, const caf_reference_t* refs, const gfc_descriptor_t* local);

/* synchronisation and collectives (after scorep_mpi_collective_begin) */
void scorep_caf_sync_all_end(void);
void scorep_caf_sync_images_end(int count, const int* images);
/* root_image: 1-based, 0 for none; a rooted reduction is a REDUCE */
void scorep_caf_collective_end(scorep_collective_kind kind, int root_image, const gfc_descriptor_t* a);
void scorep_caf_lock(caf_token_t token, int image);
void scorep_caf_unlock(caf_token_t token, int image);

#ifdef __cplusplus
}
#endif
#endif
