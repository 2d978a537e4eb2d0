/* The OpenMP adapter's OMPT front-end: programs whose OpenMP runtime has
 * the OpenMP 5.0 tool interface (LLVM's libomp, what clang's -fopenmp
 * links) are measured through its callbacks into the events and construct
 * regions the GOMP wrappers record for GCC's libgomp, so that one profile
 * shape serves both runtimes (docs/OPENMP_ADAPTER.md, "OMPT (clang,
 * libomp)").
 *
 * libomp calls ompt_start_tool when it starts, if the process has one:
 * this library's (preloaded, or linked ahead of libomp). libgomp (GCC 12)
 * has no OMPT and never calls it; a clang-built program never calls the
 * GOMP_* entry points libomp also exports, so each program has one
 * front-end. A GCC-built program run on libomp calls GOMP_* through this
 * library's wrappers, which record it: libomp reports such a parallel
 * region with a code address inside this library, and OMPT leaves its
 * team alone (inside, libomp's code addresses are not all the wrappers').
 *
 * Callbacks run on the OpenMP runtime's threads in the program's hot
 * paths: state is per thread or in the forking thread's own records, no
 * lock is taken and nothing is allocated (a construct's name is looked up
 * once, scorep_omp_region_at). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "scorep_omp_adapter.h"

#ifdef SCOREP_OMPT_HEADER
#include SCOREP_OMPT_HEADER

#include <dlfcn.h>
#include <link.h>

/* the deprecated names of OpenMP 5.0, which LLVM 14 still reports */
enum {
    SYNC_BARRIER = 1,            /* ompt_sync_region_barrier */
    SYNC_BARRIER_IMPLICIT = 2,   /* ompt_sync_region_barrier_implicit */
};

/* ---- the constructs open on this thread (omp_constructs.c) -------------------- */

static scorep_region site_region(scorep_omp_construct construct, const void* codeptr_ra)
{
    /* codeptr_ra is the return address of the runtime call: the call's
     * own line is the byte before it */
    return scorep_omp_region_at(construct, codeptr_ra ? (uintptr_t)codeptr_ra - 1 : 0);
}

/* A worksharing construct whose work ended without a barrier (nowait)
 * ends before the thread's next event. */
static void end_worksharing(void)
{
    const scorep_omp_open_construct* open = scorep_omp_open_at(scorep_omp_open_depth());
    if (open != NULL && open->work_done) scorep_omp_pop();
}

/* ---- teams --------------------------------------------------------------------- */

/* A parallel region's record, on the forking thread: the team's fork and
 * the regions every member enters. Forks nest on a thread as its parallel
 * regions do, so the records are a stack per thread: no allocation. */
typedef struct ompt_team {
    scorep_thread_team team;
    scorep_region parallel;
    scorep_region barrier;        /* the region's implicit barrier */
    const void* site;             /* parallel_begin's codeptr_ra */
} ompt_team;

#define FORK_MAX 16
static SCOREP_OMP_TLS ompt_team forks[FORK_MAX];
static SCOREP_OMP_TLS unsigned fork_depth;

/* The team parts (implicit tasks) this thread runs, innermost last. */
#define PART_MAX 16
typedef struct team_part {
    ompt_team* team;
    unsigned index;
    unsigned floor;               /* the open constructs' depth at its begin */
    int in_barrier;               /* the primary thread waits in the implicit barrier */
    scorep_omp_task_state tasks_outside;   /* the thread's task outside the part */
} team_part;
static SCOREP_OMP_TLS team_part parts[PART_MAX];
static SCOREP_OMP_TLS unsigned part_depth;
/* the thread has been a member other than the primary thread of a team:
 * outside a part it waits in a parallel region's implicit barrier */
static SCOREP_OMP_TLS int ever_member;

static team_part* current_part(void)
{
    return part_depth > 0 ? &parts[part_depth - 1] : NULL;
}

/* The team of a parallel region this front-end leaves alone, as a whole:
 * forked from a GOMP wrapper (which records it), or not recorded (forked
 * too deep, with event generation off, or inside such a team). */
static ompt_team foreign_team;

static int in_foreign_team(void)
{
    return part_depth > 0 && parts[part_depth - 1].team == &foreign_team;
}

static void end_part(team_part* part)
{
    scorep_omp_pop_to(part->floor);
    scorep_thread_team_end(&part->team->team);
    scorep_omp_tasks_leave_part(part->tasks_outside);
    part_depth--;
}

