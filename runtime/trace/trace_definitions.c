/*
 * Definitions of the OTF2 archive, written at finalisation.
 *
 * Events carry process-local ids (the ids scorep_*_define returned in this
 * process). Instead of rewriting every event, each location gets a local
 * definition file with OTF2 mapping tables (local -> global, from the core's
 * unification), which every OTF2 reader applies while reading. Rank 0 writes
 * the unified global definitions in traces.def.
 *
 * Global ids: strings 0..string_count-1 are the core's unified strings (the
 * values of string parameters); names this file needs are appended after them.
 * Every core comm-table entry g (communicator or MPI group) becomes OTF2 group
 * g + 1, and communicators also OTF2 comm g (the unification numbers them
 * before the MPI groups, so OTF2's comms have no gaps); group 0 is the
 * COMM_LOCATIONS group listing the master location of every rank in
 * world-rank order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"
#include "timer.h"
#include "process_hosts.h"
#include "report_names.h"

#define LOCATIONS_GROUP 0
static uint32_t group_of_comm(uint32_t comm)
{
    return comm + 1;
}

/* ---- mapping tables (every rank) ---------------------------------------------- */

static int write_map(OTF2_DefWriter* writer, OTF2_MappingType type, uint32_t count,
                     const uint32_t* map)
{
    if (count == 0 || map == NULL)
        return 0;
    OTF2_IdMap* id_map = OTF2_IdMap_CreateFromUint32Array(count, map, true);
    if (id_map == NULL)
        return 0;  /* identity: nothing to translate */
    OTF2_ErrorCode code = OTF2_DefWriter_WriteMappingTable(writer, type, id_map);
    OTF2_IdMap_Free(id_map);
    return code == OTF2_SUCCESS ? 0 : -1;
}

static int write_location_maps(OTF2_DefWriter* writer, const scorep_unified_definitions* defs,
                               const uint32_t* group_map, const uint32_t* comm_map, uint32_t comm_map_count)
{
    int failed = 0;
    failed |= write_map(writer, OTF2_MAPPING_STRING, scorep_string_count(), defs->string_map);
    failed |= write_map(writer, OTF2_MAPPING_REGION, scorep_region_count(), defs->region_map);
    failed |= write_map(writer, OTF2_MAPPING_COMM, comm_map_count, comm_map);
    failed |= write_map(writer, OTF2_MAPPING_GROUP, scorep_comm_count(), group_map);
    failed |= write_map(writer, OTF2_MAPPING_RMA_WIN, scorep_window_count(), defs->window_map);
    failed |= write_map(writer, OTF2_MAPPING_METRIC, scorep_metric_count(), defs->metric_map);
    failed |= write_map(writer, OTF2_MAPPING_PARAMETER, scorep_parameter_count(),
                        defs->parameter_map);
    failed |= write_map(writer, OTF2_MAPPING_IO_HANDLE, scorep_io_handle_count(), defs->io_handle_map);
    return failed;
}

/* The process's offsets to the master clock (mpi/clock_sync.c), in every
 * location's definitions: OTF2 readers move the location's event times onto
 * the master clock by interpolating between them (docs/CLOCKS.md). Events
 * keep the process's own time, as Score-P writes them. */
static int write_clock_offsets(OTF2_DefWriter* writer)
{
    scorep_clock_offset points[2];
    size_t n = scorep_timer_offsets(points);
    int failed = 0;
    for (size_t i = 0; i < n; i++)
        failed |= OTF2_DefWriter_WriteClockOffset(writer, points[i].local, points[i].offset, points[i].stddev)
                  != OTF2_SUCCESS;
    return failed;
}

