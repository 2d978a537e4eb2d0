/*
 * scorep-wrapgen measurement core: the public adapter API.
 *
 * Who calls this: every generated MPI wrapper (C, and through the Fortran
 * module runtime/fortran/scorep_wrapgen_core.F90 the Fortran ones), every
 * generated library wrapper, and hand-written instrumentation.
 *
 * No MPI types appear here: the core links no MPI. MPI handles reach the core
 * as integers the adapter chose (see scorep_request below); communicators,
 * groups and windows reach it as core ids returned by the *_define calls.
 * Helpers that start from real MPI handles live in the MPI layer
 * (scorep_wrapgen/mpi_layer.h, library scorep_mpi_layer).
 *
 * Threading: every function may be called from any thread at any time.
 * Event functions (enter/exit, message, collective, RMA, I/O, parameter)
 * record on the calling thread's location, which is created on the thread's
 * first event; they take no lock and allocate nothing except when a call path
 * is seen for the first time. Exceptions: the request functions share one
 * process-wide table under a lock (MPI lets one thread complete another
 * thread's request), and a string parameter value is defined as a string.
 * Definition functions (*_define) take a lock and are meant to be called once
 * per object (cache the id in a static).
 *
 * Lifetime (runtime/lifecycle/lifecycle.c, docs/MAINTAINING.md section 7): the core
 * starts on the first definition of a region, parameter, metric or window (or
 * explicitly with scorep_measurement_init); an event needs one of those ids, so
 * events before the start are not recorded. It finalises once: from the MPI
 * layer's MPI_Finalize hook, or at exit for programs without MPI, or on
 * MPI_Abort / a fatal signal (best effort, then the signal goes on to the
 * handler that was there before). Events after finalisation are ignored. A
 * child of fork() without exec records nothing and writes nothing.
 */
#ifndef SCOREP_WRAPGEN_ADAPTER_H
#define SCOREP_WRAPGEN_ADAPTER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- ids ---------------------------------------------------------------- */

/* Dense per-process ids handed out by the *_define functions. They are local
 * to the process; the core unifies them across ranks at finalisation. */
typedef uint32_t scorep_region;
typedef uint32_t scorep_comm;      /* communicator or MPI group */
typedef uint32_t scorep_window;    /* RMA window */
typedef uint32_t scorep_parameter;
typedef uint32_t scorep_metric;

/* An outstanding non-blocking operation, named by the adapter: an integer
 * that names the request while it is outstanding (for MPI:
 * scorep_mpi_request_handle() of the C MPI_Request, after MPI_Request_f2c for
 * Fortran handles; a library's own handle for library wrappers). Several
 * outstanding requests may share a handle: MPI libraries give requests that
 * are complete at creation one shared handle (MPICH's builtin "lightweight"
 * request, Open MPI's ompi_request_empty, e.g. for small sends). The core
 * keeps such requests in creation order (see "non-blocking requests"). */
typedef uint64_t scorep_request;

#define SCOREP_INVALID_ID UINT32_MAX

/* Predefined communicators; they exist from initialisation on.
 * SCOREP_COMM_WORLD has the identity rank map; SCOREP_COMM_SELF holds only
 * this process. */
#define SCOREP_COMM_WORLD ((scorep_comm)0)
#define SCOREP_COMM_SELF  ((scorep_comm)1)

/* Root argument of collectives without a root (allreduce, barrier, ...). */
#define SCOREP_NO_ROOT (-1)

/* ---- region definitions -------------------------------------------------- */

typedef enum scorep_paradigm {
    SCOREP_PARADIGM_USER = 0,        /* manual instrumentation */
    SCOREP_PARADIGM_MPI,
    SCOREP_PARADIGM_LIBWRAP,         /* library wrappers */
    SCOREP_PARADIGM_MEASUREMENT,     /* the core's own regions (trace buffer flush) */
    SCOREP_PARADIGM_CAF,             /* Coarray Fortran (the CAF adapter, runtime/caf_adapter/) */
    SCOREP_PARADIGM_COMPILER,        /* compiler instrumentation of user functions (runtime/adapter_api/compiler.c) */
    SCOREP_PARADIGM_IO,              /* POSIX I/O calls (the I/O adapter, runtime/io_adapter/) */
    SCOREP_PARADIGM_PTHREAD,         /* POSIX threads (the thread adapter, runtime/thread_adapter/) */
    SCOREP_PARADIGM_MEMORY,          /* heap allocations (the memory adapter, runtime/memory_adapter/) */
    SCOREP_PARADIGM_OPENMP,          /* OpenMP constructs (the OpenMP adapter, runtime/omp_adapter/) */
    SCOREP_PARADIGM_SHMEM,           /* OpenSHMEM (the SHMEM adapter, runtime/shmem_adapter/) */
    SCOREP_PARADIGM_SAMPLING,        /* functions seen by sampling and unwinding (core/sampling.c) */
    SCOREP_PARADIGM_COUNT_
} scorep_paradigm;

typedef enum scorep_region_role {
    SCOREP_ROLE_FUNCTION = 0,
    SCOREP_ROLE_WRAPPER,
    SCOREP_ROLE_POINT2POINT,
    SCOREP_ROLE_COLLECTIVE,
    SCOREP_ROLE_BARRIER,
    SCOREP_ROLE_ONE2ALL,
    SCOREP_ROLE_ALL2ONE,
    SCOREP_ROLE_ALL2ALL,
    SCOREP_ROLE_FILE_IO,              /* I/O moving a file's data: read, write, sync */
    SCOREP_ROLE_RMA,                  /* one-sided communication (put, get) */
    SCOREP_ROLE_ARTIFICIAL,           /* measurement-internal regions */
    SCOREP_ROLE_ALLOCATE,             /* memory: malloc, calloc, operator new, ... */
    SCOREP_ROLE_DEALLOCATE,           /* memory: free, operator delete */
    SCOREP_ROLE_REALLOCATE,           /* memory: realloc */
    SCOREP_ROLE_FILE_IO_METADATA,     /* I/O on a file's metadata: open, close, seek, dup, delete */
    SCOREP_ROLE_ATOMIC,               /* one-sided atomic operations (MPI_Accumulate, ...) */
    /* OpenMP constructs, as OTF2 and Cube name them (Scalasca's analysis
     * finds OpenMP wait states by them) */
    SCOREP_ROLE_PARALLEL,
    SCOREP_ROLE_LOOP,
    SCOREP_ROLE_IMPLICIT_BARRIER,
    SCOREP_ROLE_SINGLE,
    SCOREP_ROLE_SINGLE_SBLOCK,
    SCOREP_ROLE_CRITICAL,
    SCOREP_ROLE_CRITICAL_SBLOCK,
    SCOREP_ROLE_SECTIONS,
    SCOREP_ROLE_SECTION,
    SCOREP_ROLE_ORDERED,
    SCOREP_ROLE_ORDERED_SBLOCK,
    SCOREP_ROLE_TASK,
    SCOREP_ROLE_TASK_CREATE,
    SCOREP_ROLE_TASK_WAIT,
    SCOREP_ROLE_MASTER,
    SCOREP_ROLE_WORKSHARE,
    SCOREP_ROLE_COUNT_
} scorep_region_role;