/* The team whose part this thread, a member other than the primary
 * thread, left at its arrival in the parallel region's implicit barrier
 * (leave_part), and its number there: until the forker's join, libomp may
 * run the team's tasks on it while it waits, which belong in that part.
 * NULL once the thread has been given its next implicit task. */
static SCOREP_OMP_TLS ompt_team* left_team;
static SCOREP_OMP_TLS unsigned left_index;
/* the open constructs' depth of the task that took the left part up again
 * (scorep_thread_team_resume; 0: none) */
static SCOREP_OMP_TLS unsigned resumed_task_depth;

/* The part stays open on the member's location, its parallel region and
 * implicit barrier entered, and the forker's join ends it when libomp has
 * ended the team: the member's wait in the barrier is measured as the
 * GOMP wrappers measure it (omp_adapter.c, scorep_omp_trampoline). */
static void leave_part(team_part* part)
{
    scorep_omp_forget_to(part->floor);
    left_team = part->team;
    left_index = part->index;
    resumed_task_depth = 0;
    scorep_thread_team_leave(&part->team->team);
    scorep_omp_tasks_leave_part(part->tasks_outside);
    part_depth--;
}

/* the team the thread works for: its part's, or the left part's a task
 * took up again (NULL: none recorded) */
static const scorep_thread_team* working_team(void)
{
    team_part* part = current_part();
    if (part != NULL) return part->team == &foreign_team ? NULL : &part->team->team;
    return resumed_task_depth != 0 && left_team != NULL ? &left_team->team : NULL;
}

/* ---- the code of the GOMP wrappers --------------------------------------------- */

/* Where this library's code lies: a callback whose codeptr_ra is in it
 * comes from a GOMP_* wrapper calling libomp's GOMP_* (a GCC-built program
 * on libomp), which records the construct itself. Linked statically, the
 * wrappers are part of the program and cannot be told apart: empty. */
static uintptr_t own_begin, own_size;

#ifndef SCOREP_LIBWRAP_STATIC
static int find_own(struct dl_phdr_info* info, size_t size, void* data)
{
    uintptr_t self = (uintptr_t)data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr)* ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        uintptr_t begin = info->dlpi_addr + ph->p_vaddr;
        if (self - begin < ph->p_memsz) {
            own_begin = begin;
            own_size = ph->p_memsz;
            return 1;
        }
    }
    return 0;
}
#endif

static int from_gomp_wrapper(const void* codeptr_ra)
{
    return (uintptr_t)codeptr_ra - own_begin < own_size;
}

/* ---- callbacks ------------------------------------------------------------------ */

static void on_parallel_begin(ompt_data_t* encountering_task_data, const ompt_frame_t* encountering_task_frame,
                              ompt_data_t* parallel_data, unsigned int requested_parallelism, int flags,
                              const void* codeptr_ra)
{
    parallel_data->ptr = NULL;
    /* a league of teams (target teams) is not a parallel region */
    if (!(flags & ompt_parallel_team)) return;
    if (from_gomp_wrapper(codeptr_ra) || in_foreign_team() || fork_depth >= FORK_MAX ||
        scorep_thread_event_generation_off) {
        parallel_data->ptr = &foreign_team;
        return;
    }
    end_worksharing();
    ompt_team* t = &forks[fork_depth++];
    t->site = codeptr_ra;
    t->parallel = site_region(SCOREP_OMP_PARALLEL, codeptr_ra);
    t->barrier = site_region(SCOREP_OMP_IMPLICIT_BARRIER, codeptr_ra);
    scorep_thread_fork(&t->team, requested_parallelism);
    parallel_data->ptr = t;
}