int trace_write_location_definitions(OTF2_Archive* archive, const scorep_unified_definitions* defs)
{
    uint32_t comm_count = scorep_comm_count();
    /* Without memory for the group map the files are still opened and closed:
     * both are collective. */
    uint32_t* group_map = malloc((comm_count + 1) * sizeof *group_map);
    for (uint32_t i = 0; group_map != NULL && i < comm_count; i++)
        group_map[i] = group_of_comm(defs->comm_map[i]);
    /* the comms' map; with thread events one more entry, the local id they
     * carry (trace_threads.c), for the process's thread contingent */
    int threads = __atomic_load_n(&trace_thread_events, __ATOMIC_RELAXED);
    uint32_t teams = threads ? trace_local_team_count() : 0;
    uint32_t* comm_map = malloc((comm_count + 1 + teams) * sizeof *comm_map);
    for (uint32_t i = 0; comm_map != NULL && i < comm_count; i++)
        comm_map[i] = defs->comm_map[i];
    for (uint32_t i = 0; comm_map != NULL && i < teams; i++)
        comm_map[comm_count + 1 + i] = trace_team_comm(defs, defs->team_offset + i);
    int failed = group_map == NULL || comm_map == NULL;
    for (trace_location* tl = atomic_load(&trace.locations); tl != NULL; tl = tl->next) {
        OTF2_DefWriter* writer = OTF2_Archive_GetDefWriter(archive, trace_location_global_id(tl));
        if (writer == NULL) {
            failed = 1;
            continue;
        }
        if (comm_map != NULL && threads)
            comm_map[comm_count] = trace_thread_contingent(defs, (uint32_t)(trace_location_global_id(tl) >> 32));
        if (group_map != NULL && comm_map != NULL)
            failed |= write_location_maps(writer, defs, group_map, comm_map, comm_count + (threads ? 1 + teams : 0));
        failed |= write_clock_offsets(writer);
        failed |= OTF2_Archive_CloseDefWriter(archive, writer) != OTF2_SUCCESS;
    }
    free(group_map);
    free(comm_map);
    return failed ? -1 : 0;
}

int trace_write_mapping_tables(const scorep_finalize_context* ctx)
{
    int failed = OTF2_Archive_OpenDefFiles(trace.archive) != OTF2_SUCCESS;
    failed |= trace_write_location_definitions(trace.archive, ctx->defs) != 0;
    failed |= OTF2_Archive_CloseDefFiles(trace.archive) != OTF2_SUCCESS;
    return failed ? -1 : 0;
}

/* ---- global definitions (rank 0) ---------------------------------------------- */

typedef struct global_writer {
    OTF2_GlobalDefWriter* writer;
    uint32_t next_string;
    int failed;
} global_writer;

static void check(global_writer* g, OTF2_ErrorCode code)
{
    if (code != OTF2_SUCCESS)
        g->failed = 1;
}

static OTF2_StringRef new_string(global_writer* g, const char* text)
{
    OTF2_StringRef id = g->next_string++;
    check(g, OTF2_GlobalDefWriter_WriteString(g->writer, id, text));
    return id;
}

/* Coarray Fortran and heap allocations: OTF2 (3.0) has no paradigm for them,
 * so the trace names values of its own with Paradigm definitions "CAF" and
 * "MEMORY" (class process), as a trace may for any value; otf2-print shows
 * the regions' paradigm so. The values are far above OTF2's own, which are
 * numbered from 0 (KOKKOS = 24). The memory regions' roles (ALLOCATE,
 * DEALLOCATE, REALLOCATE) are OTF2's own. */
#define TRACE_PARADIGM_CAF ((OTF2_Paradigm)0xCA)
#define TRACE_PARADIGM_MEMORY ((OTF2_Paradigm)0xCB)
static const struct {
    scorep_paradigm paradigm;
    OTF2_Paradigm value;
    const char* name;
} own_paradigms[] = {{SCOREP_PARADIGM_CAF, TRACE_PARADIGM_CAF, "CAF"},
                     {SCOREP_PARADIGM_MEMORY, TRACE_PARADIGM_MEMORY, "MEMORY"}};

