/* Run-time support for the generated C MPI wrappers. */
#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "scorep_mpi_adapter.h"

/* the core's message for what every rank finds alike (runtime/util/messages.c, substrate.h) */
void scorep_warning_all_ranks(const char* format, ...) __attribute__((format(printf, 1, 2)));

uint32_t scorep_mpi_enabled_groups = SCOREP_MPI_GROUPS_DEFAULT;

scorep_region scorep_mpi_region_ids[SCOREP_MPI_REGION_COUNT] = {
    [0 ... SCOREP_MPI_REGION_COUNT - 1] = SCOREP_INVALID_ID
};

scorep_region scorep_mpi_region_define(int index)
{
    const struct scorep_mpi_region_info* info = &scorep_mpi_region_info[index];
    scorep_region region = scorep_mpi_procedure_region(info->name, info->role, info->group);
    scorep_mpi_region_ids[index] = region;
    return region;
}

static int group_index(const char* name, size_t len)
{
    for (int i = 0; i < SCOREP_MPI_GROUP_COUNT; i++)
        if (strlen(scorep_mpi_group_names[i]) == len
            && strncasecmp(scorep_mpi_group_names[i], name, len) == 0)
            return i;
    return -1;
}

uint32_t scorep_mpi_parse_groups(const char* value)
{
    uint32_t groups = 0;
    const char* p = value;
    while (*p) {
        while (*p == ',' || *p == ' ' || *p == ':' || *p == ';')
            p++;
        if (!*p)
            break;
        int remove = 0;
        if (*p == '~') {
            remove = 1;
            p++;
        }
        const char* start = p;
        while (*p && *p != ',' && *p != ' ' && *p != ':' && *p != ';')
            p++;
        size_t len = (size_t)(p - start);
        uint32_t bits;
        int index = group_index(start, len);
        if (index >= 0)
            bits = UINT32_C(1) << index;
        else if (len == 7 && strncasecmp(start, "default", 7) == 0)
            bits = SCOREP_MPI_GROUPS_DEFAULT;
        else if (len == 3 && strncasecmp(start, "all", 3) == 0)
            bits = SCOREP_MPI_GROUPS_ALL;
        else if (len == 4 && strncasecmp(start, "none", 4) == 0) {
            groups = 0;
            continue;
        }
        else {
            char names[512] = "DEFAULT, ALL, NONE";
            for (int i = 0; i < SCOREP_MPI_GROUP_COUNT; i++)
                snprintf(names + strlen(names), sizeof names - strlen(names), ", %s", scorep_mpi_group_names[i]);
            /* every rank reads the same variable: one message for all of them */
            scorep_warning_all_ranks("SCOREP_MPI_ENABLE_GROUPS: unknown group '%.*s' ignored (groups: %s)", (int)len,
                                     start, names);
            continue;
        }
        if (remove)
            groups &= ~bits;
        else
            groups |= bits;
    }
    return groups;
}

__attribute__((constructor)) static void read_groups(void)
{
    const char* value = getenv("SCOREP_MPI_ENABLE_GROUPS");
    if (value && *value)
        scorep_mpi_enabled_groups = scorep_mpi_parse_groups(value);
}

uint64_t scorep_mpi_bytes(MPI_Count count, MPI_Datatype type)
{
    if (count <= 0 || type == MPI_DATATYPE_NULL)
        return 0;
    int named;
    return (uint64_t)count * scorep_mpi_type_size(type, &named);
}

__thread struct scorep_mpi_fortran_type_size scorep_mpi_fortran_type_cache[SCOREP_MPI_FORTRAN_TYPE_CACHE]
    __attribute__((tls_model("initial-exec")));

