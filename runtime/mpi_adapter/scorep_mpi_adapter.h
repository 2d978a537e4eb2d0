/*
 * What the generated C MPI wrappers (generated/mpi/c/wrap_*.c) need besides the
 * core's adapter API and the MPI layer: the group switch, region ids, byte
 * counts and scratch space lent to MPI.
 */
#ifndef SCOREP_MPI_ADAPTER_H
#define SCOREP_MPI_ADAPTER_H

#include <stdint.h>
#include <mpi.h>

#include "scorep_wrapgen/adapter.h"
#include "scorep_wrapgen/mpi_layer.h"
#include "scorep_mpi_probes.h"
#include "scorep_mpi_tables.h"

/* Groups switched on by SCOREP_MPI_ENABLE_GROUPS (read at load time). */
extern uint32_t scorep_mpi_enabled_groups;

static inline int scorep_mpi_group_enabled(uint32_t group)
{
    return (scorep_mpi_enabled_groups & group) != 0;
}

/* Whether a wrapper records events: not inside another measured MPI call (or
 * the measurement itself), and its group is on. */
static inline int scorep_mpi_measuring(uint32_t group)
{
    return __builtin_expect(scorep_event_generation_is_on() && scorep_mpi_group_enabled(group), 1);
}

/* Event generation off for the measured call of a wrapper of group: the
 * MPI-IO calls (group IO) leave it on for the I/O adapters, whose wrappers
 * then record the file I/O the MPI library does under them; the others for
 * their POSIX aio wrappers only, which record the completion of non-blocking
 * MPI-IO wherever the library progresses it (adapter.h; a constant group
 * folds to one store). */
static inline void scorep_mpi_event_generation_off(uint32_t group)
{
    scorep_thread_event_generation_off = group == SCOREP_MPI_GROUP_IO ? SCOREP_EVENT_GENERATION_OFF_BUT_IO
                                                                      : SCOREP_EVENT_GENERATION_OFF_BUT_AIO;
}

/* Region ids are defined on a wrapper's first measured call. */
extern scorep_region scorep_mpi_region_ids[SCOREP_MPI_REGION_COUNT];
scorep_region scorep_mpi_region_define(int index);

static inline scorep_region scorep_mpi_region(int index)
{
    scorep_region region = scorep_mpi_region_ids[index];
    if (__builtin_expect(region == SCOREP_INVALID_ID, 0))
        region = scorep_mpi_region_define(index);
    return region;
}

/* count elements of type, in bytes; 0 for MPI_DATATYPE_NULL or count <= 0. */
uint64_t scorep_mpi_bytes(MPI_Count count, MPI_Datatype type);
/* Bytes a completed receive (or I/O) status reports. */
uint64_t scorep_mpi_status_bytes(const MPI_Status* status);

/* count elements of the datatype a Fortran handle names (the Fortran
 * adapters): predefined types' sizes are cached per thread by Fortran handle,
 * so a hit needs no MPI_Type_f2c; inline, so a hit needs no call either. */
#define SCOREP_MPI_FORTRAN_TYPE_CACHE 8
struct scorep_mpi_fortran_type_size { MPI_Fint handle; int used; uint64_t size; };
extern __thread struct scorep_mpi_fortran_type_size scorep_mpi_fortran_type_cache[SCOREP_MPI_FORTRAN_TYPE_CACHE]
    __attribute__((tls_model("initial-exec")));
uint64_t scorep_mpi_bytes_fortran_miss(MPI_Count count, MPI_Fint datatype);

static inline struct scorep_mpi_fortran_type_size* scorep_mpi_fortran_type_slot(MPI_Fint datatype)
{
    unsigned h = (unsigned)datatype;
    return &scorep_mpi_fortran_type_cache[(h ^ (h >> 3) ^ (h >> 9)) & (SCOREP_MPI_FORTRAN_TYPE_CACHE - 1)];
}

static inline uint64_t scorep_mpi_bytes_fortran(MPI_Count count, MPI_Fint datatype)
{
    if (count <= 0)
        return 0;
    const struct scorep_mpi_fortran_type_size* slot = scorep_mpi_fortran_type_slot(datatype);
    if (slot->used && slot->handle == datatype)
        return (uint64_t)count * slot->size;
    return scorep_mpi_bytes_fortran_miss(count, datatype);
}

/* Per-thread scratch arrays, grown on demand and kept: request handles saved
 * before MPI resets them, and statuses lent when the user passed
 * MPI_STATUSES_IGNORE. */
scorep_request* scorep_mpi_saved_requests(int count);
MPI_Status* scorep_mpi_lent_statuses(int count);
/* The same for the Fortran 2008 wrappers: handle values (MPI_VAL) saved
 * before the call, and type(MPI_Status) arrays of element bytes each. */
MPI_Fint* scorep_mpi_saved_fortran_handles(int count);
void* scorep_mpi_lent_fortran_statuses(int count, size_t element);

/* MPI_(I)mprobe remembers the communicator of a matched message for MPI_(I)mrecv. */
void scorep_mpi_message_remember(MPI_Message message, scorep_comm comm);
scorep_comm scorep_mpi_message_comm(MPI_Message message);

/* One-sided operations of this thread stay pending until a synchronisation
 * completes them: issue gives the matching id of a new operation; complete
 * records the completion of the pending ones on the window (to one target, or
 * to all with target -1). */
uint64_t scorep_mpi_rma_issue(scorep_window window, int target);
void scorep_mpi_rma_complete(scorep_window window, int target);

/* MPI_Pcontrol: level 0 pauses the MPI measurement of the process (no group
 * enabled, the calling thread in the region "MPI_Pcontrol paused"), any other
 * level resumes it; idempotent (docs/MPI_ADAPTER.md). */
void scorep_mpi_pcontrol(int level);

/* Parses a SCOREP_MPI_ENABLE_GROUPS value; unknown names are reported on
 * stderr, naming the variable, and ignored. */
uint32_t scorep_mpi_parse_groups(const char* value);

#endif