/* Defines (or finds) a region. name must not be NULL; file and group may be
 * NULL or "" (both mean none). Two calls with the same (name, file, paradigm,
 * role, group) return the same id. The filter (SCOREP_FILTERING_FILE) is applied here: a filtered
 * region gets an id as usual but enter/exit on it record nothing. */
scorep_region scorep_region_define(const char* name, const char* file,
                                   scorep_paradigm paradigm, scorep_region_role role,
                                   const char* group);

/* The same with the source line where the region begins (a function's
 * definition, a user region's BEGIN macro); line <= 0 means unknown, and
 * scorep_region_define is this call with line 0. The line is part of the
 * region's identity, as in Score-P: the same name and file at another line
 * is another region (two user regions both named "loop" in one file stay
 * apart), and the same (name, file, line, paradigm, role, group) is the
 * same region on every thread and, after unification, on every rank. The
 * line reaches profile.json ("line"), profile.txt and the OTF2 region
 * definitions (begin line number); it costs nothing on the event path. */
scorep_region scorep_region_define_at(const char* name, const char* file, int line,
                                      scorep_paradigm paradigm, scorep_region_role role,
                                      const char* group);

/* 1 if the filter excludes the region (wrappers may skip their enter hook). */
int scorep_region_is_filtered(scorep_region region);

/* ---- code addresses (util/code_names.c) ---------------------------------
 * What the program's symbols and debug information say of an address in its
 * code (libdw where it is installed, else the dynamic symbol table). Each
 * takes a lock: not for signal handlers or the event path. */

/* the symbol that holds address (not demangled), its start, and its end (0:
 * not known); 0 if none */
int scorep_code_symbol(uintptr_t address, char* name, size_t size, uintptr_t* start, uintptr_t* end);
/* the file (as the debug information has it) and line of address; 0 if not known */
int scorep_code_source_line(uintptr_t address, char* file, size_t size, int* line);
/* a C++ symbol as its source names it (the C++ runtime's demangler, where
 * the program has one); *free_this is what to free after */
const char* scorep_code_demangled(const char* symbol, char** free_this);

/* ---- enter / exit ------------------------------------------------------- */

void scorep_enter(scorep_region region);
void scorep_exit(scorep_region region);

/* ---- threads (the thread adapter, runtime/thread_adapter/) ---------------- */

/* The calling thread's location (its number within the process, as
 * profile.json's "thread"), or SCOREP_INVALID_ID if it has recorded nothing
 * yet. Creates nothing. */
uint32_t scorep_thread_location_id(void);
/* Records that the calling thread was created by the thread whose location
 * is creator (scorep_thread_location_id on the creating thread); call it
 * after the thread's first event. profile.json gives it as the location's
 * "creator". */
void scorep_thread_set_creator(uint32_t creator);
/* The region of a created thread's start routine, entered now, after the
 * thread's ThreadBegin and its creator: recorded with the thread's next
 * event, at this time, unless that event enters the routine's own
 * instrumented region (the thread's tree then begins there, as in
 * Score-P). The exit leaves it if it was entered; call it before the
 * thread's ThreadEnd. */
void scorep_enter_thread_start(scorep_region region);
void scorep_exit_thread_start(scorep_region region);
/* OTF2's create/wait threading model (the trace's ThreadCreate, ThreadBegin,
 * ThreadEnd, ThreadWait): a thread created (on the creating thread, inside
 * its pthread_create), begun (the new thread's first event) and ended (its
 * last), and waited for (on the joining thread, inside its pthread_join),
 * the four matched by sequence, a number unique in the process per created
 * thread (the thread adapter's). The trace's thread contingent is one per
 * process (runtime/trace/trace_threads.c). */
typedef enum scorep_thread_event_kind {
    SCOREP_THREAD_CREATE,
    SCOREP_THREAD_BEGIN,
    SCOREP_THREAD_END,
    SCOREP_THREAD_WAIT,
    /* a mutex taken and given back (the trace's ThreadAcquireLock and
     * ThreadReleaseLock): sequence is scorep_thread_lock_word(lock, order),
     * the lock's number in the process and how many times it was taken
     * (a release names the acquisition it ends) */
    SCOREP_THREAD_ACQUIRE_LOCK,
    SCOREP_THREAD_RELEASE_LOCK,
    /* the same of an OpenMP lock (omp_set_lock, critical sections, ordered
     * blocks: the OpenMP adapter numbers them) */
    SCOREP_THREAD_OMP_ACQUIRE_LOCK,
    SCOREP_THREAD_OMP_RELEASE_LOCK,
    /* OTF2's fork/join model (OpenMP): sequence is the number of threads
     * asked for (fork) or 0 (join); team begin and end are
     * scorep_thread_team_begin / _end */
    SCOREP_THREAD_FORK,
    SCOREP_THREAD_JOIN,
    /* what scorep_thread_team_begin and _end record in a trace (not for
     * adapters' calls of scorep_thread_event) */
    SCOREP_THREAD_TEAM_BEGIN,
    SCOREP_THREAD_TEAM_END,
    /* an OpenMP task created, run from its start or resumed (switch), and
     * done (complete): scorep_thread_task_event */
    SCOREP_THREAD_TASK_CREATE,
    SCOREP_THREAD_TASK_SWITCH,
    SCOREP_THREAD_TASK_COMPLETE
} scorep_thread_event_kind;
void scorep_thread_event(scorep_thread_event_kind kind, uint64_t sequence);
static inline uint64_t scorep_thread_lock_word(uint32_t lock, uint32_t order)
{
    return (uint64_t)lock | (uint64_t)order << 32;
}
/* The lock at address lock taken (kind SCOREP_THREAD_ACQUIRE_LOCK or
 * SCOREP_THREAD_OMP_ACQUIRE_LOCK; call it once the caller holds the lock)
 * or about to be given up (..._RELEASE_LOCK; call it while the caller
 * still holds it): the event with the lock's number in the process and its
 * acquisition, the core's count (runtime/core/locks.c). */
