/*
 * The size of an MPI datatype, as every byte count of the MPI adapters and
 * the collective-bytes rule of this layer reads it: predefined types from a
 * per-thread cache, so that a wrapper asks MPI only for derived types.
 */
#include <stdint.h>

#include "scorep_wrapgen/mpi_layer.h"

/* The size of a predefined (named) datatype never changes and its handle is
 * never freed, so it is cached per thread by handle value (no lock); other
 * datatypes are asked every time (a freed one's handle may come back). */
#define TYPE_CACHE 8
static __thread struct type_size { uintptr_t handle; uint64_t size; int used; int named; } type_cache[TYPE_CACHE]
    __attribute__((tls_model("initial-exec")));

static inline struct type_size* type_slot(uintptr_t handle)
{
    return &type_cache[(handle ^ (handle >> 3) ^ (handle >> 9)) & (TYPE_CACHE - 1)];
}

static int type_is_named(MPI_Datatype type)
{
    int ni = 0, na = 0, nd = 0, combiner = MPI_UNDEFINED;
    return PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner) == MPI_SUCCESS && combiner == MPI_COMBINER_NAMED;
}

/* A predefined type's size comes from the per-thread cache. A derived type is
 * asked its size each time (freed, its handle may name another type), but
 * whether it is predefined is asked once per cache slot: a handle that named
 * a derived type never names a predefined one. */
uint64_t scorep_mpi_type_size(MPI_Datatype type, int* named)
{
    struct type_size* slot = type_slot((uintptr_t)type);
    int known = slot->used && slot->handle == (uintptr_t)type;
    *named = known && slot->named;
    if (*named)
        return slot->size;
    MPI_Count size = 0;
    if (PMPI_Type_size_x(type, &size) != MPI_SUCCESS || size == MPI_UNDEFINED || size < 0)
        return 0;
    if (!known) {
        *named = type_is_named(type);
        *slot = (struct type_size){(uintptr_t)type, (uint64_t)size, 1, *named};
    }
    return (uint64_t)size;
}
