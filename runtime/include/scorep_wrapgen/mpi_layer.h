/*
 * The multi-process layer of the measurement core (library scorep_mpi_layer,
 * meson dependency scorep_mpi_layer_dep). The MPI adapter links it; the core
 * itself links no MPI. Everything here talks to MPI only through PMPI, on a
 * private copy of MPI_COMM_WORLD, made with MPI_Comm_create_group so that no
 * collective runs on MPI_COMM_WORLD itself: Open MPI numbers a communicator's
 * non-blocking collectives, and a program that depends on those numbers
 * (treematch's MPI_Dist_graph_create does) must see the plain run's.
 *
 * Who calls what (all from the generated C wrappers; Fortran wrappers convert
 * their handles with MPI_Comm_f2c etc. first):
 *   MPI_Init / MPI_Init_thread wrapper, just before PMPI_Init*:
 *       scorep_mpi_layer_before_init()  local; the core's crash handlers step aside
 *   MPI_Init / MPI_Init_thread wrapper, after PMPI_Init* succeeded:
 *       scorep_mpi_layer_init()        collective; creates the experiment dir
 *   MPI_Finalize wrapper, before PMPI_Finalize:
 *       scorep_mpi_layer_finalize()    collective; unifies and writes everything.
 *       Regions still open (main, MPI_Finalize itself) are closed at this
 *       moment; the wrapper's later scorep_exit is ignored.
 *   MPI_Abort wrapper, before PMPI_Abort:
 *       scorep_mpi_layer_abort()       local; writes this rank's partial data
 *   after a call that created a communicator (dup, split, create, cart_create,
 *   intercomm_merge, ...), on every process that called it:
 *       scorep_mpi_comm_create(newcomm)   collective over newcomm; MPI_COMM_NULL ok
 *   after MPI_Comm_idup(_with_info), on every process that called it:
 *       scorep_mpi_comm_idup(comm, newcomm)   local; newcomm is defined at its first use
 *   before PMPI_Comm_free:  scorep_mpi_comm_free(comm)
 *   for envelopes:          scorep_mpi_comm_id(comm), scorep_mpi_group_id(group)
 *   windows:                scorep_mpi_win_create(win, comm) after creation
 *                           (collective over comm), scorep_mpi_win_id(win),
 *                           scorep_mpi_win_free(win) before PMPI_Win_free
 *   requests:               scorep_mpi_request_handle(request) gives the
 *                           scorep_request for the core's request functions
 */
#ifndef SCOREP_WRAPGEN_MPI_LAYER_H
#define SCOREP_WRAPGEN_MPI_LAYER_H

#include <mpi.h>
#include <stdint.h>
#include <string.h>

#include "scorep_wrapgen/adapter.h"