void scorep_lock_event(scorep_thread_event_kind kind, const void* lock);

/* ---- fork/join teams (the OpenMP adapter, runtime/omp_adapter/) ---------- */

/* A team of threads forked by one thread (OpenMP's parallel region). The
 * forking thread fills it with scorep_thread_fork before the team starts
 * and keeps it until scorep_thread_join: every member reads it at its
 * scorep_thread_team_begin. Its fields are the core's. */
typedef struct scorep_thread_team {
    struct scorep_location* forker; /* the forking thread's location (NULL: nothing recorded) */
    /* its call path at the fork, as a substrate keeps it (the profile's
     * node, which a team member's own call path continues; NULL without) */
    const void* forker_path;
    uint32_t requested;             /* threads asked for */
    uint32_t size;                  /* the team's, as every member's team begin says */
    uint32_t level;                 /* among the forker's teams (nested ones it forks inside its own) */
} scorep_thread_team;
/* On the forking thread, before the team starts: records ThreadFork with
 * the number of threads asked for (0: the runtime decides). */
void scorep_thread_fork(scorep_thread_team* team, uint32_t requested);
/* On each member (the forking thread is member 0) as it starts its part
 * of the team's work: member is its number in the team, size the team's.
 * A member other than 0 continues the forking thread's call path: its
 * profile nests what it records under the forker's open regions (with no
 * visits of its own there), as Score-P shows an OpenMP thread's work. Its
 * location is named after its number in its first team ("OMP thread N").
 * Records ThreadTeamBegin. */
void scorep_thread_team_begin(scorep_thread_team* team, uint32_t member, uint32_t size);
/* On each member when its part is done (every region it entered since
 * its team begin left): records ThreadTeamEnd. */
void scorep_thread_team_end(scorep_thread_team* team);
/* On each member when its part is done but the runtime's end of the
 * team is still ahead (it waits in the team's barrier): the regions it
 * entered since its team begin stay open, and the forking thread's
 * scorep_thread_join leaves them and records the member's ThreadTeamEnd,
 * at the join's time, when the runtime has ended the team (each member
 * has left the barrier by then: the wait is measured without a barrier
 * of the measurement's own). */
void scorep_thread_team_leave(scorep_thread_team* team);
/* A member that left its part (scorep_thread_team_leave) works for the
 * team again before the team's end (the runtime runs one of the team's
 * tasks on it while it waits in the team's barrier): its events go to
 * the member's location, inside the part's open regions, until its next
 * scorep_thread_team_leave. Returns 0 where nothing was resumed (the
 * thread is in its part, or the team was not recorded). */
int scorep_thread_team_resume(scorep_thread_team* team, uint32_t member);
/* On the forking thread after the team ended: the team parts left open
 * end (scorep_thread_team_leave), then ThreadJoin. */
void scorep_thread_join(scorep_thread_team* team);

/* A task of the calling thread's team (NULL: none recorded): created
 * (kind SCOREP_THREAD_TASK_CREATE, on the creating thread), switched to
 * (SCOREP_THREAD_TASK_SWITCH, on the thread that runs it from now on) or
 * done (SCOREP_THREAD_TASK_COMPLETE, on the thread that ran it). A task is
 * named by its creating thread's number in the team and the number of
 * tasks that thread had created, from 1 (the trace's ThreadTaskCreate,
 * ThreadTaskSwitch and ThreadTaskComplete, as Score-P numbers them); a
 * thread's implicit task, which it runs outside every explicit one, is
 * (SCOREP_IMPLICIT_TASK, 0): the core puts in the location's number. */
#define SCOREP_IMPLICIT_TASK UINT32_MAX
void scorep_thread_task_event(scorep_thread_event_kind kind, const scorep_thread_team* team, uint32_t creator,
                              uint32_t generation);

/* Attributes of the next enter or exit of the calling thread (the trace's
 * OTF2 attribute list of that Enter or Leave record, as Score-P's memory
 * recording writes them); call right before it. Only the trace records them. */
typedef enum scorep_attribute_kind {
    SCOREP_ATTRIBUTE_ALLOCATION_SIZE,     /* bytes an allocating call asks for (enter) */
    SCOREP_ATTRIBUTE_DEALLOCATION_SIZE,   /* bytes a freeing call gave back (exit) */
    SCOREP_ATTRIBUTE_ARGUMENT_ADDRESS,    /* the block free or realloc is given (enter) */
    SCOREP_ATTRIBUTE_RESULT_ADDRESS,      /* the block an allocating call returns (exit) */
    SCOREP_ATTRIBUTE_COUNT_
} scorep_attribute_kind;
void scorep_attribute(scorep_attribute_kind kind, uint64_t value);

/* ---- per-thread event generation flag ------------------------------------- */

/* A wrapper checks the flag, turns it off while it is inside the measured call
 * (so calls made by the library itself, e.g. MPI calling MPI, record nothing)
 * and turns it back on afterwards. The flag is one thread-local int so that
 * the check costs one predictable branch. It does not affect the event
 * functions themselves: a wrapper calls scorep_enter after turning it off. */
extern __thread int scorep_thread_event_generation_off __attribute__((tls_model("initial-exec")));

