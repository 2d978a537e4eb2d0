/* Run-time support for the generated Fortran 2008 MPI wrappers: region ids,
 * the group switch, and the mpi_f08 handle conversions the MPI layer needs.
 * Handles arrive as MPI_VAL (an MPI_Fint), statuses as the address of a
 * type(MPI_Status), whose layout is the INTEGER status array in Open MPI 4
 * and MPICH 4 (the MPI layer decodes SCOREP_LANGUAGE_FORTRAN2008 the same way). */
#include <stdlib.h>

#include "scorep_mpi_f08.h"

static scorep_region* region_ids;

static void allocate_region_ids(void)
{
    region_ids = malloc((size_t)scorep_mpi_f08_region_count * sizeof *region_ids);
    if (!region_ids)
        abort();
    for (int i = 0; i < scorep_mpi_f08_region_count; i++)
        region_ids[i] = SCOREP_INVALID_ID;
}

__attribute__((constructor)) static void scorep_mpi_f08_load(void)
{
    allocate_region_ids();
}

/* index: the wrapper's 0-based index into scorep_mpi_f08_region_info. */
static scorep_region region_of(int index)
{
    scorep_region region = region_ids[index];
    if (__builtin_expect(region == SCOREP_INVALID_ID, 0)) {
        const struct scorep_mpi_f08_region_info* info = &scorep_mpi_f08_region_info[index];
        region = scorep_mpi_procedure_region(info->name, info->role, info->group_name);
        region_ids[index] = region;
    }
    return region;
}

/* Where the enabled groups are: the wrappers test their group bit in Fortran,
 * so a wrapper whose group is off makes no call into C. */
uint32_t* scorep_mpi_f08_groups_address(void)
{
    return &scorep_mpi_enabled_groups;
}

/* The start and end of a measured wrapper, one call each from Fortran: a
 * call into C cannot be inlined, so the wrapper makes as few as it can (the
 * variants below fold a task's first or last event into the same call).
 * begin, called once the wrapper found its group on: whether it measures
 * (not inside another measured call); if so, event generation off and the
 * enter. Returns the region, or SCOREP_INVALID_ID when not measuring. */
static inline scorep_region begin(int index)
{
    if (!scorep_event_generation_is_on())
        return SCOREP_INVALID_ID;
    scorep_region region = region_of(index);
    if (__builtin_expect(region == SCOREP_INVALID_ID, 0))
        return SCOREP_INVALID_ID;
    scorep_mpi_event_generation_off(scorep_mpi_f08_region_info[index].group);
    scorep_enter(region);
    return region;
}

static inline void end(scorep_region region)
{
    scorep_exit(region);
    scorep_event_generation_on();
}

scorep_region scorep_mpi_f08_begin(int index)
{
    return begin(index);
}

void scorep_mpi_f08_end(scorep_region region)
{
    end(region);
}

/* Whether test calls that found no completion are recorded (group XREQTEST). */
int scorep_mpi_f08_reqtest_enabled(void)
{
    return scorep_mpi_group_enabled(SCOREP_MPI_GROUP_XREQTEST);
}

/* MPI_COMM_WORLD and MPI_COMM_SELF by their Fortran handles (fixed for the
 * process), without the conversion to C; asked at the first call (after
 * MPI_Init: wrappers measure no call before). */
static int predefined_known;
static MPI_Fint world_f, self_f;

static inline scorep_comm comm_id(MPI_Fint comm)
{
    if (__builtin_expect(!__atomic_load_n(&predefined_known, __ATOMIC_ACQUIRE), 0)) {
        /* racing first calls store the same values */
        world_f = PMPI_Comm_c2f(MPI_COMM_WORLD);
        self_f = PMPI_Comm_c2f(MPI_COMM_SELF);
        __atomic_store_n(&predefined_known, 1, __ATOMIC_RELEASE);
    }
    if (comm == world_f)
        return SCOREP_COMM_WORLD;
    if (comm == self_f)
        return SCOREP_COMM_SELF;
    return scorep_mpi_comm_id_fortran(comm);
}

/* begin, and the id of the wrapper's communicator (the comm_id task) in the
 * same call; *id is SCOREP_INVALID_ID when not measuring. */
scorep_region scorep_mpi_f08_begin_comm(int index, MPI_Fint comm, scorep_comm* id)
{
    scorep_region region = begin(index);
    *id = region == SCOREP_INVALID_ID ? SCOREP_INVALID_ID : comm_id(comm);
    return region;
}