uint64_t scorep_mpi_bytes_fortran_miss(MPI_Count count, MPI_Fint datatype)
{
    MPI_Datatype type = MPI_Type_f2c(datatype);
    if (count <= 0 || type == MPI_DATATYPE_NULL)
        return 0;
    int named;
    uint64_t size = scorep_mpi_type_size(type, &named);
    if (named)
        *scorep_mpi_fortran_type_slot(datatype) = (struct scorep_mpi_fortran_type_size){datatype, 1, size};
    return (uint64_t)count * size;
}

uint64_t scorep_mpi_status_bytes(const MPI_Status* status)
{
    /* MPI_Get_count is the cheaper query; only counts beyond an int need the _x one. */
    int count = 0;
    if (PMPI_Get_count(status, MPI_BYTE, &count) == MPI_SUCCESS && count != MPI_UNDEFINED)
        return count > 0 ? (uint64_t)count : 0;
    MPI_Count bytes = 0;
    if (PMPI_Get_elements_x(status, MPI_BYTE, &bytes) != MPI_SUCCESS
        || bytes == MPI_UNDEFINED || bytes < 0)
        return 0;
    return (uint64_t)bytes;
}

static __thread scorep_request* saved_requests;
static __thread int saved_capacity;
static __thread MPI_Status* lent_statuses;
static __thread int lent_capacity;
static __thread MPI_Fint* saved_fortran_handles;
static __thread int saved_fortran_capacity;
static __thread void* lent_fortran_statuses;
static __thread int lent_fortran_capacity;

/* Grows a per-thread scratch array to hold count elements; it is kept for the
 * next call, so steady state allocates nothing. */
static void* scratch(void** array, int* capacity, size_t element, int count, const char* what)
{
    if (count > *capacity) {
        int grown = *capacity ? *capacity : 16;
        while (grown < count)
            grown *= 2;
        void* more = realloc(*array, (size_t)grown * element);
        if (!more) {
            fprintf(stderr, "[Score-P] Error: out of memory for %d %s\n", count, what);
            abort();
        }
        *array = more;
        *capacity = grown;
    }
    return *array;
}

scorep_request* scorep_mpi_saved_requests(int count)
{
    return scratch((void**)&saved_requests, &saved_capacity, sizeof *saved_requests, count,
                   "saved request handles");
}

MPI_Status* scorep_mpi_lent_statuses(int count)
{
    return scratch((void**)&lent_statuses, &lent_capacity, sizeof *lent_statuses, count,
                   "lent statuses");
}

MPI_Fint* scorep_mpi_saved_fortran_handles(int count)
{
    return scratch((void**)&saved_fortran_handles, &saved_fortran_capacity, sizeof *saved_fortran_handles,
                   count, "saved Fortran request handles");
}

void* scorep_mpi_lent_fortran_statuses(int count, size_t element)
{
    return scratch(&lent_fortran_statuses, &lent_fortran_capacity, element, count, "lent Fortran statuses");
}

/* A matched message is received by the thread that probed it, usually right
 * after: a small per-thread ring is enough and needs no lock. */
#define MESSAGE_RING 64
static __thread struct { MPI_Message message; scorep_comm comm; } message_ring[MESSAGE_RING];
static __thread unsigned message_next;

void scorep_mpi_message_remember(MPI_Message message, scorep_comm comm)
{
    if (message == MPI_MESSAGE_NULL || message == MPI_MESSAGE_NO_PROC)
        return;
    unsigned slot = message_next++ % MESSAGE_RING;
    message_ring[slot].message = message;
    message_ring[slot].comm = comm;
}

scorep_comm scorep_mpi_message_comm(MPI_Message message)
{
    if (message == MPI_MESSAGE_NULL || message == MPI_MESSAGE_NO_PROC)
        return SCOREP_INVALID_ID;
    for (unsigned i = 0; i < MESSAGE_RING; i++) {
        unsigned slot = (message_next - 1 - i) % MESSAGE_RING;
        if (message_ring[slot].message == message) {
            message_ring[slot].message = MPI_MESSAGE_NULL;
            return message_ring[slot].comm;
        }
    }
    return SCOREP_INVALID_ID;
}