static void on_parallel_end(ompt_data_t* parallel_data, ompt_data_t* encountering_task_data, int flags,
                            const void* codeptr_ra)
{
    ompt_team* t = parallel_data->ptr;
    parallel_data->ptr = NULL;
    if (t == NULL || t == &foreign_team) return;
    scorep_thread_join(&t->team);
    fork_depth--;
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t* parallel_data, ompt_data_t* task_data,
                             unsigned int actual_parallelism, unsigned int index, int flags)
{
    /* the program's initial task is no team's part: the forks are */
    if (flags & ompt_task_initial) return;
    /* a member's next part, or libomp's late end of its left one: the
     * left part's team has ended, and the thread's tasks are no longer its */
    if (index != 0) {
        left_team = NULL;
        resumed_task_depth = 0;
    }
    if (endpoint == ompt_scope_begin) {
        task_data->ptr = NULL;
        /* libomp ends a member's part of a foreign team late (below), and
         * a member other than the primary thread is in no other team: a
         * foreign part still open here has ended */
        if (index != 0)
            while (in_foreign_team()) part_depth--;
        ompt_team* t = parallel_data ? parallel_data->ptr : NULL;
        if (t == NULL || part_depth >= PART_MAX) return;
        if (index != 0) ever_member = 1;
        team_part* part = &parts[part_depth++];
        part->team = t;
        part->index = index;
        part->floor = scorep_omp_open_depth();
        part->in_barrier = 0;
        task_data->ptr = part;
        if (t == &foreign_team) return;
        part->tasks_outside = scorep_omp_tasks_enter_part();
        scorep_thread_team_begin(&t->team, index, actual_parallelism);
        scorep_omp_push(SCOREP_OMP_PARALLEL, t->parallel, NULL);
    } else if (endpoint == ompt_scope_end) {
        /* a member other than the primary thread left its part at its
         * arrival in the implicit barrier (task_data->ptr is NULL then) */
        team_part* part = task_data ? task_data->ptr : NULL;
        if (part == NULL || part != current_part()) return;
        task_data->ptr = NULL;
        if (part->team == &foreign_team)
            part_depth--;
        else
            end_part(part);
    }
}

/* The implicit barrier at a parallel region's end. libomp reports a
 * member's end of it only when the member is given its next parallel
 * region (or the program ends): recorded then, the wait would hold the
 * program's serial part between the regions, and the member's part would
 * end after its forker's join. So a member other than the primary thread
 * enters the barrier as it arrives and leaves its part open there
 * (leave_part); libomp reports the arrival before the member tells the
 * primary thread, which ends the team (parallel_end, the forker's join
 * that ends the part) only once every member has arrived: the member's
 * barrier ends when the last member arrives, as its wait does. The
 * primary thread's end of the barrier comes in time. */
static int is_parallel_barrier(ompt_sync_region_t kind, const team_part* part, const void* codeptr_ra)
{
    if (kind == ompt_sync_region_barrier_implicit_parallel) return 1;
    /* LLVM 14 reports it as an implicit barrier: the primary thread's
     * with the parallel region's address, the other members' with none */
    return kind == (ompt_sync_region_t)SYNC_BARRIER_IMPLICIT && part != NULL &&
           (codeptr_ra == NULL || codeptr_ra == part->team->site);
}

static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t* parallel_data,
                           ompt_data_t* task_data, const void* codeptr_ra)
{
    if (from_gomp_wrapper(codeptr_ra) || in_foreign_team()) return;
    team_part* part = current_part();
    if (is_parallel_barrier(kind, part, codeptr_ra)) {
        if (endpoint == ompt_scope_begin) {
            end_worksharing();
            if (part == NULL || parallel_data == NULL || parallel_data->ptr != part->team) return;
            scorep_omp_push(SCOREP_OMP_IMPLICIT_BARRIER, part->team->barrier, NULL);
            if (part->index == 0) {
                part->in_barrier = 1;
            } else {
                leave_part(part);
                if (task_data) task_data->ptr = NULL;
            }
        } else if (endpoint == ompt_scope_end && part != NULL && part->in_barrier) {
            part->in_barrier = 0;
            if (scorep_omp_innermost() == SCOREP_OMP_IMPLICIT_BARRIER) scorep_omp_pop();
        }
        return;
    }
    /* a parallel region's barrier whose team part is not recorded */
    if (codeptr_ra == NULL && (int)kind == SYNC_BARRIER_IMPLICIT) return;
    scorep_omp_construct construct;
    switch ((int)kind) {
    case SYNC_BARRIER_IMPLICIT:
    case ompt_sync_region_barrier_implicit_workshare:
        construct = SCOREP_OMP_IMPLICIT_BARRIER;
        break;
    case SYNC_BARRIER:
    case ompt_sync_region_barrier_explicit:
        construct = SCOREP_OMP_BARRIER;
        break;
    case ompt_sync_region_taskwait:
        construct = SCOREP_OMP_TASKWAIT;
        break;
    case ompt_sync_region_taskgroup:
        construct = SCOREP_OMP_TASKGROUP;
        break;
    default:   /* reductions, the runtime's own barriers */
        return;
    }
    if (endpoint == ompt_scope_begin) {
        /* a worksharing construct's implicit barrier is inside it, as the
         * GOMP wrappers record it */
        scorep_omp_open_construct* below = scorep_omp_open_at(scorep_omp_open_depth());
        int ends_construct = construct == SCOREP_OMP_IMPLICIT_BARRIER && below != NULL && below->work_done;
        if (ends_construct)
            below->work_done = 0;
        else
            end_worksharing();
        scorep_omp_push(construct, site_region(construct, codeptr_ra), NULL);
        scorep_omp_open_construct* barrier = scorep_omp_open_at(scorep_omp_open_depth());
        if (ends_construct && barrier != NULL) barrier->ends_construct = 1;
    } else if (endpoint == ompt_scope_end && scorep_omp_innermost() == construct) {
        int ends_construct = scorep_omp_open_at(scorep_omp_open_depth())->ends_construct;
        scorep_omp_task_switch_back(working_team());
        scorep_omp_pop();
        if (ends_construct) scorep_omp_pop();
    }
}

