/* The support header of the generated OpenMP adapter (generated/thread/omp/,
 * from libgomp's entry points and tasks/omp.json by
 * generator/system_backend.py): what its wrappers and task snippets
 * (tasks/omp_*.c.j2) call. The hand-written part is omp_adapter.c, with
 * omp_constructs.c, the open-construct stack the OMPT front-end (ompt.c)
 * shares.
 *
 * A construct's region is named as Score-P names it,
 * "!$omp <construct> @<file>:<line>", after the source line of the
 * program's call of the entry point (its debug information), so that one
 * construct is one region however often and on whichever thread it runs. */
#ifndef SCOREP_OMP_ADAPTER_H
#define SCOREP_OMP_ADAPTER_H

#include <omp.h>   /* the lock API's types (GCC's own include directory) */
#include <stdint.h>

#include <scorep_wrapgen/libwrap.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The adapter's per-thread state: preloaded or linked, never dlopened, so
 * the initial-exec model reaches it without __tls_get_addr on every call. */
#define SCOREP_OMP_TLS __thread __attribute__((tls_model("initial-exec")))

typedef enum scorep_omp_construct {
    SCOREP_OMP_NONE,
    SCOREP_OMP_PARALLEL,
    SCOREP_OMP_FOR,
    SCOREP_OMP_SECTIONS,
    SCOREP_OMP_SECTION,
    SCOREP_OMP_SINGLE,
    SCOREP_OMP_SINGLE_COPY,   /* single with copyprivate: the region is single's */
    SCOREP_OMP_SINGLE_SBLOCK,
    SCOREP_OMP_CRITICAL,
    SCOREP_OMP_CRITICAL_SBLOCK,
    SCOREP_OMP_ORDERED,
    SCOREP_OMP_ORDERED_SBLOCK,
    SCOREP_OMP_ATOMIC,
    SCOREP_OMP_ATOMIC_SBLOCK, /* none: atomic has no block region */
    SCOREP_OMP_BARRIER,
    SCOREP_OMP_IMPLICIT_BARRIER,
    SCOREP_OMP_TASK_CREATE,
    SCOREP_OMP_TASK,          /* a task's execution */
    SCOREP_OMP_TASKWAIT,
    SCOREP_OMP_TASKYIELD,
    SCOREP_OMP_TASKGROUP,
    /* the implicit barrier at a parallel region's end, by the address of
     * the region's outlined function (named after its last line) */
    SCOREP_OMP_PARALLEL_END,
    /* constructs without a runtime call, seen only in a program rebuilt
     * with the compiler instrumentation plugin (omp_sites.c) */
    SCOREP_OMP_MASTER,
    SCOREP_OMP_FLUSH,
    SCOREP_OMP_CONSTRUCT_COUNT
} scorep_omp_construct;

/* A parallel region's record, on the forking wrapper's frame for the
 * call: what the trampoline needs on every member. */
typedef struct scorep_omp_fork_record {
    scorep_thread_team team;
    void (*fn)(void*);
    void* data;
    scorep_region region;            /* !$omp parallel @... */
    scorep_region combined_region;   /* the combined construct's, or SCOREP_INVALID_ID */
    scorep_omp_construct combined;
    scorep_region barrier_region;    /* its implicit barrier */
} scorep_omp_fork_record;

/* Functions the adapter's source files and its generated wrappers share
 * and nothing else calls: not exported, so that the hot paths call them
 * directly, not through the PLT. */
#define SCOREP_OMP_HIDDEN __attribute__((visibility("hidden")))

/* ---- the constructs open on the calling thread (omp_constructs.c) ---- */

/* what the thread entered for a construct: both front-ends keep one stack
 * of these, so that a construct region opens and closes alike for either */
typedef struct scorep_omp_open_construct {
    scorep_region region;             /* SCOREP_INVALID_ID: not entered (event generation was off) */
    scorep_omp_construct construct;
    const void* site;                 /* the GOMP call that opened it (NULL: not known) */
    /* OMPT: a worksharing construct whose work is done, open for the
     * implicit barrier that may follow (none after nowait) */
    unsigned char work_done;
    /* OMPT: an implicit barrier that ends the construct below it */
    unsigned char ends_construct;
} scorep_omp_open_construct;

/* constructs nested deeper are counted, not recorded */
#define SCOREP_OMP_OPEN_MAX 64

/* The stack itself, omp_constructs.c's: its operations are inline (below),
 * since every construct call of the program runs them, a barrier four. */
extern SCOREP_OMP_TLS scorep_omp_open_construct scorep_omp_open_constructs[SCOREP_OMP_OPEN_MAX] SCOREP_OMP_HIDDEN;
/* may exceed SCOREP_OMP_OPEN_MAX: a construct that deep is counted, so
 * that its end finds the right depth, but not recorded */
extern SCOREP_OMP_TLS unsigned scorep_omp_open_count SCOREP_OMP_HIDDEN;

static inline unsigned scorep_omp_open_depth(void)
{
    return scorep_omp_open_count;
}