/* The flag's value inside an MPI-IO call (MPI_File_*, the MPI adapter's
 * group IO): off for everything but the I/O adapters' wrappers, which record
 * the POSIX / ISO C calls the MPI library makes for the file, nested under
 * the MPI call (libwrap.h: SCOREP_LIBWRAP_GATE_MASK). Off (1) means off for
 * all; on is 0. */
#define SCOREP_EVENT_GENERATION_OFF_BUT_IO 2
/* The flag's value inside every other measured MPI call: off for everything
 * but the I/O adapters' POSIX aio wrappers (aio_error, aio_return, ...:
 * tasks/io_aio.c.j2), since an MPI library completes its non-blocking file
 * I/O (MPI_File_iwrite's aio) in whichever call progresses it, MPI_Wait,
 * MPI_Test or another. */
#define SCOREP_EVENT_GENERATION_OFF_BUT_AIO 4

static inline int scorep_event_generation_is_on(void)
{
    return __builtin_expect(scorep_thread_event_generation_off == 0, 1);
}
static inline void scorep_event_generation_off(void) { scorep_thread_event_generation_off = 1; }
static inline void scorep_event_generation_on(void) { scorep_thread_event_generation_off = 0; }

/* The same as real functions, for callers that cannot use the inline ones
 * (the Fortran interface module). */
int scorep_event_generation_is_on_fn(void);
void scorep_event_generation_off_fn(void);
void scorep_event_generation_on_fn(void);

/* ---- communicators and groups -------------------------------------------- */

/* Defines a communicator (is_group = 0) or an MPI group (is_group = 1).
 *   stable_key: the same value on every member process for the same
 *     communicator and different for different ones (the MPI layer uses
 *     world rank of member 0 << 32 | a creation counter of that rank). For
 *     groups pass 0: groups are local objects and are unified by their
 *     member list.
 *   size, local_to_world: world rank of every member, indexed by rank in the
 *     communicator; copied.
 *   name: may be NULL.
 * Returns the process-local id used by all events. */
scorep_comm scorep_comm_define(uint64_t stable_key, int is_group, uint32_t size,
                               const int* local_to_world, const char* name);

/* Defines an intercommunicator: stable_key as above (the same on the
 * processes of both groups), local_to_world the world ranks of the caller's
 * group (local_size, indexed by rank in it), remote_to_world those of the
 * remote group, which the peer ranks of its messages and collective roots
 * name (MPI semantics); both copied. It is recorded as one communicator of
 * both groups for both sides (see scorep_comm_def). */
scorep_comm scorep_comm_define_inter(uint64_t stable_key, uint32_t local_size, const int* local_to_world,
                                     uint32_t remote_size, const int* remote_to_world, const char* name);

/* The communicator was freed; its id stays valid in recorded data. */
void scorep_comm_free(scorep_comm comm);

/* World rank of `rank_in_comm` (on an intercommunicator: of the remote
 * group), or -1 if out of range. O(1). */
int scorep_comm_world_rank(scorep_comm comm, int rank_in_comm);

/* ---- point-to-point ------------------------------------------------------- */

/* peer is the rank in `comm` (the trace's definitions map it to a world
 * rank); bytes is the message size in bytes. A wrapper calls these between
 * scorep_enter and scorep_exit of the MPI region; for MPI_PROC_NULL it calls
 * nothing. A send takes the time of the call's enter. A receive (and a
 * request completion, below) marks the end of the call's work: when it reads
 * the clock (a trace is recorded), the scorep_exit that follows it takes the
 * same time, so a wrapper calls it right before scorep_exit. */
void scorep_mpi_send(scorep_comm comm, int peer, int tag, uint64_t bytes);
void scorep_mpi_recv(scorep_comm comm, int peer, int tag, uint64_t bytes);

/* ---- non-blocking requests ------------------------------------------------ */

/* The core keeps a table of active requests, so a completion call needs only
 * the request handle. Requests that share a handle are queued in creation
 * order: a completion, test or free of the handle applies to the oldest
 * (for requests complete at creation the order cannot matter). A handle
 * holds at most 65536 outstanding requests; beyond that the oldest is dropped
 * without a completion (noted once with SCOREP_VERBOSE). */
void scorep_mpi_isend(scorep_comm comm, int peer, int tag, uint64_t bytes,
                      scorep_request request);
void scorep_mpi_irecv_request(scorep_comm comm, scorep_request request);

/* Which call created a receive request. The envelope of a completed receive
 * comes from MPI's status; for some calls an MPI library may leave that
 * status unset (MPICH 4.0.2's MPI_Isendrecv), which the MPI layer finds out
 * with a self-check per origin (see scorep_register_status_check). *_NO_SEND:
 * the call's destination was MPI_PROC_NULL, so it only receives (a library
 * may run it as a plain receive). */
typedef enum scorep_recv_origin {
    SCOREP_RECV_IRECV = 0,                     /* MPI_Irecv; anything without a self-check */
    SCOREP_RECV_ISENDRECV = 1,                 /* MPI_Isendrecv */
    SCOREP_RECV_ISENDRECV_NO_SEND = 2,
    SCOREP_RECV_ISENDRECV_REPLACE = 3,         /* MPI_Isendrecv_replace */
    SCOREP_RECV_ISENDRECV_REPLACE_NO_SEND = 4,
    SCOREP_RECV_ORIGIN_COUNT_
} scorep_recv_origin;

/* A receive request with the envelope it was posted with: source (rank in
 * comm) and tag, any negative value for MPI_ANY_SOURCE / MPI_ANY_TAG, and
 * capacity, the bytes the receive buffer holds (count x type size). Origins
 * MPI_Isendrecv and MPI_Isendrecv_replace (not *_NO_SEND) call this right
 * after scorep_mpi_isend for the same request: the request then completes
 * both, the send and the receive.
 * At completion the status decides unless it cannot be right: the status's
 * source, tag and bytes are recorded if the origin's self-check did not find
 * the library's statuses wrong, the status names the posted source and tag
 * (where they were not wildcards) and its bytes fit the capacity. Otherwise
 * the posted envelope is recorded: the posted source and tag (-1, unknown,
 * for a wildcard) and the capacity as bytes. */
void scorep_mpi_irecv_request_posted(scorep_comm comm, int source, int tag, uint64_t capacity,
                                     scorep_recv_origin origin, scorep_request request);