scorep_comm scorep_mpi_f08_comm_create(MPI_Fint comm)
{
    return scorep_mpi_comm_create(MPI_Comm_f2c(comm));
}

/* MPI_Finalize's meeting of the ranks before its region closes
 * (tasks/finalize.f08.j2; the C bindings' is in tasks/finalize.c.j2) */
void scorep_mpi_f08_finalize_barrier(void)
{
    scorep_mpi_collective_begin();
    PMPI_Barrier(MPI_COMM_WORLD);
    scorep_mpi_collective_end(SCOREP_COLL_DESTROY_HANDLE, SCOREP_COMM_WORLD, SCOREP_NO_ROOT, 0, 0);
}

void scorep_mpi_f08_comm_idup(MPI_Fint parent, MPI_Fint newcomm)
{
    scorep_mpi_comm_idup(MPI_Comm_f2c(parent), MPI_Comm_f2c(newcomm));
}

void scorep_mpi_f08_comm_free(MPI_Fint comm)
{
    scorep_mpi_comm_free(MPI_Comm_f2c(comm));
}

scorep_comm scorep_mpi_f08_group_id(MPI_Fint group)
{
    return scorep_mpi_group_id(MPI_Group_f2c(group));
}

uint64_t scorep_mpi_f08_bytes(int64_t count, MPI_Fint datatype)
{
    return scorep_mpi_bytes_fortran(count, datatype);
}

/* The same request name as the C wrappers use (MPI_Request_f2c of MPI_VAL). */
scorep_request scorep_mpi_f08_request(MPI_Fint request)
{
    return scorep_mpi_request_handle(MPI_Request_f2c(request));
}

/* begin, and the name of the request the call completes (the wait task);
 * *name is 0 when not measuring. */
scorep_region scorep_mpi_f08_begin_request(int index, MPI_Fint request, scorep_request* name)
{
    scorep_region region = begin(index);
    *name = region == SCOREP_INVALID_ID ? 0 : scorep_mpi_f08_request(request);
    return region;
}

uint64_t scorep_mpi_f08_status_bytes(const MPI_Fint* status)
{
    MPI_Status scratch;
    const MPI_Status* c = scorep_mpi_status_from_fortran(status, &scratch);
    return c ? scorep_mpi_status_bytes(c) : 0;
}

/* begin, the communicator's id and the send event (the send task; *id is
 * SCOREP_INVALID_ID when not measuring, and read by a receive in the same
 * wrapper). Ranks are the same integers in both languages. */
scorep_region scorep_mpi_f08_begin_send(int index, MPI_Fint comm, int dest, int tag, int64_t count,
                                        MPI_Fint datatype, scorep_comm* id)
{
    scorep_region region = begin(index);
    if (region == SCOREP_INVALID_ID) {
        *id = SCOREP_INVALID_ID;
        return region;
    }
    *id = comm_id(comm);
    if (dest != MPI_PROC_NULL)
        scorep_mpi_send(*id, dest, tag, scorep_mpi_bytes_fortran(count, datatype));
    return region;
}

static void recv_record(scorep_comm comm, const MPI_Status* status)
{
    if (status && status->MPI_SOURCE != MPI_PROC_NULL)
        scorep_mpi_recv(comm, status->MPI_SOURCE, status->MPI_TAG, scorep_mpi_status_bytes(status));
}

/* Out of line: the scratch status would cost every receive a larger frame. */
__attribute__((noinline, cold)) static void recv_event_converted(scorep_comm comm, const MPI_Fint* status)
{
    MPI_Status scratch;
    recv_record(comm, scorep_mpi_status_f2c(status, &scratch) == MPI_SUCCESS ? &scratch : NULL);
}

static inline void recv_event(scorep_comm comm, const MPI_Fint* status)
{
    const MPI_Status* in_place = scorep_mpi_status_in_place(status);
    if (__builtin_expect(in_place != NULL, 1))
        recv_record(comm, in_place);
    else
        recv_event_converted(comm, status);
}

/* The receive event of a successful call, then end: the last two calls of a
 * receiving wrapper in one (the recv task). */
void scorep_mpi_f08_recv_end(scorep_region region, scorep_comm comm, const MPI_Fint* status, int ierror)
{
    if (ierror == MPI_SUCCESS)
        recv_event(comm, status);
    end(region);
}

/* The completion of a successful MPI_Wait, then end (the wait task without
 * a flag): request is the handle scorep_mpi_f08_request named before the
 * call. */