/* the construct open at depth (1: the outermost), NULL where none is recorded */
static inline scorep_omp_open_construct* scorep_omp_open_at(unsigned depth)
{
    return depth > 0 && depth <= scorep_omp_open_count && depth <= SCOREP_OMP_OPEN_MAX
               ? &scorep_omp_open_constructs[depth - 1]
               : NULL;
}

/* SCOREP_OMP_NONE where none is open or recorded */
static inline scorep_omp_construct scorep_omp_innermost(void)
{
    unsigned depth = scorep_omp_open_count;
    return depth > 0 && depth <= SCOREP_OMP_OPEN_MAX ? scorep_omp_open_constructs[depth - 1].construct
                                                     : SCOREP_OMP_NONE;
}

/* enters region (unless event generation is off) and opens construct */
static inline void scorep_omp_push(scorep_omp_construct construct, scorep_region region, const void* site)
{
    unsigned depth = scorep_omp_open_count;
    if (depth < SCOREP_OMP_OPEN_MAX) {
        /* a callback inside the measurement's own or a measured library's
         * call (OMPT) records nothing, and its exit must not either */
        if (scorep_thread_event_generation_off) region = SCOREP_INVALID_ID;
        scorep_omp_open_construct* open = &scorep_omp_open_constructs[depth];
        open->region = region;
        open->construct = construct;
        open->site = site;
        open->work_done = 0;
        open->ends_construct = 0;
        if (region != SCOREP_INVALID_ID) scorep_enter(region);
    }
    scorep_omp_open_count = depth + 1;
}

static inline void scorep_omp_pop(void)
{
    unsigned depth = scorep_omp_open_count;
    if (depth == 0) return;
    scorep_omp_open_count = --depth;
    if (depth < SCOREP_OMP_OPEN_MAX && scorep_omp_open_constructs[depth].region != SCOREP_INVALID_ID)
        scorep_exit(scorep_omp_open_constructs[depth].region);
}
/* leaves every construct above depth */
SCOREP_OMP_HIDDEN void scorep_omp_pop_to(unsigned depth);
/* leaves the innermost construct open above floor, and every one inside
 * it; nothing when there is none */
SCOREP_OMP_HIDDEN void scorep_omp_pop_through(scorep_omp_construct construct, unsigned floor);
/* Forgets the constructs above depth without leaving their regions: a
 * team member that left its part (scorep_thread_team_leave) has them left
 * on its location by the forking thread's join. */
SCOREP_OMP_HIDDEN void scorep_omp_forget_to(unsigned depth);

/* ---- the task the calling thread runs (omp_tasks.c) ---- */

/* a task's number in the trace's task records: its creating thread's
 * number in the team and that thread's count of created tasks from 1; a
 * thread's implicit task is SCOREP_OMP_IMPLICIT_TASK; {0, 0}: a task not
 * numbered (nothing recorded for it) */
typedef struct scorep_omp_task_id {
    uint32_t creator, generation;
} scorep_omp_task_id;
#define SCOREP_OMP_IMPLICIT_TASK ((scorep_omp_task_id){SCOREP_IMPLICIT_TASK, 0})
typedef struct scorep_omp_task_state {
    scorep_omp_task_id running;
    int switch_back_due;
} scorep_omp_task_state;
/* a task created by the calling thread, member creator of team (NULL:
 * none recorded): ThreadTaskCreate, and the task's number */
SCOREP_OMP_HIDDEN scorep_omp_task_id scorep_omp_task_create(const scorep_thread_team* team, uint32_t creator);
/* the thread runs task from its start: ThreadTaskSwitch; returns the
 * task it ran before */
SCOREP_OMP_HIDDEN scorep_omp_task_id scorep_omp_task_begin(const scorep_thread_team* team, scorep_omp_task_id task);
/* task done on the thread (ThreadTaskComplete), which runs back_to again:
 * where the thread waits in a construct, the switch back to it is recorded
 * before the construct ends (scorep_omp_task_switch_back) */
SCOREP_OMP_HIDDEN void scorep_omp_task_end(const scorep_thread_team* team, scorep_omp_task_id task,
                                           scorep_omp_task_id back_to, int waits_in_construct);
/* before the end of a construct: the switch back to the waiting task if
 * the thread ran tasks inside it (due: omp_tasks.c's flag, tested inline) */
extern SCOREP_OMP_TLS int scorep_omp_task_switch_back_due SCOREP_OMP_HIDDEN;
SCOREP_OMP_HIDDEN void scorep_omp_task_switch_back_now(const scorep_thread_team* team);
static inline void scorep_omp_task_switch_back(const scorep_thread_team* team)
{
    if (scorep_omp_task_switch_back_due) scorep_omp_task_switch_back_now(team);
}
/* a team part begins on the thread, which runs the part's implicit task:
 * returns the thread's task state outside it, for its end */
SCOREP_OMP_HIDDEN scorep_omp_task_state scorep_omp_tasks_enter_part(void);
SCOREP_OMP_HIDDEN void scorep_omp_tasks_leave_part(scorep_omp_task_state outside);

/* The region of construct at the program's code address (the call
 * instruction, or an OMPT codeptr_ra less one): defined at its first use,
 * found without a lock later. */