/* Whether the library sets the status of receive requests of an origin:
 * returns 1 (it does), 0 (it does not: the status is empty or stale), -1
 * (could not tell). Registered by the MPI adapter; the core calls it at most
 * once per origin, at the first request of that origin, from the thread that
 * created the request, with no lock of the request table held. Without a
 * registered check an origin's statuses are trusted. */
typedef int (*scorep_status_check)(scorep_recv_origin origin);
void scorep_register_status_check(scorep_recv_origin origin, scorep_status_check check);

/* Persistent requests (MPI_Send_init / MPI_Recv_init ...): registered
 * inactive; scorep_mpi_request_start activates them (records an isend or an
 * irecv request). They stay in the table until scorep_mpi_request_free. A
 * persistent request is its handle's only entry: registering one drops
 * older requests of the handle, and a new request with the handle of a
 * persistent one drops that (the handle was freed without the core seeing
 * it). */
void scorep_mpi_send_init(scorep_comm comm, int peer, int tag, uint64_t bytes,
                          scorep_request request);
void scorep_mpi_recv_init(scorep_comm comm, scorep_request request);
void scorep_mpi_request_start(scorep_request request);

/* A request completed (MPI_Wait/Test*): for a send records the completion,
 * for a receive records the receive with the envelope from the status
 * (source as rank in the request's communicator, tag, bytes received; for a
 * request from scorep_mpi_irecv_request_posted by the rule given there). If
 * cancelled is non-zero a cancellation is recorded instead. Unknown handles
 * (requests not created through the adapter) are ignored. */
void scorep_mpi_request_complete(scorep_request request, int source, int tag,
                                 uint64_t bytes, int cancelled);

/* Same, with the status object passed as pointer + language; the MPI layer
 * registers one decoder per language (see scorep_status_decoder). */
typedef enum scorep_language {
    SCOREP_LANGUAGE_C = 0,
    SCOREP_LANGUAGE_FORTRAN = 1,     /* mpif.h / use mpi: INTEGER status(MPI_STATUS_SIZE) */
    SCOREP_LANGUAGE_FORTRAN2008 = 2, /* use mpi_f08: type(MPI_Status) */
    SCOREP_LANGUAGE_COUNT_
} scorep_language;
void scorep_mpi_request_complete_status(scorep_request request, const void* status,
                                        scorep_language language);

/* A test (MPI_Test*, MPI_Request_get_status) found the request not complete. */
void scorep_mpi_request_test(scorep_request request);
/* A cancellation was requested (MPI_Cancel); completion follows later. */
void scorep_mpi_request_cancel(scorep_request request);
/* MPI_Request_free: drops the table entry (persistent or not; of requests
 * sharing the handle, the oldest). */
void scorep_mpi_request_free(scorep_request request);

/* Status decoding: what the core needs from a status object. */
typedef struct scorep_status_fields {
    int source;      /* rank in the communicator */
    int tag;
    int error;
    int cancelled;
    uint64_t bytes;  /* count in bytes (MPI_Get_count with MPI_BYTE) */
} scorep_status_fields;
typedef int (*scorep_status_decoder)(const void* status, scorep_status_fields* out);
/* Registered by the MPI layer (C and Fortran) and by the Fortran 2008
 * interface; returns 0 on success. */
void scorep_register_status_decoder(scorep_language language, scorep_status_decoder decoder);
int scorep_decode_status(const void* status, scorep_language language,
                         scorep_status_fields* out);

/* ---- collectives ----------------------------------------------------------- */

typedef enum scorep_collective_kind {
    SCOREP_COLL_BARRIER = 0,
    SCOREP_COLL_BCAST,
    SCOREP_COLL_GATHER,
    SCOREP_COLL_GATHERV,
    SCOREP_COLL_SCATTER,
    SCOREP_COLL_SCATTERV,
    SCOREP_COLL_ALLGATHER,
    SCOREP_COLL_ALLGATHERV,
    SCOREP_COLL_ALLTOALL,
    SCOREP_COLL_ALLTOALLV,
    SCOREP_COLL_ALLTOALLW,
    SCOREP_COLL_ALLREDUCE,
    SCOREP_COLL_REDUCE,
    SCOREP_COLL_REDUCE_SCATTER,
    SCOREP_COLL_SCAN,
    SCOREP_COLL_EXSCAN,
    SCOREP_COLL_REDUCE_SCATTER_BLOCK,
    SCOREP_COLL_CREATE_HANDLE,          /* communicator / window creation */
    SCOREP_COLL_DESTROY_HANDLE,
    SCOREP_COLL_ALLOCATE,
    SCOREP_COLL_DEALLOCATE,
    SCOREP_COLL_CREATE_HANDLE_AND_ALLOCATE,
    SCOREP_COLL_DESTROY_HANDLE_AND_DEALLOCATE,
    SCOREP_COLL_OTF2_END_,              /* the kinds above are OTF2's collective ops */
    /* Neighbourhood collectives (MPI_(I)neighbor_*): OTF2 has no collective op
     * for them. Numbered apart from OTF2's range, so that OTF2 ops added later
     * can get kinds of their own without renumbering these. */
    SCOREP_COLL_NEIGHBOR_ALLGATHER = 64,
    SCOREP_COLL_NEIGHBOR_ALLGATHERV,
    SCOREP_COLL_NEIGHBOR_ALLTOALL,
    SCOREP_COLL_NEIGHBOR_ALLTOALLV,
    SCOREP_COLL_NEIGHBOR_ALLTOALLW,
    SCOREP_COLL_NEIGHBOR_END_
} scorep_collective_kind;

/* begin right after scorep_enter, end right before scorep_exit of the MPI
 * collective region (the exit takes the end's time: a trace reads the clock
 * once for both). root is the rank in comm or SCOREP_NO_ROOT. Bytes are
 * what this process sent and received in total. Non-blocking collectives
 * record begin/end around the MPI_I<coll> call.
 * A neighbourhood kind (SCOREP_COLL_NEIGHBOR_*) is recorded with the end
 * alone, without a begin: the profile counts it (bytes, collectives), the
 * trace writes no collective records for it, only the region's enter and
 * leave (a begin would be left without its end). */