#ifdef __cplusplus
extern "C" {
#endif

void scorep_mpi_layer_before_init(void);
void scorep_mpi_layer_init(void);
void scorep_mpi_layer_finalize(void);
void scorep_mpi_layer_abort(void);
/* At a wrapper's first use (region definition): if MPI runs but no wrapper
 * saw MPI_Init, the layer starts without communicating and the ranks agree
 * inside MPI_Finalize (which every binding's MPI_Finalize reaches through an
 * attribute on MPI_COMM_SELF). */
void scorep_mpi_layer_notice(void);

scorep_comm scorep_mpi_comm_create(MPI_Comm newcomm);
/* A communicator from a non-blocking duplication: it may not be used before
 * its request completes, so nothing can be asked or broadcast now. Its key is
 * derived from the parent's and from how many idups the parent had, which all
 * ranks agree on (collective calls on a communicator come in one order). */
void scorep_mpi_comm_idup(MPI_Comm parent, MPI_Comm newcomm);
void scorep_mpi_comm_free(MPI_Comm comm);
/* Core id of comm; a communicator the layer has not seen (created before
 * MPI_Init returned, or by a call without wrapper) is registered on the fly
 * with a process-local key. */
scorep_comm scorep_mpi_comm_id(MPI_Comm comm);
/* The same by the Fortran handle (MPI_VAL, INTEGER): the Fortran wrappers'
 * lookup, converted to C only when this thread has not looked it up since
 * the table last changed. */
scorep_comm scorep_mpi_comm_id_fortran(MPI_Fint comm);

/* The region of an MPI procedure, the same (name, paradigm, role, group) for
 * every binding's wrapper, so the core hands out one id per procedure. Also
 * notices an MPI started behind the layer's back. */
scorep_region scorep_mpi_procedure_region(const char* name, int role, const char* group);

/* PMPI_Status_f2c; a copy of the INTEGERs where the library's conversion is
 * one (Open MPI, MPICH: checked once against the library itself), which
 * saves the library call on every Fortran receive and completion. */
int scorep_mpi_status_f2c(const MPI_Fint* f_status, MPI_Status* c_status);

/* 1 once known that PMPI_Status_f2c is a copy, 0 once known that it is not,
 * -1 before the first Fortran status was converted. */
extern int scorep_mpi_status_f2c_copies;

/* A Fortran status (INTEGER array or type(MPI_Status)) as the C one it
 * already is, where the conversion is a copy and its address suits an
 * MPI_Status (no copy, no call: every Fortran receive and completion reads
 * one); else NULL. */
static inline const MPI_Status* scorep_mpi_status_in_place(const MPI_Fint* f_status)
{
    if (__builtin_expect(scorep_mpi_status_f2c_copies == 1, 1)
        && (uintptr_t)f_status % __alignof__(MPI_Status) == 0)
        return (const MPI_Status*)(const void*)f_status;
    return NULL;
}

/* A Fortran status to read as a C one: in place, else converted into
 * scratch. NULL if the conversion fails. */
static inline const MPI_Status* scorep_mpi_status_from_fortran(const MPI_Fint* f_status, MPI_Status* scratch)
{
    const MPI_Status* in_place = scorep_mpi_status_in_place(f_status);
    if (__builtin_expect(in_place != NULL, 1))
        return in_place;
    return scorep_mpi_status_f2c(f_status, scratch) == MPI_SUCCESS ? scratch : NULL;
}
scorep_comm scorep_mpi_group_id(MPI_Group group);

/* The size of one element of type (runtime/mpi/type_size.c); *named: it is
 * predefined (its size never changes, its handle is never freed: callers may
 * cache its size by handle). Predefined types are answered from a per-thread
 * cache, derived ones by MPI; 0 for a type MPI gives no size. */
uint64_t scorep_mpi_type_size(MPI_Datatype type, int* named);

/* ---- collective bytes ------------------------------------------------------
 * A collective call as the bytes rule reads it, in C terms; the wrappers of
 * every binding fill one and call scorep_mpi_collective_bytes, so the rule
 * (Score-P's, docs/MPI_ADAPTER.md) exists once. Fields a procedure does not
 * have stay 0 / NULL / MPI_DATATYPE_NULL. */
typedef struct scorep_mpi_coll_call {
    int kind;                     /* scorep_collective_kind */
    MPI_Comm comm;
    int root;                     /* rooted kinds: a rank, or MPI_ROOT / MPI_PROC_NULL
                                     on an intercommunicator; others: SCOREP_NO_ROOT */
    int send_in_place;            /* sendbuf is MPI_IN_PLACE */
    int recv_in_place;            /* recvbuf is MPI_IN_PLACE (scatter(v)) */
    MPI_Count sendcount, recvcount;
    MPI_Datatype sendtype, recvtype;
    const void* sendcounts;       /* v and w kinds: int[], or MPI_Count[] if large */
    const void* recvcounts;
    const void* sendtypes;        /* w kinds: MPI_Datatype[], or MPI_Fint[] if fortran_types */
    const void* recvtypes;
    int large;                    /* counts arrays are MPI_Count (the _c procedures) */
    int fortran_types;            /* type arrays hold Fortran handles (mpi_f08) */
} scorep_mpi_coll_call;

typedef struct scorep_mpi_coll_bytes {
    uint64_t sent, received;
    int root;                     /* as recorded: a rank in the communicator, or SCOREP_NO_ROOT */
} scorep_mpi_coll_bytes;

/* What one run of the collective moves for the calling process, by kind
 * (blocking, non-blocking and persistent forms alike). Local PMPI queries
 * only. */
scorep_mpi_coll_bytes scorep_mpi_collective_bytes(const scorep_mpi_coll_call* call);

/* The processes a rootless collective exchanges blocks with: the size of
 * comm, or of its remote group (the length of an MPI_Alltoallw type array). */
int scorep_mpi_collective_peers(MPI_Comm comm);

/* The neighbours of this process in the communicator's virtual topology, in
 * the order of a neighbourhood collective's buffer blocks: sources (the
 * in-neighbours, whose blocks it receives) and destinations (the
 * out-neighbours, whose blocks it sends). Cartesian: per dimension the source
 * and then the destination of MPI_Cart_shift(dim, 1), both lists the same,
 * MPI_PROC_NULL beyond a non-periodic border; graph: MPI_Graph_neighbors,
 * both lists the same; distributed graph: MPI_Dist_graph_neighbors. Without
 * a topology both degrees are 0. real_in/real_out count the neighbours that
 * are not MPI_PROC_NULL: a block to or from MPI_PROC_NULL moves no data.
 * The lists are the calling thread's scratch space, valid until its next
 * call; PMPI queries only, no allocation once the scratch space is large
 * enough. */
typedef struct scorep_mpi_neighbors {
    int indegree, outdegree;
    int real_in, real_out;
    const int* sources;
    const int* destinations;
} scorep_mpi_neighbors;
scorep_mpi_neighbors scorep_mpi_neighbors_of(MPI_Comm comm);

scorep_window scorep_mpi_win_create(MPI_Win win, MPI_Comm comm);
scorep_window scorep_mpi_win_id(MPI_Win win);
void scorep_mpi_win_free(MPI_Win win);

/* The handle's bits (a pointer in Open MPI, an int in MPICH): no MPI call,
 * no side effect. Fortran wrappers convert with MPI_Request_f2c first, so
 * every language names a request the same way. Call it before the MPI call
 * that completes the request overwrites the handle with MPI_REQUEST_NULL. */
static inline scorep_request scorep_mpi_request_handle(MPI_Request request)
{
    scorep_request handle = 0;
    memcpy(&handle, &request, sizeof request < sizeof handle ? sizeof request : sizeof handle);
    return handle;
}

#ifdef __cplusplus
}
#endif
#endif