static void on_work(ompt_work_t wstype, ompt_scope_endpoint_t endpoint, ompt_data_t* parallel_data,
                    ompt_data_t* task_data, uint64_t count, const void* codeptr_ra)
{
    if (from_gomp_wrapper(codeptr_ra) || in_foreign_team()) return;
    scorep_omp_construct construct;
    switch ((int)wstype) {
    case ompt_work_loop:
    case 10: case 11: case 12: case 13:   /* OpenMP 5.2's loop kinds (static, dynamic, guided, other) */
        construct = SCOREP_OMP_FOR;
        break;
    case ompt_work_sections:
        construct = SCOREP_OMP_SECTIONS;
        break;
    case ompt_work_single_executor:
    case ompt_work_single_other:
        construct = SCOREP_OMP_SINGLE;
        break;
    default:   /* workshare, distribute, taskloop, scope: no GOMP counterpart recorded */
        return;
    }
    if (endpoint == ompt_scope_begin) {
        end_worksharing();
        scorep_omp_push(construct, site_region(construct, codeptr_ra), NULL);
        if (wstype == ompt_work_single_executor)
            scorep_omp_push(SCOREP_OMP_SINGLE_SBLOCK, site_region(SCOREP_OMP_SINGLE_SBLOCK, codeptr_ra), NULL);
    } else if (endpoint == ompt_scope_end) {
        if (scorep_omp_innermost() == SCOREP_OMP_SECTION || scorep_omp_innermost() == SCOREP_OMP_SINGLE_SBLOCK) scorep_omp_pop();
        if (scorep_omp_innermost() == construct) scorep_omp_open_at(scorep_omp_open_depth())->work_done = 1;
    }
}

static void on_dispatch(ompt_data_t* parallel_data, ompt_data_t* task_data, ompt_dispatch_t kind,
                        ompt_data_t instance)
{
    if (kind != ompt_dispatch_section || in_foreign_team()) return;
    if (scorep_omp_innermost() == SCOREP_OMP_SECTION) scorep_omp_pop();
    /* a section's instance is its code address */
    scorep_omp_push(SCOREP_OMP_SECTION, site_region(SCOREP_OMP_SECTION, instance.ptr), NULL);
}

/* critical and ordered; omp_set_lock and its kin are the generated lock
 * wrappers' for either runtime (omp.h's API is the same), so OMPT's lock
 * kinds would record them twice */
static scorep_omp_construct mutex_construct(ompt_mutex_t kind)
{
    return kind == ompt_mutex_critical ? SCOREP_OMP_CRITICAL
         : kind == ompt_mutex_ordered ? SCOREP_OMP_ORDERED : SCOREP_OMP_NONE;
}

static void on_mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl, ompt_wait_id_t wait_id,
                             const void* codeptr_ra)
{
    scorep_omp_construct construct = mutex_construct(kind);
    if (construct == SCOREP_OMP_NONE || from_gomp_wrapper(codeptr_ra) || in_foreign_team()) return;
    end_worksharing();
    scorep_omp_push(construct, site_region(construct, codeptr_ra), NULL);
}

/* The GOMP wrappers' constructs are on the thread's open-construct stack
 * too: a GCC-built program's critical section must not be taken for one of
 * these callbacks' own. */