void scorep_mpi_collective_begin(void);
void scorep_mpi_collective_end(scorep_collective_kind kind, scorep_comm comm, int root,
                               uint64_t bytes_sent, uint64_t bytes_received);

/* The life cycle of communicators, as Score-P records it: a call that
 * creates or frees one (MPI_Init and MPI_Finalize: MPI_COMM_WORLD and
 * MPI_COMM_SELF) is a collective operation over `over` (OTF2's
 * CREATE_HANDLE or DESTROY_HANDLE, no root, no bytes) whose end comes with
 * the trace's CommCreate or CommDestroy of `comm` (SCOREP_INVALID_ID: none,
 * e.g. MPI_Comm_split with MPI_UNDEFINED). Begin right after the call's
 * enter, end right before its exit. Only the trace records them, and the
 * collective pair only with SCOREP_TRACING_HANDLE_COLLECTIVES=true
 * (docs/MPI_ADAPTER.md); the profile counts no collective for them. */
void scorep_mpi_handle_begin(void);
void scorep_mpi_handle_end(scorep_collective_kind kind, scorep_comm over, scorep_comm comm);
/* MPI_Init's and MPI_Finalize's end: both predefined communicators */
void scorep_mpi_handle_end_predefined(scorep_collective_kind kind);

/* A persistent collective (MPI_<coll>_init): registered inactive with the
 * kind, root and bytes of one run, like the persistent point-to-point
 * requests above (its handle's only entry, until scorep_mpi_request_free).
 * Each scorep_mpi_request_start of it records the collective, begin and end
 * (the end alone for a neighbourhood kind), in the region of the start call;
 * its completion records nothing and it is never a point-to-point request
 * (no isend/irecv/test events). */
void scorep_mpi_collective_init(scorep_collective_kind kind, scorep_comm comm, int root,
                                uint64_t bytes_sent, uint64_t bytes_received,
                                scorep_request request);

/* ---- RMA ------------------------------------------------------------------- */

/* stable_key as for communicators (same on all processes of the window). */
scorep_window scorep_rma_window_define(uint64_t stable_key, scorep_comm comm, const char* name);
void scorep_rma_window_create(scorep_window window);   /* event: window came to life */
void scorep_rma_window_free(scorep_window window);

/* target is the rank in the window's communicator; matching_id pairs the
 * operation with its completion (the adapter counts). */
void scorep_rma_put(scorep_window window, int target, uint64_t bytes, uint64_t matching_id);
void scorep_rma_get(scorep_window window, int target, uint64_t bytes, uint64_t matching_id);

typedef enum scorep_rma_atomic_kind {
    SCOREP_RMA_ATOMIC_ACCUMULATE = 0,
    SCOREP_RMA_ATOMIC_INCREMENT,
    SCOREP_RMA_ATOMIC_TEST_AND_SET,
    SCOREP_RMA_ATOMIC_COMPARE_AND_SWAP,
    SCOREP_RMA_ATOMIC_SWAP,
    SCOREP_RMA_ATOMIC_FETCH_AND_ADD,
    SCOREP_RMA_ATOMIC_FETCH_AND_INCREMENT,
    SCOREP_RMA_ATOMIC_ADD,
    SCOREP_RMA_ATOMIC_FETCH_AND_ACCUMULATE
} scorep_rma_atomic_kind;
void scorep_rma_atomic(scorep_window window, int target, scorep_rma_atomic_kind kind,
                       uint64_t bytes_sent, uint64_t bytes_received, uint64_t matching_id);
/* blocking != 0: completed inside the calling MPI function (e.g. flush). */
void scorep_rma_op_complete(scorep_window window, uint64_t matching_id, int blocking);

/* For a call that is one one-sided operation (the CAF adapter's put, get,
 * atomic): _at_call_start right after the call's scorep_enter, with nothing
 * recorded in between, stamped with the enter's time (no clock read; the
 * trace writes no timestamp of its own). With parameter != SCOREP_INVALID_ID
 * the event is preceded by the parameter parameter=value (as
 * scorep_parameter_int, at the same time: the profile's bytes per target),
 * for the substrates whose one-sided events do not carry the target: the
 * trace writes no ParameterInt for it (its RmaPut/RmaGet/RmaAtomic record
 * has the target rank).
 * _at_call_end right before the call's scorep_exit, which takes its time. */
void scorep_rma_put_at_call_start(scorep_window window, int target, uint64_t bytes, uint64_t matching_id,
                                  scorep_parameter parameter, int64_t value);
void scorep_rma_get_at_call_start(scorep_window window, int target, uint64_t bytes, uint64_t matching_id,
                                  scorep_parameter parameter, int64_t value);
void scorep_rma_atomic_at_call_start(scorep_window window, int target, scorep_rma_atomic_kind kind,
                                     uint64_t bytes_sent, uint64_t bytes_received, uint64_t matching_id,
                                     scorep_parameter parameter, int64_t value);
void scorep_rma_op_complete_at_call_end(scorep_window window, uint64_t matching_id, int blocking);

typedef enum scorep_rma_sync_level {
    SCOREP_RMA_SYNC_LEVEL_NONE = 0,
    SCOREP_RMA_SYNC_LEVEL_PROCESS = 1,
    SCOREP_RMA_SYNC_LEVEL_MEMORY = 2,
    SCOREP_RMA_SYNC_LEVEL_PROCESS_AND_MEMORY = 3
} scorep_rma_sync_level;
/* Collective synchronisation on the window (MPI_Win_fence, create/free). */
void scorep_rma_collective_begin(void);
void scorep_rma_collective_end(scorep_collective_kind kind, scorep_rma_sync_level level,
                               scorep_window window, int root,
                               uint64_t bytes_sent, uint64_t bytes_received);
/* General active-target sync with a group (MPI_Win_post/start/complete/wait). */
void scorep_rma_group_sync(scorep_rma_sync_level level, scorep_window window, scorep_comm group);
/* Passive target: MPI_Win_lock (exclusive != 0 for MPI_LOCK_EXCLUSIVE) / unlock.
 * target -1 means all processes (MPI_Win_lock_all). */
