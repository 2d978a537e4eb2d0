/*
 * The POSIX threads adapter's part of the OTF2 archive (docs/THREAD_ADAPTER.md):
 * OTF2's create/wait threading model. A thread created by pthread_create is
 * a ThreadCreate on the creating location, a ThreadBegin and a ThreadEnd on
 * its own, and a ThreadWait on the location that joins it, the four with
 * the same thread contingent and sequence count (the thread adapter numbers
 * the threads it starts in each process).
 *
 * The thread contingent is an OTF2 Comm, one per process, as Score-P writes
 * it: its group (COMM_GROUP, paradigm PTHREAD) lists the process's locations
 * as indices into one COMM_LOCATIONS group of paradigm PTHREAD that lists
 * every location of the run. These definitions follow the MPI ones
 * (trace_definitions.c): the groups after the last MPI group, the comms after
 * the last MPI communicator, so both stay without gaps. They are written only
 * when the run has a pthread region (the adapter was in use on some rank).
 *
 * The events carry a process-local comm id, one past the process's last
 * MPI communicator (scorep_comm_count() at finalisation, when the events are
 * encoded and the mapping tables written), which each location's
 * OTF2_MAPPING_COMM table of a process that recorded thread events
 * (trace_thread_events) maps to its process's contingent.
 */
#include <stdio.h>
#include <stdlib.h>

#include "trace.h"

int trace_threads_in_use(const scorep_unified_definitions* defs)
{
    for (uint32_t i = 0; i < defs->region_count; i++)
        if (defs->regions[i].paradigm == SCOREP_PARADIGM_PTHREAD || defs->regions[i].paradigm == SCOREP_PARADIGM_OPENMP)
            return 1;
    return 0;
}

int trace_thread_events;

uint32_t trace_thread_contingent(const scorep_unified_definitions* defs, uint32_t rank)
{
    return defs->communicator_count + rank;
}

OTF2_ErrorCode trace_thread_encode(OTF2_EvtWriter* w, OTF2_TimeStamp t, scorep_thread_event_kind kind,
                                   uint64_t sequence)
{
    OTF2_CommRef contingent = (OTF2_CommRef)scorep_comm_count();
    switch (kind) {
    case SCOREP_THREAD_CREATE: return OTF2_EvtWriter_ThreadCreate(w, NULL, t, contingent, sequence);
    case SCOREP_THREAD_BEGIN: return OTF2_EvtWriter_ThreadBegin(w, NULL, t, contingent, sequence);
    case SCOREP_THREAD_END: return OTF2_EvtWriter_ThreadEnd(w, NULL, t, contingent, sequence);
    case SCOREP_THREAD_WAIT: return OTF2_EvtWriter_ThreadWait(w, NULL, t, contingent, sequence);
    case SCOREP_THREAD_ACQUIRE_LOCK:
        return OTF2_EvtWriter_ThreadAcquireLock(w, NULL, t, OTF2_PARADIGM_PTHREAD, (uint32_t)sequence,
                                                (uint32_t)(sequence >> 32));
    case SCOREP_THREAD_RELEASE_LOCK:
        return OTF2_EvtWriter_ThreadReleaseLock(w, NULL, t, OTF2_PARADIGM_PTHREAD, (uint32_t)sequence,
                                                (uint32_t)(sequence >> 32));
    case SCOREP_THREAD_OMP_ACQUIRE_LOCK:
        return OTF2_EvtWriter_ThreadAcquireLock(w, NULL, t, OTF2_PARADIGM_OPENMP, (uint32_t)sequence,
                                                (uint32_t)(sequence >> 32));
    case SCOREP_THREAD_OMP_RELEASE_LOCK:
        return OTF2_EvtWriter_ThreadReleaseLock(w, NULL, t, OTF2_PARADIGM_OPENMP, (uint32_t)sequence,
                                                (uint32_t)(sequence >> 32));
    case SCOREP_THREAD_FORK:
        return OTF2_EvtWriter_ThreadFork(w, NULL, t, OTF2_PARADIGM_OPENMP, (uint32_t)sequence);
    case SCOREP_THREAD_JOIN: return OTF2_EvtWriter_ThreadJoin(w, NULL, t, OTF2_PARADIGM_OPENMP);
    /* the team is the process's thread contingent: every location of the
     * process (a team of fewer threads, or a nested one, is named as the
     * whole process's: docs/OPENMP_ADAPTER.md) */
    case SCOREP_THREAD_TEAM_BEGIN: return OTF2_EvtWriter_ThreadTeamBegin(w, NULL, t, contingent);
    case SCOREP_THREAD_TEAM_END: return OTF2_EvtWriter_ThreadTeamEnd(w, NULL, t, contingent);
    }
    return OTF2_ERROR_INVALID_ARGUMENT;
}

int trace_threads_write_definitions(OTF2_GlobalDefWriter* writer, const scorep_finalize_context* ctx,
                                    uint32_t* next_string)
{
    const scorep_unified_definitions* defs = ctx->defs;
    if (!trace_threads_in_use(defs))
        return 0;
    uint32_t n = defs->location_count;
    uint64_t* members = malloc((n ? n : 1) * sizeof *members);
    if (members == NULL)
        return -1;
    int failed = 0;
    /* group ids after the MPI ones: 0 (MPI's locations) and one per comm-table entry */
    uint32_t locations_group = defs->comm_count + 1;
    for (uint32_t i = 0; i < n; i++)
        members[i] = scorep_location_global_id(defs->location_rank[i], defs->location_thread[i]);
    OTF2_StringRef name = (*next_string)++;
    failed |= OTF2_GlobalDefWriter_WriteString(writer, name, "Pthread locations") != OTF2_SUCCESS;
    failed |= OTF2_GlobalDefWriter_WriteGroup(writer, locations_group, name, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                              OTF2_PARADIGM_PTHREAD, OTF2_GROUP_FLAG_NONE, n, members)
              != OTF2_SUCCESS;
    char text[64];
    for (int rank = 0; rank < ctx->size; rank++) {
        uint32_t count = 0;
        for (uint32_t i = 0; i < n; i++)
            if (defs->location_rank[i] == (uint32_t)rank)
                members[count++] = i;
        snprintf(text, sizeof text, "Threads of MPI Rank %d", rank);
        name = (*next_string)++;
        failed |= OTF2_GlobalDefWriter_WriteString(writer, name, text) != OTF2_SUCCESS;
        uint32_t group = locations_group + 1 + (uint32_t)rank;
        failed |= OTF2_GlobalDefWriter_WriteGroup(writer, group, name, OTF2_GROUP_TYPE_COMM_GROUP,
                                                  OTF2_PARADIGM_PTHREAD, OTF2_GROUP_FLAG_NONE, count, members)
                  != OTF2_SUCCESS;
        failed |= OTF2_GlobalDefWriter_WriteComm(writer, trace_thread_contingent(defs, (uint32_t)rank), name,
                                                 group, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE)
                  != OTF2_SUCCESS;
    }
    free(members);
    return failed ? -1 : 0;
}