static void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void* codeptr_ra)
{
    scorep_omp_construct construct = mutex_construct(kind);
    if (construct == SCOREP_OMP_NONE || from_gomp_wrapper(codeptr_ra) || in_foreign_team() ||
        scorep_omp_innermost() != construct)
        return;
    scorep_omp_construct block = construct == SCOREP_OMP_CRITICAL ? SCOREP_OMP_CRITICAL_SBLOCK
                                                                  : SCOREP_OMP_ORDERED_SBLOCK;
    /* named after the construct's site, acquire's address */
    scorep_omp_push(block, site_region(block, codeptr_ra), NULL);
    /* a critical section is a lock of the trace, libomp's wait id its lock */
    if (construct == SCOREP_OMP_CRITICAL)
        scorep_lock_event(SCOREP_THREAD_OMP_ACQUIRE_LOCK, (const void*)(uintptr_t)wait_id);
}

static void on_mutex_released(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void* codeptr_ra)
{
    scorep_omp_construct construct = mutex_construct(kind);
    if (construct == SCOREP_OMP_NONE || from_gomp_wrapper(codeptr_ra) || in_foreign_team()) return;
    scorep_omp_construct block = construct == SCOREP_OMP_CRITICAL ? SCOREP_OMP_CRITICAL_SBLOCK
                                                                  : SCOREP_OMP_ORDERED_SBLOCK;
    if (scorep_omp_innermost() != block) return;
    if (construct == SCOREP_OMP_CRITICAL)
        scorep_lock_event(SCOREP_THREAD_OMP_RELEASE_LOCK, (const void*)(uintptr_t)wait_id);
    scorep_omp_pop();
    if (scorep_omp_innermost() == construct) scorep_omp_pop();
}

/* An explicit task's data: its "!$omp task" region (named after its
 * creation, as the GOMP wrappers name it), its number in the trace's task
 * records (omp_tasks.c), and whether the thread that runs it has entered
 * it. An implicit task's data is a pointer to its team part, or none: the
 * tag bit tells them apart. The 62 bits left hold a region below 2^22, a
 * creating thread below 2^12 and a generation below 2^28; a task beyond
 * them is recorded without its region (the region field all ones) or its
 * number (0). */
#define TASK_TAG (1ull << 63)
#define TASK_OPEN (1ull << 62)
#define TASK_REGION_BITS 22
#define TASK_CREATOR_BITS 12
#define TASK_GENERATION_BITS 28
#define TASK_NO_REGION ((1u << TASK_REGION_BITS) - 1)

static uint64_t task_value(scorep_region region, scorep_omp_task_id id)
{
    if (region >= TASK_NO_REGION) region = TASK_NO_REGION;
    if (id.creator >> TASK_CREATOR_BITS || id.generation >> TASK_GENERATION_BITS) id = (scorep_omp_task_id){0, 0};
    return TASK_TAG | (uint64_t)region << (TASK_CREATOR_BITS + TASK_GENERATION_BITS) |
           (uint64_t)id.creator << TASK_GENERATION_BITS | id.generation;
}

static scorep_region task_region(uint64_t value)
{
    uint32_t region = (uint32_t)(value >> (TASK_CREATOR_BITS + TASK_GENERATION_BITS)) & TASK_NO_REGION;
    return region == TASK_NO_REGION ? SCOREP_INVALID_ID : region;
}

static scorep_omp_task_id task_number(uint64_t value)
{
    return (scorep_omp_task_id){(uint32_t)(value >> TASK_GENERATION_BITS) & ((1u << TASK_CREATOR_BITS) - 1),
                                (uint32_t)value & ((1u << TASK_GENERATION_BITS) - 1)};
}


/* OMPT reports a task's creation as a point: the region is a visit of no
 * length (the GOMP wrapper's spans GOMP_task, which may run an undeferred
 * task in it) */
static void on_task_create(ompt_data_t* encountering_task_data, const ompt_frame_t* encountering_task_frame,
                           ompt_data_t* new_task_data, int flags, int has_dependences, const void* codeptr_ra)
{
    if (!(flags & ompt_task_explicit) || from_gomp_wrapper(codeptr_ra) || in_foreign_team()) return;
    end_worksharing();
    scorep_omp_push(SCOREP_OMP_TASK_CREATE, site_region(SCOREP_OMP_TASK_CREATE, codeptr_ra), NULL);
    team_part* part = current_part();
    scorep_omp_task_id id = scorep_omp_task_create(working_team(), part ? part->index : 0);
    scorep_omp_pop();
    new_task_data->value = task_value(site_region(SCOREP_OMP_TASK, codeptr_ra), id);
}