void scorep_rma_lock(scorep_window window, int target, int exclusive);
void scorep_rma_unlock(scorep_window window, int target);
/* MPI_Win_sync / flush on one target (-1: all). */
void scorep_rma_sync(scorep_window window, int target);

/* ---- MPI I/O --------------------------------------------------------------- */

/* Bytes moved by the enclosing I/O call (MPI_File_read/write...). */
void scorep_io_bytes(uint64_t bytes_read, uint64_t bytes_written);

/* ---- I/O handles (the I/O adapters: runtime/io_adapter/) --------------------- */

/* An I/O handle: a file of an I/O paradigm, as the trace's IoHandle
 * definitions name it (docs/IO_ADAPTER.md). */
typedef uint32_t scorep_io_handle;
typedef enum scorep_io_paradigm {
    SCOREP_IO_PARADIGM_POSIX,
    SCOREP_IO_PARADIGM_ISOC,
    SCOREP_IO_PARADIGM_COUNT_
} scorep_io_paradigm;
typedef enum scorep_io_access { SCOREP_IO_READ_ONLY, SCOREP_IO_WRITE_ONLY, SCOREP_IO_READ_WRITE } scorep_io_access;
typedef enum scorep_io_operation { SCOREP_IO_OP_READ, SCOREP_IO_OP_WRITE } scorep_io_operation;
/* How a file was opened beyond its access mode (open's O_CREAT, O_APPEND,
 * ..., fopen's "w", "a", "x", "e"): the trace's IoCreateHandle creation flags
 * (low half) and status flags (high half), OR'ed. */
typedef enum scorep_io_open_flag {
    SCOREP_IO_CREATE = 1u << 0,
    SCOREP_IO_TRUNCATE = 1u << 1,
    SCOREP_IO_EXCLUSIVE = 1u << 2,
    SCOREP_IO_DIRECTORY = 1u << 3,
    SCOREP_IO_NO_FOLLOW = 1u << 4,
    SCOREP_IO_NO_CONTROLLING_TERMINAL = 1u << 5,
    SCOREP_IO_TEMPORARY_FILE = 1u << 6,
    SCOREP_IO_PATH = 1u << 7,
    SCOREP_IO_APPEND = 1u << 16,
    SCOREP_IO_CLOSE_ON_EXEC = 1u << 17,
    SCOREP_IO_NON_BLOCKING = 1u << 18,
    SCOREP_IO_SYNC = 1u << 19,
    SCOREP_IO_DATA_SYNC = 1u << 20,
    SCOREP_IO_AVOID_CACHING = 1u << 21,
    SCOREP_IO_NO_ACCESS_TIME = 1u << 22,
    SCOREP_IO_ASYNC = 1u << 23
} scorep_io_open_flag;

/* The handle of file `name` (NULL: "<unknown>") in paradigm: same paradigm
 * and name, same handle (unified across ranks likewise). Takes a lock and
 * may allocate: call it where a file is opened, not per transfer. */
scorep_io_handle scorep_io_handle_define(scorep_io_paradigm paradigm, const char* name);
/* The handle of a descriptor the process had before any open it made
 * (stdin, stdout, stderr: name "stdin", ...), usable from the start with
 * access mode: no IoCreateHandle (OTF2's pre-created handles). */
scorep_io_handle scorep_io_handle_define_pre_created(scorep_io_paradigm paradigm, const char* name,
                                                     scorep_io_access mode);
/* The handle of a duplicate of handle `of` made as descriptor fd (dup,
 * dup2, dup3, fcntl F_DUPFD): the same file and paradigm, another handle
 * (one per file and descriptor number). Takes a lock, as scorep_io_handle_define. */
scorep_io_handle scorep_io_handle_define_duplicate(scorep_io_handle of, int fd);
/* The handle of the file handle `of` names, in paradigm (fdopen's stream
 * on a descriptor that has a handle: the same file under the same name). */
scorep_io_handle scorep_io_handle_define_same_file(scorep_io_paradigm paradigm, scorep_io_handle of);
/* The handle of the descriptor under an ISO C stream that an open of the
 * stream made (fopen's; POSIX paradigm): another handle than the file's
 * POSIX one, whose parent in the trace is the stream's (the ISO C handle of
 * the same name), as Score-P records a stream's descriptor. */
scorep_io_handle scorep_io_handle_define_under_stream(const char* name);
/* The handle each descriptor has now, per paradigm (handle + 1; 0: none):
 * the process's, shared by the I/O adapters, so that a POSIX call on a
 * stream's descriptor (read(fileno(f))) finds the handle its fopen made.
 * Descriptors at or beyond SCOREP_IO_MAX_FD have none. stdin, stdout and
 * stderr get pre-created handles at their first transfer unless the
 * program closed or redirected them first (scorep_io_std_closed). */
#define SCOREP_IO_MAX_FD 65536
extern uint32_t scorep_io_fd_handles[SCOREP_IO_PARADIGM_COUNT_][SCOREP_IO_MAX_FD];
extern int scorep_io_std_closed[SCOREP_IO_PARADIGM_COUNT_][3];
/* The handle became usable (open succeeded, with scorep_io_open_flag bits
 * open_flags) / unusable (close succeeded). */
void scorep_io_create_handle(scorep_io_handle handle, scorep_io_access mode, uint32_t open_flags);
void scorep_io_destroy_handle(scorep_io_handle handle);
/* new_handle became usable as a duplicate of old_handle (the trace's
 * IoDuplicateHandle); close_on_exec: the duplicate has FD_CLOEXEC. */
void scorep_io_duplicate_handle(scorep_io_handle old_handle, scorep_io_handle new_handle, int close_on_exec);
/* A blocking transfer on handle: begin with the bytes requested, complete
 * with the bytes done; matching_id pairs them (unique per thread). */
void scorep_io_operation_begin(scorep_io_handle handle, scorep_io_operation mode, uint64_t bytes_request,
                               uint64_t matching_id);
void scorep_io_operation_complete(scorep_io_handle handle, uint64_t bytes_result, uint64_t matching_id);
/* The start of a recorded transfer on handle, in one call: scorep_enter(region)
 * then scorep_io_operation_begin(handle, ...) at the enter's time. What the
 * I/O wrappers call where a substrate records IoOperationBegin
 * (tasks/io_operation.c.j2). */