static OTF2_Paradigm otf2_paradigm(scorep_paradigm paradigm)
{
    switch (paradigm) {
    case SCOREP_PARADIGM_MPI: return OTF2_PARADIGM_MPI;
    case SCOREP_PARADIGM_MEASUREMENT: return OTF2_PARADIGM_MEASUREMENT_SYSTEM;
    case SCOREP_PARADIGM_COMPILER: return OTF2_PARADIGM_COMPILER;
    case SCOREP_PARADIGM_CAF: return TRACE_PARADIGM_CAF;
    case SCOREP_PARADIGM_MEMORY: return TRACE_PARADIGM_MEMORY;
    case SCOREP_PARADIGM_PTHREAD: return OTF2_PARADIGM_PTHREAD;
    case SCOREP_PARADIGM_OPENMP: return OTF2_PARADIGM_OPENMP;
    case SCOREP_PARADIGM_SHMEM: return OTF2_PARADIGM_SHMEM;
    case SCOREP_PARADIGM_SAMPLING: return OTF2_PARADIGM_SAMPLING;
    case SCOREP_PARADIGM_USER:
    case SCOREP_PARADIGM_LIBWRAP:  /* OTF2 has no paradigm for library wrappers */
    default: return OTF2_PARADIGM_USER;
    }
}

static OTF2_RegionRole otf2_role(scorep_region_role role)
{
    switch (role) {
    case SCOREP_ROLE_FUNCTION: return OTF2_REGION_ROLE_FUNCTION;
    case SCOREP_ROLE_WRAPPER: return OTF2_REGION_ROLE_WRAPPER;
    case SCOREP_ROLE_POINT2POINT: return OTF2_REGION_ROLE_POINT2POINT;
    case SCOREP_ROLE_COLLECTIVE: return OTF2_REGION_ROLE_COLL_OTHER;
    case SCOREP_ROLE_BARRIER: return OTF2_REGION_ROLE_BARRIER;
    case SCOREP_ROLE_ONE2ALL: return OTF2_REGION_ROLE_COLL_ONE2ALL;
    case SCOREP_ROLE_ALL2ONE: return OTF2_REGION_ROLE_COLL_ALL2ONE;
    case SCOREP_ROLE_ALL2ALL: return OTF2_REGION_ROLE_COLL_ALL2ALL;
    case SCOREP_ROLE_FILE_IO: return OTF2_REGION_ROLE_FILE_IO;
    case SCOREP_ROLE_RMA: return OTF2_REGION_ROLE_RMA;
    case SCOREP_ROLE_ARTIFICIAL: return OTF2_REGION_ROLE_ARTIFICIAL;
    case SCOREP_ROLE_ALLOCATE: return OTF2_REGION_ROLE_ALLOCATE;
    case SCOREP_ROLE_DEALLOCATE: return OTF2_REGION_ROLE_DEALLOCATE;
    case SCOREP_ROLE_REALLOCATE: return OTF2_REGION_ROLE_REALLOCATE;
    case SCOREP_ROLE_FILE_IO_METADATA: return OTF2_REGION_ROLE_FILE_IO_METADATA;
    case SCOREP_ROLE_ATOMIC: return OTF2_REGION_ROLE_ATOMIC;
    case SCOREP_ROLE_PARALLEL: return OTF2_REGION_ROLE_PARALLEL;
    case SCOREP_ROLE_LOOP: return OTF2_REGION_ROLE_LOOP;
    case SCOREP_ROLE_IMPLICIT_BARRIER: return OTF2_REGION_ROLE_IMPLICIT_BARRIER;
    case SCOREP_ROLE_SINGLE: return OTF2_REGION_ROLE_SINGLE;
    case SCOREP_ROLE_SINGLE_SBLOCK: return OTF2_REGION_ROLE_SINGLE_SBLOCK;
    case SCOREP_ROLE_CRITICAL: return OTF2_REGION_ROLE_CRITICAL;
    case SCOREP_ROLE_CRITICAL_SBLOCK: return OTF2_REGION_ROLE_CRITICAL_SBLOCK;
    case SCOREP_ROLE_SECTIONS: return OTF2_REGION_ROLE_SECTIONS;
    case SCOREP_ROLE_SECTION: return OTF2_REGION_ROLE_SECTION;
    case SCOREP_ROLE_ORDERED: return OTF2_REGION_ROLE_ORDERED;
    case SCOREP_ROLE_ORDERED_SBLOCK: return OTF2_REGION_ROLE_ORDERED_SBLOCK;
    case SCOREP_ROLE_TASK: return OTF2_REGION_ROLE_TASK;
    case SCOREP_ROLE_TASK_CREATE: return OTF2_REGION_ROLE_TASK_CREATE;
    case SCOREP_ROLE_TASK_WAIT: return OTF2_REGION_ROLE_TASK_WAIT;
    case SCOREP_ROLE_MASTER: return OTF2_REGION_ROLE_MASTER;
    case SCOREP_ROLE_WORKSHARE: return OTF2_REGION_ROLE_WORKSHARE;
    default: return OTF2_REGION_ROLE_UNKNOWN;
    }
}

