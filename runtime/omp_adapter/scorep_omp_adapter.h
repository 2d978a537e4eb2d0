/* The support header of the generated OpenMP adapter (generated/thread/omp/,
 * from libgomp's entry points and tasks/omp.json by
 * generator/system_backend.py): what its wrappers and task snippets
 * (tasks/omp_*.c.j2) call. The hand-written part is omp_adapter.c.
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

/* The region of construct at the program's code address (the call
 * instruction, or an OMPT codeptr_ra less one): defined at its first use,
 * found without a lock later. */
scorep_region scorep_omp_region_at(scorep_omp_construct construct, uintptr_t address);

void scorep_omp_fork_begin(scorep_omp_fork_record* fork, const void* site, scorep_omp_construct combined,
                           void (*fn)(void*), void* data, unsigned threads);
void scorep_omp_fork_end(scorep_omp_fork_record* fork);
/* what libgomp starts on every member instead of the outlined function */
void scorep_omp_trampoline(void* fork);

/* a construct's region entered on the thread (it stays open), and left
 * with every construct opened after it */
void scorep_omp_construct_begin(scorep_omp_construct construct, const void* site);
void scorep_omp_construct_end(scorep_omp_construct construct);
/* the block of single, critical or ordered: entered once the thread has it */
void scorep_omp_block_begin(scorep_omp_construct block, const void* site);
void scorep_omp_block_end(scorep_omp_construct block);
/* a critical section taken or about to be given up (kind
 * SCOREP_THREAD_OMP_ACQUIRE_LOCK or _RELEASE_LOCK): the trace's lock event
 * of its lock, a named section's (name: libgomp's pointer of the name) or
 * the one of every unnamed section (NULL) */
void scorep_omp_critical_lock(scorep_thread_event_kind kind, void** name);
/* an explicit barrier's call (or a single construct's implicit one) */
void scorep_omp_barrier_begin(const void* site);
void scorep_omp_barrier_end(void);
/* a worksharing construct ends: with barrier, the call is its implicit barrier */
void scorep_omp_construct_end_begin(int barrier, const void* site);
void scorep_omp_construct_end_end(int barrier);
/* A created task's argument block: the bytes its creating wrapper puts
 * on its stack for it (1: the task is left as it is), and the block made
 * there, with the task's function, data, copy function, size and
 * alignment changed to the adapter's (runtime/omp_adapter/omp_adapter.c) */
size_t scorep_omp_task_block_size(long arg_size, long arg_align, int has_copy);
void scorep_omp_task_wrap(char* block, size_t size, const void* site, void (**fn)(void*), void** data,
                          void (**cpyfn)(void*, void*), long* arg_size, long* arg_align);
/* the section a sections construct gave the thread (0: none left) */
void scorep_omp_section_next(unsigned section, const void* site);

/* The pragma lines the compiler instrumentation plugin hands the adapter
 * (omp_sites.c, scorep_omp_sites.h). construct's region "@file:line",
 * with name a named critical section's "!$omp critical (name) @file:line" */
scorep_region scorep_omp_region_named(scorep_omp_construct construct, const char* file, int line,
                                      const char* name);
/* the region of the thread's next construct after its pragma, if the
 * plugin announced one of construct's kind (else SCOREP_INVALID_ID); call:
 * the program's call of the entry point, which owns the site once it took
 * it */
scorep_region scorep_omp_site_region(scorep_omp_construct construct, const void* call);
int scorep_omp_site_pending(scorep_omp_construct construct, const void* call);
/* SCOREP_OMP_FOR if the announced parallel region is a combined loop that
 * GCC computes inline (no combined entry point says so) */
scorep_omp_construct scorep_omp_site_combined(void);
/* whether the announced loop is a combined parallel loop's that starts
 * with its own call: it stays open until the team ends */
int scorep_omp_site_combined_loop(void);
void scorep_omp_site_clear(void);
/* a construct without a runtime call, entered and left on the thread */
void scorep_omp_inline_begin(scorep_omp_construct construct, scorep_region region);
void scorep_omp_inline_end(scorep_omp_construct construct);

#ifdef __cplusplus
}
#endif

#endif /* SCOREP_OMP_ADAPTER_H */
