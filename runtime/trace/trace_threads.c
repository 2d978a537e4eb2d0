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
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "multiprocess.h"
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

/* ---- fork/join teams ----
 * A team is (its forker's location, its size): the same members each time
 * (runtime/core/location.c). The process's teams are numbered in the
 * order of the unification (unify.c): forkers by thread, each forker's
 * sizes in the order it first forked them. Their OTF2 comms follow the
 * thread contingents, the run's teams ranks in order; their events carry
 * the local comm id one past the contingent's plus the team's number, which
 * each location's comm mapping table maps. */

/* the process's teams (forker thread, size), made at the first encode of a
 * team record, after recording ended */
static struct { uint32_t forker, key; }* local_teams;
static uint32_t local_team_count;
static pthread_once_t local_teams_once = PTHREAD_ONCE_INIT;

static void collect_local_teams(void)
{
    uint32_t n = scorep_location_count(), total = 0;
    scorep_location** by_id = calloc(n ? n : 1, sizeof *by_id);
    if (by_id == NULL) return;
    for (scorep_location* l = scorep_location_list(); l; l = l->next)
        if (l->local_id < n) by_id[l->local_id] = l;
    for (uint32_t i = 0; i < n; i++)
        if (by_id[i]) total += by_id[i]->team_key_count;
    local_teams = calloc(total ? total : 1, sizeof *local_teams);
    if (local_teams != NULL)
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t k = 0; by_id[i] && k < by_id[i]->team_key_count; k++) {
                local_teams[local_team_count].forker = i;
                local_teams[local_team_count].key = by_id[i]->team_keys[k];
                local_team_count++;
            }
    free(by_id);
}

uint32_t trace_local_team_count(void)
{
    pthread_once(&local_teams_once, collect_local_teams);
    return local_team_count;
}

/* the local comm id of a team record's team (forker << 32 | key); the
 * contingent's for a team in no list */
static OTF2_CommRef team_comm(uint64_t word)
{
    uint32_t count = trace_local_team_count();
    for (uint32_t i = 0; i < count; i++)
        if (local_teams[i].forker == (uint32_t)(word >> 32) && local_teams[i].key == (uint32_t)word)
            return (OTF2_CommRef)(scorep_comm_count() + 1 + i);
    return (OTF2_CommRef)scorep_comm_count();
}

uint32_t trace_team_comm(const scorep_unified_definitions* defs, uint32_t team)
{
    return defs->communicator_count + (uint32_t)scorep_process_size + team;
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
    case SCOREP_THREAD_TEAM_BEGIN: return OTF2_EvtWriter_ThreadTeamBegin(w, NULL, t, team_comm(sequence));
    case SCOREP_THREAD_TEAM_END: return OTF2_EvtWriter_ThreadTeamEnd(w, NULL, t, team_comm(sequence));
    case SCOREP_THREAD_TASK_CREATE:
    case SCOREP_THREAD_TASK_SWITCH:
    case SCOREP_THREAD_TASK_COMPLETE: break;   /* trace_thread_task_encode's */
    }
    return OTF2_ERROR_INVALID_ARGUMENT;
}

OTF2_ErrorCode trace_thread_task_encode(OTF2_EvtWriter* w, OTF2_TimeStamp t, scorep_thread_event_kind kind,
                                        uint64_t team, uint64_t task)
{
    OTF2_CommRef comm = team_comm(team);
    uint32_t creator = (uint32_t)(task >> 32), generation = (uint32_t)task;
    switch (kind) {
    case SCOREP_THREAD_TASK_CREATE: return OTF2_EvtWriter_ThreadTaskCreate(w, NULL, t, comm, creator, generation);
    case SCOREP_THREAD_TASK_SWITCH: return OTF2_EvtWriter_ThreadTaskSwitch(w, NULL, t, comm, creator, generation);
    case SCOREP_THREAD_TASK_COMPLETE:
        return OTF2_EvtWriter_ThreadTaskComplete(w, NULL, t, comm, creator, generation);
    default: return OTF2_ERROR_INVALID_ARGUMENT;
    }
}