static void write_strings(global_writer* g, const scorep_unified_definitions* defs)
{
    for (uint32_t i = 0; i < defs->string_count; i++)
        check(g, OTF2_GlobalDefWriter_WriteString(g->writer, i, defs->strings[i]));
    g->next_string = defs->string_count;
}

/* every rank's host name (process_hosts.h's layout) while rank 0 writes the
 * global definitions; NULL: one machine without nodes (a partial archive) */
const char* trace_hosts;

static void write_system_tree(global_writer* g, const scorep_finalize_context* ctx,
                              const uint64_t* event_counts)
{
    const scorep_unified_definitions* defs = ctx->defs;
    OTF2_StringRef machine = new_string(g, "machine");
    check(g, OTF2_GlobalDefWriter_WriteSystemTreeNode(g->writer, 0, machine, machine,
                                                      OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    /* one "node" below the machine per host name, as Score-P writes it, so a
     * multi-node run shows which ranks shared a node (and a clock) */
    uint32_t* node_of = calloc(ctx->size > 0 ? (size_t)ctx->size : 1, sizeof *node_of);
    uint32_t nodes = 0;
    OTF2_StringRef node_class = trace_hosts != NULL ? new_string(g, "node") : 0;
    for (int rank = 0; trace_hosts != NULL && node_of != NULL && rank < ctx->size; rank++) {
        const char* host = trace_hosts + (size_t)rank * SCOREP_PROCESS_HOST_NAME_MAX;
        int earlier = 0;
        while (earlier < rank && strcmp(trace_hosts + (size_t)earlier * SCOREP_PROCESS_HOST_NAME_MAX, host) != 0)
            earlier++;
        if (earlier < rank) {
            node_of[rank] = node_of[earlier];
            continue;
        }
        node_of[rank] = ++nodes;
        check(g, OTF2_GlobalDefWriter_WriteSystemTreeNode(g->writer, nodes, new_string(g, host), node_class, 0));
    }
    char name[64];
    for (int rank = 0; rank < ctx->size; rank++) {
        scorep_location_group_name(name, sizeof name, (uint32_t)rank);
        check(g, OTF2_GlobalDefWriter_WriteLocationGroup(
                     g->writer, (OTF2_LocationGroupRef)rank, new_string(g, name),
                     OTF2_LOCATION_GROUP_TYPE_PROCESS, node_of != NULL ? node_of[rank] : 0,
                     OTF2_UNDEFINED_LOCATION_GROUP));
    }
    free(node_of);
    for (uint32_t i = 0; i < defs->location_count; i++) {
        uint32_t thread = defs->location_thread[i];
        scorep_location_name(defs, i, name, sizeof name);
        check(g, OTF2_GlobalDefWriter_WriteLocation(
                     g->writer, scorep_location_global_id(defs->location_rank[i], thread),
                     new_string(g, name), OTF2_LOCATION_TYPE_CPU_THREAD, event_counts[i],
                     defs->location_rank[i]));
    }
    /* A partial archive (one rank of an abnormal end) knows only its own
     * locations, but its communicators name the other ranks through the
     * COMM_LOCATIONS group: their master locations stand in, without events. */
    for (int rank = 0; trace_is_partial(ctx) && rank < ctx->size; rank++)
        if (rank != ctx->rank)
            check(g, OTF2_GlobalDefWriter_WriteLocation(
                         g->writer, scorep_location_global_id((uint32_t)rank, 0),
                         new_string(g, "Master thread (not in this partial trace)"),
                         OTF2_LOCATION_TYPE_CPU_THREAD, 0, (OTF2_LocationGroupRef)rank));
}

static void write_regions(global_writer* g, const scorep_unified_definitions* defs)
{
    OTF2_StringRef empty = new_string(g, "");
    /* the name of each value of our own that a region uses */
    for (size_t p = 0; p < sizeof own_paradigms / sizeof *own_paradigms; p++)
        for (uint32_t i = 0; i < defs->region_count; i++)
            if (defs->regions[i].paradigm == own_paradigms[p].paradigm) {
                check(g, OTF2_GlobalDefWriter_WriteParadigm(g->writer, own_paradigms[p].value,
                                                            new_string(g, own_paradigms[p].name),
                                                            OTF2_PARADIGM_CLASS_PROCESS));
                break;
            }
    for (uint32_t i = 0; i < defs->region_count; i++) {
        const scorep_region_def* r = &defs->regions[i];
        OTF2_StringRef name = new_string(g, r->name);
        OTF2_StringRef canonical = r->canonical ? new_string(g, r->canonical) : name;
        OTF2_StringRef file = r->file ? new_string(g, r->file) : OTF2_UNDEFINED_STRING;
        OTF2_StringRef description = r->group ? new_string(g, r->group) : empty;
        check(g, OTF2_GlobalDefWriter_WriteRegion(g->writer, i, name, canonical, description,
                                                  otf2_role(r->role), otf2_paradigm(r->paradigm),
                                                  OTF2_REGION_FLAG_NONE, file, r->line, r->end_line));
    }
}

static void write_communicators(global_writer* g, const scorep_finalize_context* ctx)
{
    const scorep_unified_definitions* defs = ctx->defs;
    uint64_t* members = malloc((ctx->size > 0 ? ctx->size : 1) * sizeof *members);
    if (members == NULL) {
        g->failed = 1;
        return;
    }
    /* Rank r's master location, in world-rank order: the ranks of every
     * communicator group below index into this list. */
    for (int rank = 0; rank < ctx->size; rank++)
        members[rank] = scorep_location_global_id((uint32_t)rank, 0);
    check(g, OTF2_GlobalDefWriter_WriteGroup(g->writer, LOCATIONS_GROUP, new_string(g, "MPI"),
                                             OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                             OTF2_GROUP_FLAG_NONE, (uint32_t)ctx->size, members));
    free(members);

    /* the MPI adapter records each communicator's CommCreate and CommDestroy
     * (trace_events.c), as Score-P, which says so with this flag */
    OTF2_CommFlag comm_flags = OTF2_COMM_FLAG_NONE;
    for (uint32_t i = 0; i < defs->region_count; i++)
        if (defs->regions[i].paradigm == SCOREP_PARADIGM_MPI)
            comm_flags = OTF2_COMM_FLAG_CREATE_DESTROY_EVENTS;
    char fallback[64];
    for (uint32_t c = 0; c < defs->comm_count; c++) {
        const scorep_comm_def* comm = &defs->comms[c];
        const char* text = comm->name;
        if (text == NULL) {
            snprintf(fallback, sizeof fallback, "%s %u", comm->is_group ? "Group" : "Comm", c);
            text = fallback;
        }
        OTF2_StringRef name = new_string(g, text);
        uint64_t* ranks = malloc((comm->size ? comm->size : 1) * sizeof *ranks);
        if (ranks == NULL) {
            g->failed = 1;
            return;
        }
        for (uint32_t i = 0; i < comm->size; i++)
            ranks[i] = (uint64_t)comm->local_to_world[i];
        /* The core unifies each rank's MPI_COMM_SELF as a communicator of
         * its own, so it is an ordinary one-member group here. */
        check(g, OTF2_GlobalDefWriter_WriteGroup(g->writer, group_of_comm(c), name,
                                                 OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                                 OTF2_GROUP_FLAG_NONE, comm->size, ranks));
        free(ranks);
        if (!comm->is_group)
            check(g, OTF2_GlobalDefWriter_WriteComm(g->writer, c, name, group_of_comm(c),
                                                    OTF2_UNDEFINED_COMM, comm_flags));
    }
}

/* A synchronous strict metric's member as Score-P defines it: a counter
 * since the start (ACCUMULATED_START) of unsigned values, its unit split
 * into the base unit and its power ("10^-6 s": s, decimal, -6; "2^10
 * Bytes": Bytes, binary, 10) */
static void write_strict_member(global_writer* g, OTF2_MetricMemberRef member, const scorep_metric_def* metric)
{
    const char* unit = metric->unit ? metric->unit : "";
    OTF2_Base base = OTF2_BASE_DECIMAL;
    int64_t exponent = 0;
    unsigned radix;
    int power, used = 0;
    if (sscanf(unit, "%u^%d %n", &radix, &power, &used) == 2 && used > 0 && (radix == 2 || radix == 10)) {
        base = radix == 2 ? OTF2_BASE_BINARY : OTF2_BASE_DECIMAL;
        exponent = power;
        unit += used;
    }
    check(g, OTF2_GlobalDefWriter_WriteMetricMember(
                 g->writer, member, new_string(g, metric->name), new_string(g, metric->description ? metric->description : ""),
                 metric->kind == SCOREP_METRIC_STRICT_RUSAGE ? OTF2_METRIC_TYPE_RUSAGE
                 : metric->kind == SCOREP_METRIC_STRICT_PAPI ? OTF2_METRIC_TYPE_PAPI
                                                              : OTF2_METRIC_TYPE_OTHER,
                 OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_UINT64, base, exponent, new_string(g, unit)));
}

static void write_windows_and_parameters(global_writer* g, const scorep_unified_definitions* defs)
{
    char fallback[64];
    for (uint32_t w = 0; w < defs->window_count; w++) {
        const char* text = defs->windows[w].name;
        if (text == NULL) {
            snprintf(fallback, sizeof fallback, "Window %u", w);
            text = fallback;
        }
        check(g, OTF2_GlobalDefWriter_WriteRmaWin(g->writer, w, new_string(g, text),
                                                  defs->windows[w].comm, OTF2_RMA_WIN_FLAG_NONE));
    }
    /* user metrics (scorep_metric_add): a member and a class of one member
     * each, of the same id; every value is the amount added at its point
     * (the profile sums them per call path) */
    OTF2_StringRef user_metric = defs->metric_count ? new_string(g, "User metric (scorep_metric_add)") : 0;
    OTF2_MetricMemberRef strict[SCOREP_PROFILE_MAX_METRICS];
    uint8_t nstrict = 0;
    for (uint32_t m = 0; m < defs->metric_count; m++) {
        const scorep_metric_def* metric = &defs->metrics[m];
        OTF2_MetricMemberRef member = m;
        if (metric->kind == SCOREP_METRIC_STRICT_RUSAGE || metric->kind == SCOREP_METRIC_STRICT_PERF ||
            metric->kind == SCOREP_METRIC_STRICT_PAPI) {
            write_strict_member(g, member, metric);
            if (nstrict < SCOREP_PROFILE_MAX_METRICS) strict[nstrict++] = member;
            continue;
        }
        check(g, OTF2_GlobalDefWriter_WriteMetricMember(g->writer, member, new_string(g, metric->name), user_metric,
                                                        OTF2_METRIC_TYPE_USER, OTF2_METRIC_ABSOLUTE_POINT,
                                                        OTF2_TYPE_INT64, OTF2_BASE_DECIMAL, 0,
                                                        new_string(g, metric->unit ? metric->unit : "")));
        check(g, OTF2_GlobalDefWriter_WriteMetricClass(g->writer, m, 1, &member, OTF2_METRIC_ASYNCHRONOUS,
                                                       OTF2_RECORDER_KIND_ABSTRACT));
    }
    /* the strict metrics: one class of them all, as Score-P's, under the
     * first one's id (the id their Metric records carry, trace_encode.c) */
    if (nstrict)
        check(g, OTF2_GlobalDefWriter_WriteMetricClass(g->writer, strict[0], nstrict, strict,
                                                       OTF2_METRIC_SYNCHRONOUS_STRICT, OTF2_RECORDER_KIND_CPU));
    for (uint32_t p = 0; p < defs->parameter_count; p++) {
        const scorep_parameter_def* param = &defs->parameters[p];
        check(g, OTF2_GlobalDefWriter_WriteParameter(
                     g->writer, p, new_string(g, param->name),
                     param->type == SCOREP_PARAMETER_STRING ? OTF2_PARAMETER_TYPE_STRING
                                                            : OTF2_PARAMETER_TYPE_INT64));
    }
}

/* Score-P's names and descriptions of its memory recording's attributes */
static const struct {
    const char* name;
    const char* description;
} attributes[SCOREP_ATTRIBUTE_COUNT_] = {
    [SCOREP_ATTRIBUTE_ALLOCATION_SIZE] = {"ALLOCATION_SIZE", "Size of memory to allocate"},
    [SCOREP_ATTRIBUTE_DEALLOCATION_SIZE] = {"DEALLOCATION_SIZE", "Size of memory to deallocate"},
    [SCOREP_ATTRIBUTE_ARGUMENT_ADDRESS] = {"ARGUMENT_ADDRESS", "Address argument"},
    [SCOREP_ATTRIBUTE_RESULT_ADDRESS] = {"RESULT_ADDRESS", "Result of allocation"},
};

int trace_attributes_write_definitions(OTF2_GlobalDefWriter* writer, const scorep_unified_definitions* defs,
                                       uint32_t* next_string)
{
    int memory = 0;
    for (uint32_t i = 0; i < defs->region_count; i++)
        memory |= defs->regions[i].paradigm == SCOREP_PARADIGM_MEMORY;
    if (!memory)
        return 0;
    int failed = 0;
    for (uint32_t a = 0; a < SCOREP_ATTRIBUTE_COUNT_; a++) {
        OTF2_StringRef name = (*next_string)++, description = (*next_string)++;
        failed |= OTF2_GlobalDefWriter_WriteString(writer, name, attributes[a].name) != OTF2_SUCCESS;
        failed |= OTF2_GlobalDefWriter_WriteString(writer, description, attributes[a].description) != OTF2_SUCCESS;
        failed |= OTF2_GlobalDefWriter_WriteAttribute(writer, a, name, description, OTF2_TYPE_UINT64)
                  != OTF2_SUCCESS;
    }
    return failed ? -1 : 0;
}

int trace_write_global_definitions(OTF2_Archive* archive, const scorep_finalize_context* ctx,
                                   const uint64_t* event_counts)
{
    global_writer g = { .writer = OTF2_Archive_GetGlobalDefWriter(archive) };
    if (g.writer == NULL)
        return -1;
    uint64_t length = ctx->global_end_ticks > ctx->global_begin_ticks
                          ? ctx->global_end_ticks - ctx->global_begin_ticks : 0;
    length += trace_clock_moved_span;  /* events moved after their location's end */
    check(&g, OTF2_GlobalDefWriter_WriteClockProperties(g.writer, ctx->ticks_per_second,
                                                        ctx->global_begin_ticks, length,
                                                        OTF2_UNDEFINED_TIMESTAMP));
    write_strings(&g, ctx->defs);
    check(&g, OTF2_GlobalDefWriter_WriteParadigm(g.writer, OTF2_PARADIGM_MPI,
                                                 new_string(&g, "MPI"),
                                                 OTF2_PARADIGM_CLASS_PROCESS));
    write_system_tree(&g, ctx, event_counts);
    write_regions(&g, ctx->defs);
    write_communicators(&g, ctx);
    if (trace_threads_write_definitions(g.writer, ctx, &g.next_string) != 0)
        g.failed = 1;
    write_windows_and_parameters(&g, ctx->defs);
    if (trace_io_write_definitions(g.writer, ctx->defs, &g.next_string) != 0)
        g.failed = 1;
    if (trace_attributes_write_definitions(g.writer, ctx->defs, &g.next_string) != 0)
        g.failed = 1;
    check(&g, OTF2_Archive_CloseGlobalDefWriter(archive, g.writer));
    return g.failed ? -1 : 0;
}