void scorep_mpi_f08_complete_end(scorep_region region, scorep_request request, const MPI_Fint* status, int ierror)
{
    if (ierror == MPI_SUCCESS)
        scorep_mpi_request_complete_status(request, status, SCOREP_LANGUAGE_FORTRAN2008);
    end(region);
}

/* Counts of the v/w collectives: INTEGER, or INTEGER(MPI_COUNT_KIND) in the
 * large-count variants. */
static MPI_Count count_at(const void* counts, int large, int i)
{
    return large ? ((const MPI_Count*)counts)[i] : ((const MPI_Fint*)counts)[i];
}

static uint64_t sum_bytes(const void* counts, int large, int n, MPI_Fint type, const MPI_Fint* types)
{
    uint64_t sum = 0;
    for (int i = 0; i < n; i++)
        sum += scorep_mpi_bytes(count_at(counts, large, i), MPI_Type_f2c(types ? types[i] : type));
    return sum;
}

/* What one run of a collective moves for this process, and its root as
 * recorded (a rank in the communicator or SCOREP_NO_ROOT). */
typedef struct coll_bytes {
    uint64_t sent, received;
    int root;
} coll_bytes;

/* Bytes a process contributes and obtains in a collective, as the standard
 * moves data (the C wrappers' coll_rooted/coll_all tasks, for mpi_f08 handles).
 * root: a rank, MPI_ROOT/MPI_PROC_NULL on intercommunicators, or SCOREP_NO_ROOT
 * for collectives without root. Arrays not passed by the procedure are NULL. */
static coll_bytes collective_bytes(int kind, MPI_Fint comm_f, int root, int send_in_place, int recv_in_place,
                                   int large, int64_t sendcount, MPI_Fint sendtype, int64_t recvcount,
                                   MPI_Fint recvtype, const void* sendcounts, const void* recvcounts,
                                   const MPI_Fint* sendtypes, const MPI_Fint* recvtypes)
{
    MPI_Comm comm = MPI_Comm_f2c(comm_f);
    const scorep_mpi_coll_shape s = scorep_mpi_coll_shape_of(comm, root == SCOREP_NO_ROOT ? MPI_PROC_NULL : root);
    const MPI_Datatype st = MPI_Type_f2c(sendtype), rt = MPI_Type_f2c(recvtype);
    uint64_t sent = 0, received = 0;
    const int sends = s.takes_part && !(s.is_inter && s.is_root);
    switch ((scorep_collective_kind)kind) {
    case SCOREP_COLL_BARRIER:
        break;
    case SCOREP_COLL_BCAST:
        if (s.is_root) sent = scorep_mpi_bytes(sendcount, st);
        else if (s.takes_part) received = scorep_mpi_bytes(recvcount, rt);
        break;
    case SCOREP_COLL_REDUCE:
        if (sends) sent = scorep_mpi_bytes(sendcount, st);
        if (s.is_root) received = scorep_mpi_bytes(recvcount, rt);
        break;
    case SCOREP_COLL_GATHER:
    case SCOREP_COLL_GATHERV:
        if (sends)
            sent = !send_in_place ? scorep_mpi_bytes(sendcount, st)
                 : kind == SCOREP_COLL_GATHER ? scorep_mpi_bytes(recvcount, rt)
                 : scorep_mpi_bytes(count_at(recvcounts, large, s.rank), rt);
        if (s.is_root)
            received = kind == SCOREP_COLL_GATHER ? (uint64_t)s.peers * scorep_mpi_bytes(recvcount, rt)
                     : sum_bytes(recvcounts, large, s.peers, recvtype, NULL);
        break;
    case SCOREP_COLL_SCATTER:
    case SCOREP_COLL_SCATTERV:
        if (s.is_root)
            sent = kind == SCOREP_COLL_SCATTER ? (uint64_t)s.peers * scorep_mpi_bytes(sendcount, st)
                 : sum_bytes(sendcounts, large, s.peers, sendtype, NULL);
        if (sends)
            received = !(s.is_root && recv_in_place) ? scorep_mpi_bytes(recvcount, rt)
                     : kind == SCOREP_COLL_SCATTER ? scorep_mpi_bytes(sendcount, st)
                     : scorep_mpi_bytes(count_at(sendcounts, large, s.rank), st);
        break;
    case SCOREP_COLL_ALLREDUCE:
    case SCOREP_COLL_SCAN:
    case SCOREP_COLL_EXSCAN:
        sent = received = scorep_mpi_bytes(sendcount, st);
        break;
    case SCOREP_COLL_ALLGATHER:
        sent = send_in_place ? scorep_mpi_bytes(recvcount, rt) : scorep_mpi_bytes(sendcount, st);
        received = (uint64_t)s.peers * scorep_mpi_bytes(recvcount, rt);
        break;
    case SCOREP_COLL_ALLGATHERV:
        received = sum_bytes(recvcounts, large, s.peers, recvtype, NULL);
        sent = send_in_place ? scorep_mpi_bytes(count_at(recvcounts, large, s.rank), rt)
                             : scorep_mpi_bytes(sendcount, st);
        break;
    case SCOREP_COLL_ALLTOALL:
        received = (uint64_t)s.peers * scorep_mpi_bytes(recvcount, rt);
        sent = send_in_place ? received : (uint64_t)s.peers * scorep_mpi_bytes(sendcount, st);
        break;
    case SCOREP_COLL_ALLTOALLV:
    case SCOREP_COLL_ALLTOALLW:
        received = sum_bytes(recvcounts, large, s.peers, recvtype, recvtypes);
        sent = send_in_place ? received : sum_bytes(sendcounts, large, s.peers, sendtype, sendtypes);
        break;
    case SCOREP_COLL_REDUCE_SCATTER:
        sent = sum_bytes(recvcounts, large, s.size, sendtype, NULL);
        received = scorep_mpi_bytes(count_at(recvcounts, large, s.rank), rt);
        break;
    case SCOREP_COLL_REDUCE_SCATTER_BLOCK:
        received = scorep_mpi_bytes(recvcount, rt);
        sent = (uint64_t)s.size * received;
        break;
    default:
        break;
    }
    return (coll_bytes){sent, received, s.root};
}