/* A task runs inside whatever its thread was doing when it took it up (a
 * taskwait, a barrier, the task it suspended), as the GOMP wrappers'
 * trampoline records it; a suspended task stays open below the ones its
 * thread runs meanwhile, and is left when its body is done. A member
 * other than the primary thread that runs a task after its arrival in the
 * parallel region's implicit barrier has left its part: the task takes
 * the part up again, inside that barrier, until its body is done (as the
 * GOMP wrappers' task trampoline does). */
static void on_task_schedule(ompt_data_t* prior_task_data, ompt_task_status_t prior_task_status,
                             ompt_data_t* next_task_data)
{
    if (in_foreign_team()) return;
    if (prior_task_data && (prior_task_data->value & (TASK_TAG | TASK_OPEN)) == (TASK_TAG | TASK_OPEN) &&
        (prior_task_status == ompt_task_complete || prior_task_status == ompt_task_cancel ||
         prior_task_status == ompt_task_detach)) {
        prior_task_data->value &= ~TASK_OPEN;
        if (scorep_omp_innermost() == SCOREP_OMP_TASK) scorep_omp_pop();
        /* the thread goes back to the task it suspended, or its implicit one */
        scorep_omp_task_id back_to = next_task_data && (next_task_data->value & (TASK_TAG | TASK_OPEN)) ==
                                                          (TASK_TAG | TASK_OPEN)
                                         ? task_number(next_task_data->value)
                                         : SCOREP_OMP_IMPLICIT_TASK;
        const scorep_thread_team* team = working_team();
        if (resumed_task_depth != 0 && scorep_omp_open_depth() < resumed_task_depth) {
            /* the thread waits in the team's end again, which no callback
             * of the thread's ends */
            scorep_omp_task_end(team, task_number(prior_task_data->value), back_to, 0);
            resumed_task_depth = 0;
            scorep_thread_team_leave(&left_team->team);
        } else {
            scorep_omp_task_end(team, task_number(prior_task_data->value), back_to, 1);
        }
    }
    if (next_task_data && (next_task_data->value & (TASK_TAG | TASK_OPEN)) == TASK_TAG) {
        if (ever_member && part_depth == 0 && resumed_task_depth == 0) {
            /* outside a part: in a parallel region's implicit barrier, or
             * a part that was not recorded */
            if (left_team == NULL || !scorep_thread_team_resume(&left_team->team, left_index)) return;
            resumed_task_depth = scorep_omp_open_depth() + 1;
        }
        end_worksharing();
        next_task_data->value |= TASK_OPEN;
        scorep_omp_task_begin(working_team(), task_number(next_task_data->value));
        scorep_region region = task_region(next_task_data->value);
        scorep_omp_push(SCOREP_OMP_TASK, region, NULL);
    }
}

/* ---- the tool ---------------------------------------------------------------------- */

static int initialize(ompt_function_lookup_t lookup, int initial_device_num, ompt_data_t* tool_data)
{
    ompt_set_callback_t set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
    if (set_callback == NULL) return 0;
#define REGISTER(event, function) set_callback(event, (ompt_callback_t)(function))
    REGISTER(ompt_callback_parallel_begin, on_parallel_begin);
    REGISTER(ompt_callback_parallel_end, on_parallel_end);
    REGISTER(ompt_callback_implicit_task, on_implicit_task);
    REGISTER(ompt_callback_sync_region, on_sync_region);
    REGISTER(ompt_callback_work, on_work);
    REGISTER(ompt_callback_dispatch, on_dispatch);
    REGISTER(ompt_callback_mutex_acquire, on_mutex_acquire);
    REGISTER(ompt_callback_mutex_acquired, on_mutex_acquired);
    REGISTER(ompt_callback_mutex_released, on_mutex_released);
    REGISTER(ompt_callback_task_create, on_task_create);
    REGISTER(ompt_callback_task_schedule, on_task_schedule);
#undef REGISTER
    return 1;   /* non-zero: the tool stays active */
}

static void finalize(ompt_data_t* tool_data) {}

ompt_start_tool_result_t* ompt_start_tool(unsigned int omp_version, const char* runtime_version)
{
    static ompt_start_tool_result_t result = {initialize, finalize, {0}};
#ifndef SCOREP_LIBWRAP_STATIC
    dl_iterate_phdr(find_own, (void*)(uintptr_t)&ompt_start_tool);
#endif
    return &result;
}

#endif /* SCOREP_OMPT_HEADER */