struct pending_rma {
    scorep_window window;
    int target;
    uint64_t id;
};
static __thread struct pending_rma* pending_rma;
static __thread int pending_capacity, pending_count;
/* matching ids unique in the process, not per thread: a thread that ends
 * hands its location on to the next new thread, whose ids must not repeat
 * those of operations still open on that location */
static uint64_t rma_last_id;

uint64_t scorep_mpi_rma_issue(scorep_window window, int target)
{
    struct pending_rma* slots = scratch((void**)&pending_rma, &pending_capacity, sizeof *slots,
                                        pending_count + 1, "pending one-sided operations");
    uint64_t id = __atomic_add_fetch(&rma_last_id, 1, __ATOMIC_RELAXED);
    slots[pending_count++] = (struct pending_rma){ window, target, id };
    return id;
}

void scorep_mpi_rma_complete(scorep_window window, int target)
{
    int kept = 0;
    for (int i = 0; i < pending_count; i++) {
        struct pending_rma op = pending_rma[i];
        if (op.window == window && (target < 0 || op.target == target))
            scorep_rma_op_complete(window, op.id, 1);
        else
            pending_rma[kept++] = op;
    }
    pending_count = kept;
}

/* ---- does the library set the status of MPI_Isendrecv(_replace) requests? ----
 * MPICH 4.0.2 does not: such a request completes with the status its request
 * object had before (zero, or a stale envelope of an earlier request). The
 * core asks once per origin, at the first such request (scorep_recv_origin),
 * and then records the posted envelope instead of a wrong status. */

#if SCOREP_WRAPGEN_HAVE_MPI_Isendrecv || SCOREP_WRAPGEN_HAVE_MPI_Isendrecv_replace
/* One message of `length` bytes to itself through the origin's call: 1 if the
 * status names it (source 0, tag, length), 0 if not, -1 if MPI failed. */