/* the location of (rank, thread), or n */
static uint32_t location_index(const scorep_unified_definitions* defs, uint32_t rank, uint32_t thread)
{
    for (uint32_t i = 0; i < defs->location_count; i++)
        if (defs->location_rank[i] == rank && defs->location_thread[i] == thread)
            return i;
    return defs->location_count;
}

/* Rank 0: the OpenMP locations group (every location, as Score-P writes
 * it), then each team's group of indices into it and its comm, in the
 * teams' order (ranks, forkers by thread, sizes). */
static int write_teams(OTF2_GlobalDefWriter* writer, const scorep_finalize_context* ctx, uint32_t* next_string,
                       uint32_t first_group)
{
    const scorep_unified_definitions* defs = ctx->defs;
    if (defs->team_total == 0 || defs->location_team_key_count == NULL)
        return 0;
    uint32_t n = defs->location_count;
    uint64_t* members = malloc((n ? n : 1) * sizeof *members);
    if (members == NULL)
        return -1;
    int failed = 0;
    OTF2_StringRef openmp = (*next_string)++;
    failed |= OTF2_GlobalDefWriter_WriteString(writer, openmp, "OpenMP") != OTF2_SUCCESS;
    failed |= OTF2_GlobalDefWriter_WriteParadigm(writer, OTF2_PARADIGM_OPENMP, openmp,
                                                 OTF2_PARADIGM_CLASS_THREAD_FORK_JOIN) != OTF2_SUCCESS;
    for (uint32_t i = 0; i < n; i++)
        members[i] = scorep_location_global_id(defs->location_rank[i], defs->location_thread[i]);
    failed |= OTF2_GlobalDefWriter_WriteGroup(writer, first_group, openmp, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                              OTF2_PARADIGM_OPENMP, OTF2_GROUP_FLAG_NONE, n, members)
              != OTF2_SUCCESS;
    uint32_t team = 0;
    char text[64];
    for (int rank = 0; rank < ctx->size; rank++) {
        for (uint32_t thread = 0;; thread++) {
            uint32_t forker = location_index(defs, (uint32_t)rank, thread);
            if (forker == n) break;
            for (uint32_t k = 0; k < defs->location_team_key_count[forker]; k++, team++) {
                uint32_t key = defs->location_team_keys[forker][k], count = 0;
                uint32_t size = key & 0xffffff, level = key >> 24;
                members[count++] = forker;
                for (uint32_t member = 1; member < size; member++)
                    for (uint32_t i = 0; i < n; i++)
                        if (defs->location_rank[i] == (uint32_t)rank && defs->location_creator[i] == thread &&
                            defs->location_team_level[i] == level && defs->location_team_member[i] == member) {
                            members[count++] = i;
                            break;
                        }
                snprintf(text, sizeof text, "Thread team %u", team);
                OTF2_StringRef name = (*next_string)++;
                failed |= OTF2_GlobalDefWriter_WriteString(writer, name, text) != OTF2_SUCCESS;
                failed |= OTF2_GlobalDefWriter_WriteGroup(writer, first_group + 1 + team, name,
                                                          OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_OPENMP,
                                                          OTF2_GROUP_FLAG_NONE, count, members) != OTF2_SUCCESS;
                failed |= OTF2_GlobalDefWriter_WriteComm(writer, trace_team_comm(defs, team), name,
                                                         first_group + 1 + team, OTF2_UNDEFINED_COMM,
                                                         OTF2_COMM_FLAG_NONE) != OTF2_SUCCESS;
            }
        }
    }
    free(members);
    return failed ? -1 : 0;
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
    if (failed) return -1;
    return write_teams(writer, ctx, next_string, locations_group + 1 + (uint32_t)ctx->size);
}
