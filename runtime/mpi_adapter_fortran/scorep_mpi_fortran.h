/*
 * What the generated Fortran (mpif.h / use mpi) MPI wrappers
 * (generated/mpi/fortran/, written in C) need besides the C adapter's support:
 * their region table, the library's Fortran addresses of MPI_IN_PLACE,
 * MPI_BOTTOM and MPI_STATUS(ES)_IGNORE, the Fortran status size, per-thread
 * scratch arrays for converted arguments, and the probe's names.
 */
#ifndef SCOREP_MPI_FORTRAN_H
#define SCOREP_MPI_FORTRAN_H

#include <stddef.h>

#include "scorep_mpi_adapter.h"
#include "scorep_mpi_fortran_probes.h"

struct scorep_mpif_region_info {
    const char* name;
    const char* group;
    int role;         /* scorep_region_role */
};
extern const struct scorep_mpif_region_info scorep_mpif_region_info[];
extern const int scorep_mpif_region_count;

extern scorep_region* scorep_mpif_region_ids;
scorep_region scorep_mpif_region_define(int index);

static inline scorep_region scorep_mpif_region(int index)
{
    scorep_region region = scorep_mpif_region_ids[index];
    if (__builtin_expect(region == SCOREP_INVALID_ID, 0))
        region = scorep_mpif_region_define(index);
    return region;
}

/* The addresses the library's Fortran layer gives the special constants (a
 * Fortran helper compiled with mpif.h passes them at load time). */
extern void* scorep_mpif_in_place;
extern void* scorep_mpif_bottom;
extern MPI_Fint* scorep_mpif_status_ignore;
extern MPI_Fint* scorep_mpif_statuses_ignore;
extern int scorep_mpif_status_size;    /* MPI_STATUS_SIZE of mpif.h */
#define SCOREP_MPIF_MAX_STATUS_SIZE 16

/* Per-thread scratch: slot 0..3 for converted argument arrays, C statuses for
 * the views of a Fortran status array, and Fortran statuses lent to MPI. */
void* scorep_mpif_scratch(int slot, int count, size_t element);
MPI_Status* scorep_mpif_c_statuses(int count);
MPI_Fint* scorep_mpif_lent_statuses(int count);

/* Elements of a datatype array of unknown length (MPI_Alltoallw: the peers;
 * neighbourhood: the in- or out-degree). */
int scorep_mpif_type_array_length(MPI_Fint comm, int neighbor, int receive);

/* One Fortran procedure under another exported name. */
#define SCOREP_MPIF_ALIAS(function, symbol) \
    extern __typeof__(function) scorep_mpif_alias_##symbol __asm__(#symbol) \
        __attribute__((alias(#function), visibility("default")));

#endif