void scorep_mpi_f08_collective_end(int kind, MPI_Fint comm_f, scorep_comm comm_id, int root,
                                   int send_in_place, int recv_in_place, int large,
                                   int64_t sendcount, MPI_Fint sendtype,
                                   int64_t recvcount, MPI_Fint recvtype,
                                   const void* sendcounts, const void* recvcounts,
                                   const MPI_Fint* sendtypes, const MPI_Fint* recvtypes)
{
    const coll_bytes b = collective_bytes(kind, comm_f, root, send_in_place, recv_in_place, large, sendcount,
                                          sendtype, recvcount, recvtype, sendcounts, recvcounts, sendtypes,
                                          recvtypes);
    scorep_mpi_collective_end((scorep_collective_kind)kind, comm_id, b.root, b.sent, b.received);
}

/* A persistent collective (MPI_<coll>_init): the same bytes, stored with the
 * request and recorded at each MPI_Start(all) (scorep_mpi_collective_init). */
void scorep_mpi_f08_collective_init(int kind, MPI_Fint comm_f, scorep_comm comm_id, int root,
                                    int send_in_place, int recv_in_place, int large,
                                    int64_t sendcount, MPI_Fint sendtype,
                                    int64_t recvcount, MPI_Fint recvtype,
                                    const void* sendcounts, const void* recvcounts,
                                    const MPI_Fint* sendtypes, const MPI_Fint* recvtypes, MPI_Fint request)
{
    const coll_bytes b = collective_bytes(kind, comm_f, root, send_in_place, recv_in_place, large, sendcount,
                                          sendtype, recvcount, recvtype, sendcounts, recvcounts, sendtypes,
                                          recvtypes);
    scorep_mpi_collective_init((scorep_collective_kind)kind, comm_id, b.root, b.sent, b.received,
                               scorep_mpi_f08_request(request));
}

/* Bytes of the blocks to (or from) the neighbours that are not MPI_PROC_NULL:
 * counts[i] of types[i], or of type if types is NULL. */
static uint64_t neighbor_bytes(const int* ranks, int n, const void* counts, int large, MPI_Fint type,
                               const MPI_Fint* types)
{
    uint64_t sum = 0;
    const uint64_t size = types ? 0 : scorep_mpi_bytes(1, MPI_Type_f2c(type));
    for (int i = 0; i < n; i++) {
        if (ranks[i] == MPI_PROC_NULL)
            continue;
        const MPI_Count count = count_at(counts, large, i);
        if (types)
            sum += scorep_mpi_bytes(count, MPI_Type_f2c(types[i]));
        else if (count > 0)
            sum += (uint64_t)count * size;
    }
    return sum;
}

/* The neighbourhood collectives (the C wrappers' coll_neighbor task): one
 * block per neighbour in the communicator's virtual topology. */
