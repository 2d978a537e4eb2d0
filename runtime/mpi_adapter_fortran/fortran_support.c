/* Run-time support for the generated Fortran (mpif.h / use mpi) MPI wrappers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scorep_mpi_fortran.h"

void* scorep_mpif_in_place;
void* scorep_mpif_bottom;
MPI_Fint* scorep_mpif_status_ignore;
MPI_Fint* scorep_mpif_statuses_ignore;
int scorep_mpif_status_size = 6;
scorep_region* scorep_mpif_region_ids;

/* Called by scorep_mpif_constants (fortran_constants.F, compiled with mpif.h)
 * with the library's own Fortran constants: their addresses are what a
 * Fortran program passes. */
void scorep_mpif_set_constants_(void* bottom, void* in_place, MPI_Fint* status_ignore,
                                MPI_Fint* statuses_ignore, MPI_Fint* status_size);
void scorep_mpif_set_constants_(void* bottom, void* in_place, MPI_Fint* status_ignore,
                                MPI_Fint* statuses_ignore, MPI_Fint* status_size)
{
    scorep_mpif_bottom = bottom;
    scorep_mpif_in_place = in_place;
    scorep_mpif_status_ignore = status_ignore;
    scorep_mpif_statuses_ignore = statuses_ignore;
    scorep_mpif_status_size = (int)*status_size;
    if (scorep_mpif_status_size > SCOREP_MPIF_MAX_STATUS_SIZE) {
        fprintf(stderr, "[Score-P] Error: MPI_STATUS_SIZE %d is larger than the Fortran adapter's %d\n",
                scorep_mpif_status_size, SCOREP_MPIF_MAX_STATUS_SIZE);
        abort();
    }
}

void scorep_mpif_constants_(void);

__attribute__((constructor)) static void scorep_mpif_load(void)
{
    scorep_mpif_region_ids = malloc((size_t)scorep_mpif_region_count * sizeof *scorep_mpif_region_ids);
    if (!scorep_mpif_region_ids)
        abort();
    for (int i = 0; i < scorep_mpif_region_count; i++)
        scorep_mpif_region_ids[i] = SCOREP_INVALID_ID;
    scorep_mpif_constants_();
}

scorep_region scorep_mpif_region_define(int index)
{
    const struct scorep_mpif_region_info* info = &scorep_mpif_region_info[index];
    scorep_region region = scorep_mpi_procedure_region(info->name, info->role, info->group);
    scorep_mpif_region_ids[index] = region;
    return region;
}

#define SLOTS 4
static __thread struct { void* memory; size_t bytes; } slots[SLOTS + 2];

static void* grow(int slot, size_t bytes)
{
    if (bytes > slots[slot].bytes) {
        size_t grown = slots[slot].bytes ? slots[slot].bytes : 256;
        while (grown < bytes)
            grown *= 2;
        void* more = realloc(slots[slot].memory, grown);
        if (!more) {
            fprintf(stderr, "[Score-P] Error: out of memory for %zu bytes of Fortran arguments\n", bytes);
            abort();
        }
        slots[slot].memory = more;
        slots[slot].bytes = grown;
    }
    return slots[slot].memory;
}

void* scorep_mpif_scratch(int slot, int count, size_t element)
{
    if (slot < 0 || slot >= SLOTS)
        abort();
    return grow(slot, (size_t)(count > 0 ? count : 1) * element);
}

MPI_Status* scorep_mpif_c_statuses(int count)
{
    return grow(SLOTS, (size_t)(count > 0 ? count : 1) * sizeof(MPI_Status));
}

MPI_Fint* scorep_mpif_lent_statuses(int count)
{
    return grow(SLOTS + 1, (size_t)(count > 0 ? count : 1) * (size_t)scorep_mpif_status_size * sizeof(MPI_Fint));
}

int scorep_mpif_type_array_length(MPI_Fint comm_f, int neighbor, int receive)
{
    MPI_Comm comm = MPI_Comm_f2c(comm_f);
    if (neighbor) {
        const scorep_mpi_neighbors n = scorep_mpi_neighbors_of(comm);
        return receive ? n.indegree : n.outdegree;
    }
    return scorep_mpi_collective_peers(comm);
}