SCOREP_OMP_HIDDEN scorep_region scorep_omp_region_at(scorep_omp_construct construct, uintptr_t address);

SCOREP_OMP_HIDDEN void scorep_omp_fork_begin(scorep_omp_fork_record* fork, const void* site, scorep_omp_construct combined,
                           void (*fn)(void*), void* data, unsigned threads);
SCOREP_OMP_HIDDEN void scorep_omp_fork_end(scorep_omp_fork_record* fork);
/* what libgomp starts on every member instead of the outlined function */
void scorep_omp_trampoline(void* fork);

/* a construct's region entered on the thread (it stays open), and left
 * with every construct opened after it */
SCOREP_OMP_HIDDEN void scorep_omp_construct_begin(scorep_omp_construct construct, const void* site);
SCOREP_OMP_HIDDEN void scorep_omp_construct_end(scorep_omp_construct construct);
/* a named critical section's construct_begin (pptr: libgomp's per-name
 * pointer): its region "!$omp critical (name) @file:line" */
SCOREP_OMP_HIDDEN void scorep_omp_critical_name_begin(const void* site, void** pptr);
/* the block of single, critical or ordered: entered once the thread has it */
SCOREP_OMP_HIDDEN void scorep_omp_block_begin(scorep_omp_construct block, const void* site);
SCOREP_OMP_HIDDEN void scorep_omp_block_end(scorep_omp_construct block);
/* a critical section taken or about to be given up (kind
 * SCOREP_THREAD_OMP_ACQUIRE_LOCK or _RELEASE_LOCK): the trace's lock event
 * of its lock, a named section's (name: libgomp's pointer of the name) or
 * the one of every unnamed section (NULL) */
SCOREP_OMP_HIDDEN void scorep_omp_critical_lock(scorep_thread_event_kind kind, void** name);
/* an explicit barrier's call (or a single construct's implicit one) */
SCOREP_OMP_HIDDEN void scorep_omp_barrier_begin(const void* site);
SCOREP_OMP_HIDDEN void scorep_omp_barrier_end(void);
/* a worksharing construct ends: with barrier, the call is its implicit barrier */
SCOREP_OMP_HIDDEN void scorep_omp_construct_end_begin(int barrier, const void* site);
SCOREP_OMP_HIDDEN void scorep_omp_construct_end_end(int barrier);
/* A created task's argument block: the bytes its creating wrapper puts
 * on its stack for it (1: the task is left as it is), and the block made
 * there, with the task's function, data, copy function, size and
 * alignment changed to the adapter's (runtime/omp_adapter/omp_adapter.c) */
SCOREP_OMP_HIDDEN size_t scorep_omp_task_block_size(long arg_size, long arg_align, int has_copy);
SCOREP_OMP_HIDDEN void scorep_omp_task_wrap(char* block, size_t size, const void* site, void (**fn)(void*), void** data,
                          void (**cpyfn)(void*, void*), long* arg_size, long* arg_align);
/* the section a sections construct gave the thread (0: none left) */
SCOREP_OMP_HIDDEN void scorep_omp_section_next(unsigned section, const void* site);

/* The pragma lines the compiler instrumentation plugin hands the adapter
 * (omp_sites.c, scorep_omp_sites.h). construct's region "@file:line",
 * with name a named critical section's "!$omp critical (name) @file:line" */
SCOREP_OMP_HIDDEN scorep_region scorep_omp_region_named(scorep_omp_construct construct, const char* file, int line,
                                      const char* name);
/* the region of the thread's next construct after its pragma, if the
 * plugin announced one of construct's kind (else SCOREP_INVALID_ID); call:
 * the program's call of the entry point, which owns the site once it took
 * it */
SCOREP_OMP_HIDDEN scorep_region scorep_omp_site_region(scorep_omp_construct construct, const void* call);
SCOREP_OMP_HIDDEN int scorep_omp_site_pending(scorep_omp_construct construct, const void* call);
/* the kind of the site announced for the thread's next construct; 0 (the
 * sites' SCOREP_OMP_SITE_NONE): none, and the two calls above have
 * nothing to say (a program not rebuilt never has one) */
extern SCOREP_OMP_TLS int scorep_omp_next_site_kind SCOREP_OMP_HIDDEN;
/* SCOREP_OMP_FOR if the announced parallel region is a combined loop that
 * GCC computes inline (no combined entry point says so) */
SCOREP_OMP_HIDDEN scorep_omp_construct scorep_omp_site_combined(void);
/* whether the announced loop is a combined parallel loop's that starts
 * with its own call: it stays open until the team ends */
SCOREP_OMP_HIDDEN int scorep_omp_site_combined_loop(void);
SCOREP_OMP_HIDDEN void scorep_omp_site_clear(void);
/* a construct without a runtime call, entered and left on the thread */
SCOREP_OMP_HIDDEN void scorep_omp_inline_begin(scorep_omp_construct construct, scorep_region region);
SCOREP_OMP_HIDDEN void scorep_omp_inline_end(scorep_omp_construct construct);

#ifdef __cplusplus
}
#endif

#endif /* SCOREP_OMP_ADAPTER_H */