void scorep_io_transfer_enter(scorep_region region, scorep_io_handle handle, scorep_io_operation mode,
                              uint64_t bytes_request, uint64_t matching_id);
/* The end of a recorded transfer, in one call: bytes_done counted as read
 * or written (by mode) like scorep_io_bytes when not 0, then, if handle is
 * not SCOREP_INVALID_ID, scorep_io_operation_complete(handle, bytes_done,
 * matching_id), then scorep_exit(region). What the I/O wrappers call
 * (tasks/io_operation.c.j2). */
void scorep_io_transfer_exit(scorep_region region, scorep_io_handle handle, scorep_io_operation mode,
                             uint64_t bytes_done, uint64_t matching_id);
/* Nonzero when an active substrate records I/O operation events (the trace):
 * without one the I/O wrappers neither look a transfer's handle up nor call
 * scorep_io_operation_begin (a profile needs only the bytes). Set when the
 * measurement starts, before any event; a consumer of the operation events
 * registers callbacks for them (scorep_substrate), which sets it. */
extern int scorep_io_operations_recorded;
/* Nonzero when an active substrate records IoOperationBegin (the trace):
 * without one a wrapper does not call scorep_io_operation_begin, and
 * scorep_io_transfer_exit does its work for the per-file totals (the
 * profile alone: one call into the core less per transfer). */
extern int scorep_io_operation_begin_recorded;
/* A seek: the offset asked for, whence (SEEK_SET, SEEK_CUR, SEEK_END), the offset reached. */
void scorep_io_seek(scorep_io_handle handle, int64_t offset_request, int whence, uint64_t offset_result);

/* ---- user parameters and metrics ------------------------------------------ */

typedef enum scorep_parameter_type {
    SCOREP_PARAMETER_INT64 = 0,
    SCOREP_PARAMETER_STRING = 1
} scorep_parameter_type;
scorep_parameter scorep_parameter_define(const char* name, scorep_parameter_type type);
/* Records a parameter value for the current region visit: in the profile the
 * following events of this visit go to a child node "name=value" of the
 * current call path, which ends with the enclosing region. */
void scorep_parameter_int(scorep_parameter parameter, int64_t value);
void scorep_parameter_string(scorep_parameter parameter, const char* value);

/* User metrics: signed values summed per call path in the profile. */
scorep_metric scorep_metric_define(const char* name, const char* unit);
/* How a metric's values combine across locations, as Cube shows them: a sum
 * of signed or of unsigned values, or the largest (a high-water mark). */
typedef enum {
    SCOREP_METRIC_SUM_SIGNED,
    SCOREP_METRIC_SUM_UNSIGNED,
    SCOREP_METRIC_MAXIMUM,
    /* the measurement's own synchronous strict metrics (SCOREP_METRIC_RUSAGE,
     * SCOREP_METRIC_PERF): a counter read at every enter and leave, its
     * growth per visit summed per call path with the callees' (inclusive) */
    SCOREP_METRIC_STRICT_RUSAGE,
    SCOREP_METRIC_STRICT_PERF,
    SCOREP_METRIC_STRICT_PAPI
} scorep_metric_kind;
/* A metric with a description (Cube shows it) and a kind; defining a name
 * again returns the first definition's id. */
scorep_metric scorep_metric_define_kind(const char* name, const char* unit, const char* description,
                                        scorep_metric_kind kind);
void scorep_metric_add(scorep_metric metric, int64_t value);
/* The calling thread's current call path in the profile (NULL without the
 * profile), and a metric added to such a path later (the memory adapter
 * keeps each allocation's path and adds its leaks when the measurement ends). */
void* scorep_profile_current_path(void);
void scorep_profile_path_metric_add(void* path, scorep_metric metric, int64_t value);
/* a maximum metric's value on the calling thread's own path: raised to
 * value if below (SCOREP_METRIC_MAXIMUM) */
void scorep_profile_path_metric_raise(void* path, scorep_metric metric, int64_t value);
/* scorep_metric_add(metric, value) then scorep_exit(region), in one call:
 * returns the call path the metric went to (scorep_profile_current_path
 * before the exit; NULL without the profile). metric SCOREP_INVALID_ID adds
 * nothing. The memory adapter's end of a recorded allocation or free. */
void* scorep_exit_metric(scorep_region region, scorep_metric metric, int64_t value);
/* fn runs when the measurement ends, after the open regions are closed and
 * before anything is unified or written, with event generation off (the
 * memory adapter's leak report); at most 8. */
void scorep_at_measurement_end(void (*fn)(void));

/* ---- lifecycle --------------------------------------------------------------- */

/* Optional: start now (otherwise the first definition does); idempotent, the
 * one "ensure started" entry of the life cycle. */
void scorep_measurement_init(void);
/* Write everything and stop measuring; idempotent. Called by the MPI layer from
 * MPI_Finalize and by the core at exit. */
void scorep_measurement_finalize(void);
/* Abnormal end (MPI_Abort, fatal error): every process writes what it has
 * recorded, without talking to other processes; the experiment directory is
 * marked partial. */
void scorep_measurement_abort(void);
/* The C library's _exit or _Exit (name) is called: writes the data recorded so
 * far (a rank's through the MPI layer), then ends the process with status as
 * the C library's name does, without looking anything up. The process-end
 * component (runtime/process_end/, docs/PROCESS_END.md) interposes _exit and
 * _Exit; an adapter needs this only for an exit of its own. */
void scorep_process_ends_without_exit_handlers(const char* name, int status) __attribute__((noreturn));
/* 1 between initialisation and finalisation. */
int scorep_measurement_is_active(void);
/* Path of the experiment directory once it exists, else NULL. */
const char* scorep_experiment_directory(void);

/* Value of a configuration variable as the core understood it (after defaults
 * and validation), e.g. "SCOREP_MPI_ENABLE_GROUPS"; NULL for unknown names. */
const char* scorep_config_value(const char* name);

#ifdef __cplusplus
}
#endif

#endif /* SCOREP_WRAPGEN_ADAPTER_H */