static int isendrecv_round(scorep_recv_origin origin, MPI_Comm comm, int tag, int length)
{
    char out[8] = "scorep", in[8] = {0};
    int no_send = origin == SCOREP_RECV_ISENDRECV_NO_SEND || origin == SCOREP_RECV_ISENDRECV_REPLACE_NO_SEND;
    int dest = no_send ? MPI_PROC_NULL : 0;
    MPI_Request request = MPI_REQUEST_NULL, send = MPI_REQUEST_NULL;
    MPI_Status status;
    int rc = MPI_ERR_OTHER;
    memset(&status, 0, sizeof status);
    status.MPI_SOURCE = status.MPI_TAG = -7;
    switch (origin) {
#if SCOREP_WRAPGEN_HAVE_MPI_Isendrecv
    case SCOREP_RECV_ISENDRECV:
    case SCOREP_RECV_ISENDRECV_NO_SEND:
        rc = PMPI_Isendrecv(out, length, MPI_BYTE, dest, tag, in, (int)sizeof in, MPI_BYTE, 0, tag, comm,
                            &request);
        break;
#endif
#if SCOREP_WRAPGEN_HAVE_MPI_Isendrecv_replace
    case SCOREP_RECV_ISENDRECV_REPLACE:
    case SCOREP_RECV_ISENDRECV_REPLACE_NO_SEND:
        memcpy(in, out, sizeof in);
        rc = PMPI_Isendrecv_replace(in, length, MPI_BYTE, dest, tag, 0, tag, comm, &request);
        break;
#endif
    default:
        break;
    }
    if (rc != MPI_SUCCESS)
        return -1;
    if (no_send && PMPI_Isend(out, length, MPI_BYTE, 0, tag, comm, &send) != MPI_SUCCESS) {
        PMPI_Cancel(&request);
        PMPI_Wait(&request, MPI_STATUS_IGNORE);
        return -1;
    }
    rc = PMPI_Wait(&request, &status);
    if (send != MPI_REQUEST_NULL)
        PMPI_Wait(&send, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        return -1;
    int count = -1;
    PMPI_Get_count(&status, MPI_BYTE, &count);
    return status.MPI_SOURCE == 0 && status.MPI_TAG == tag && count == length;
}

/* Two rounds with different tags and lengths on a private communicator (no
 * user receive can take the messages): a stale status cannot pass both. */
static int isendrecv_status_check(scorep_recv_origin origin)
{
    int initialized = 0, finalized = 0;
    PMPI_Initialized(&initialized);
    PMPI_Finalized(&finalized);
    if (!initialized || finalized)
        return -1;                 /* e.g. a sessions-only program: no MPI_COMM_SELF */
    MPI_Comm comm = MPI_COMM_NULL;
    if (PMPI_Comm_split(MPI_COMM_SELF, 0, 0, &comm) != MPI_SUCCESS || comm == MPI_COMM_NULL)
        return -1;
    PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    static const int tags[2] = { 4093, 2039 }, lengths[2] = { 3, 5 };
    int verdict = 1;
    for (int i = 0; i < 2 && verdict == 1; i++)
        verdict = isendrecv_round(origin, comm, tags[i], lengths[i]);
    PMPI_Comm_free(&comm);
    return verdict;
}
#endif

__attribute__((constructor)) static void register_status_checks(void)
{
#if SCOREP_WRAPGEN_HAVE_MPI_Isendrecv
    scorep_register_status_check(SCOREP_RECV_ISENDRECV, isendrecv_status_check);
    scorep_register_status_check(SCOREP_RECV_ISENDRECV_NO_SEND, isendrecv_status_check);
#endif
#if SCOREP_WRAPGEN_HAVE_MPI_Isendrecv_replace
    scorep_register_status_check(SCOREP_RECV_ISENDRECV_REPLACE, isendrecv_status_check);
    scorep_register_status_check(SCOREP_RECV_ISENDRECV_REPLACE_NO_SEND, isendrecv_status_check);
#endif
}

/* MPI_Pcontrol (every binding): level 0 pauses the MPI measurement of this
 * process, any other level resumes it. Paused, no MPI group is enabled (so
 * no wrapper records anything; communicators, groups and windows are still
 * tracked) and the calling thread is in the region "MPI_Pcontrol paused", so
 * the time of the paused interval still shows in the profile. Pausing twice
 * or resuming twice changes nothing: a library's Fortran layer may call the C
 * MPI_Pcontrol of the same user call. */
static int pcontrol_paused, pcontrol_in_region;
static uint32_t pcontrol_saved_groups;
static scorep_region pcontrol_region = SCOREP_INVALID_ID;

void scorep_mpi_pcontrol(int level)
{
    if (level == 0) {
        if (!pcontrol_paused) {
            pcontrol_paused = 1;
            pcontrol_saved_groups = scorep_mpi_enabled_groups;
            scorep_mpi_enabled_groups = 0;
        }
        /* not from inside a measured call (a Fortran layer's call of the C
         * MPI_Pcontrol): the outer call's wrapper enters the region after
         * its own visit ended */
        if (!pcontrol_in_region && scorep_event_generation_is_on()) {
            if (pcontrol_region == SCOREP_INVALID_ID)
                pcontrol_region = scorep_region_define("MPI_Pcontrol paused", NULL, SCOREP_PARADIGM_MPI,
                                                       SCOREP_ROLE_ARTIFICIAL, "MISC");
            if (pcontrol_region != SCOREP_INVALID_ID) {
                scorep_enter(pcontrol_region);
                pcontrol_in_region = 1;
            }
        }
    } else if (pcontrol_paused) {
        scorep_mpi_enabled_groups = pcontrol_saved_groups;
        pcontrol_paused = 0;
        if (pcontrol_in_region) {
            scorep_exit(pcontrol_region);
            pcontrol_in_region = 0;
        }
    }
}