static coll_bytes neighbor_collective_bytes(int kind, MPI_Fint comm_f, int large,
                                            int64_t sendcount, MPI_Fint sendtype,
                                            int64_t recvcount, MPI_Fint recvtype,
                                            const void* sendcounts, const void* recvcounts,
                                            const MPI_Fint* sendtypes, const MPI_Fint* recvtypes)
{
    const scorep_mpi_neighbors n = scorep_mpi_neighbors_of(MPI_Comm_f2c(comm_f));
    uint64_t sent = 0, received = 0;
    switch ((scorep_collective_kind)kind) {
    case SCOREP_COLL_NEIGHBOR_ALLGATHER:
    case SCOREP_COLL_NEIGHBOR_ALLTOALL:
        sent = (uint64_t)n.real_out * scorep_mpi_bytes_fortran(sendcount, sendtype);
        received = (uint64_t)n.real_in * scorep_mpi_bytes_fortran(recvcount, recvtype);
        break;
    case SCOREP_COLL_NEIGHBOR_ALLGATHERV:
        sent = (uint64_t)n.real_out * scorep_mpi_bytes_fortran(sendcount, sendtype);
        received = neighbor_bytes(n.sources, n.indegree, recvcounts, large, recvtype, NULL);
        break;
    case SCOREP_COLL_NEIGHBOR_ALLTOALLV:
    case SCOREP_COLL_NEIGHBOR_ALLTOALLW:
        sent = neighbor_bytes(n.destinations, n.outdegree, sendcounts, large, sendtype, sendtypes);
        received = neighbor_bytes(n.sources, n.indegree, recvcounts, large, recvtype, recvtypes);
        break;
    default:
        break;
    }
    return (coll_bytes){sent, received, SCOREP_NO_ROOT};
}

void scorep_mpi_f08_neighbor_collective_end(int kind, MPI_Fint comm_f, scorep_comm comm_id, int large,
                                            int64_t sendcount, MPI_Fint sendtype,
                                            int64_t recvcount, MPI_Fint recvtype,
                                            const void* sendcounts, const void* recvcounts,
                                            const MPI_Fint* sendtypes, const MPI_Fint* recvtypes)
{
    const coll_bytes b = neighbor_collective_bytes(kind, comm_f, large, sendcount, sendtype, recvcount, recvtype,
                                                   sendcounts, recvcounts, sendtypes, recvtypes);
    scorep_mpi_collective_end((scorep_collective_kind)kind, comm_id, b.root, b.sent, b.received);
}

void scorep_mpi_f08_neighbor_collective_init(int kind, MPI_Fint comm_f, scorep_comm comm_id, int large,
                                             int64_t sendcount, MPI_Fint sendtype,
                                             int64_t recvcount, MPI_Fint recvtype,
                                             const void* sendcounts, const void* recvcounts,
                                             const MPI_Fint* sendtypes, const MPI_Fint* recvtypes,
                                             MPI_Fint request)
{
    const coll_bytes b = neighbor_collective_bytes(kind, comm_f, large, sendcount, sendtype, recvcount, recvtype,
                                                   sendcounts, recvcounts, sendtypes, recvtypes);
    scorep_mpi_collective_init((scorep_collective_kind)kind, comm_id, b.root, b.sent, b.received,
                               scorep_mpi_f08_request(request));
}

/* Addresses of choice buffers, to recognise MPI_IN_PLACE: a scalar or an
 * ignore-TKR buffer arrives as its address, a TS 29113 `type(*), dimension(..)`
 * buffer as a C descriptor whose first member is the base address. */
intptr_t scorep_mpi_f08_address(const void* x)
{
    return (intptr_t)x;
}

intptr_t scorep_mpi_f08_descriptor_address(const void* descriptor)
{
    return (intptr_t)*(void* const*)descriptor;
}

/* Matched messages, windows: the C adapter's bookkeeping, for MPI_VAL handles. */
void scorep_mpi_f08_message_remember(MPI_Fint message, scorep_comm comm)
{
    scorep_mpi_message_remember(MPI_Message_f2c(message), comm);
}

scorep_comm scorep_mpi_f08_message_comm(MPI_Fint message)
{
    return scorep_mpi_message_comm(MPI_Message_f2c(message));
}

scorep_window scorep_mpi_f08_win_create(MPI_Fint win, MPI_Fint comm)
{
    return scorep_mpi_win_create(MPI_Win_f2c(win), MPI_Comm_f2c(comm));
}

scorep_window scorep_mpi_f08_win_id(MPI_Fint win)
{
    return scorep_mpi_win_id(MPI_Win_f2c(win));
}

void scorep_mpi_f08_win_free(MPI_Fint win)
{
    scorep_mpi_win_free(MPI_Win_f2c(win));
}
