/* The support header of the generated memory adapter (generated/memory/,
 * from tasks/memory.json by generator/system_backend.py): what its wrappers
 * and task snippets (tasks/memory_alloc.c.j2, tasks/memory_free.c.j2) need
 * besides the library wrapper API. The functions are in memory.c.
 *
 * Nothing here allocates through malloc: the address table is mmap-backed,
 * and while a wrapper runs its thread is marked busy, so that every
 * allocation made under it (dlsym's calloc while the wrapper resolves the C
 * library's function, the core's while it defines or enters the region) goes
 * straight to the C library's __libc_* functions without being recorded. The
 * core's own calls (their return address lies in libscorep_measurement.so)
 * take the same way. docs/MEMORY_ADAPTER.md. */
#ifndef SCOREP_MEMORY_ADAPTER_H
#define SCOREP_MEMORY_ADAPTER_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#undef _FORTIFY_SOURCE

#include <malloc.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <scorep_wrapgen/adapter.h>
#include <scorep_wrapgen/libwrap.h>   /* scorep_libwrap_end */

/* glibc's allocator under its own names: exported by libc.so.6 for
 * interposers like this one; no dlsym needed, so no bootstrap problem */
extern void* __libc_malloc(size_t size);
extern void* __libc_calloc(size_t count, size_t size);
extern void* __libc_realloc(void* ptr, size_t size);
extern void* __libc_memalign(size_t alignment, size_t size);
extern void* __libc_valloc(size_t size);
extern void __libc_free(void* ptr);

/* 1 while a memory wrapper runs on this thread */
extern __thread int scorep_memory_thread_busy __attribute__((tls_model("initial-exec")));
/* the address range of the measurement core; until the adapter's constructor
 * has found it, the range is everything (every call passes through) */
extern uintptr_t scorep_memory_core_begin __attribute__((visibility("hidden")));
extern uintptr_t scorep_memory_core_size __attribute__((visibility("hidden")));

/* Whether a call goes straight to the C library unrecorded: made inside a
 * memory wrapper of this thread, while the thread's event generation is off
 * (the core holds its definitions lock, starts or writes the measurement;
 * inside an MPI call), by the measurement core itself (caller: the call's
 * return address), or before the adapter is set up. */
static inline int scorep_memory_pass_through(const void* caller)
{
    return scorep_memory_thread_busy || scorep_thread_event_generation_off ||
           (uintptr_t)caller - scorep_memory_core_begin < scorep_memory_core_size;
}

static inline int scorep_memory_guard_enter(void) { return scorep_memory_thread_busy = 1; }
static inline void scorep_memory_guard_leave(int* guard) { (void)guard; scorep_memory_thread_busy = 0; }
/* marks the thread busy until the wrapper returns, on every return path */
#define SCOREP_MEMORY_GUARD \
    int scorep_memory_guard __attribute__((cleanup(scorep_memory_guard_leave), unused)) = scorep_memory_guard_enter()

/* operator new may throw std::bad_alloc: the exception unwinds through the
 * wrapper (compiled with -fexceptions), and this guard leaves the region the
 * wrapper entered unless its normal path did (the exit hook clears open). */
typedef struct scorep_memory_region_guard {
    scorep_region region;
    int open;
} scorep_memory_region_guard;
static inline void scorep_memory_unwind_guard_leave(scorep_memory_region_guard* g)
{
    if (g->open) scorep_libwrap_end(g->region);
}
#define SCOREP_MEMORY_UNWIND_GUARD(r)                                                       \
    scorep_memory_region_guard scorep_memory_unwind                                          \
        __attribute__((cleanup(scorep_memory_unwind_guard_leave))) = {(r), 1}

/* memory.c's functions: called only by the wrappers of the same library (or
 * of the same static archive), so directly, not through the PLT. */
#define SCOREP_MEMORY_HIDDEN __attribute__((visibility("hidden")))

/* A block taken out of the address table. */
typedef struct scorep_memory_block {
    uint64_t size;
    void* path;     /* the profile call path that allocated it */
    int found;
} scorep_memory_block;
/* realloc's attributes of its leave in the trace (memory.c) */
void scorep_memory_realloc_attributes(void* ptr, const scorep_memory_block* old, void* result, uint64_t size)
    SCOREP_MEMORY_HIDDEN;

/* posix_memalign for calls that pass through (glibc exports no
 * __libc_posix_memalign): its argument checks and results, on __libc_memalign */
SCOREP_MEMORY_HIDDEN int scorep_memory_posix_memalign_unrecorded(void** memptr, size_t alignment, size_t size);

/* The next definition of symbol after this adapter (dlsym(RTLD_NEXT)): the
 * operator new or delete a call passes on to unrecorded (libstdc++'s has no
 * __libc_ form). Aborts with a message naming the symbol if there is none. */
SCOREP_MEMORY_HIDDEN void* scorep_memory_next(const char* symbol);

/* A recorded allocation returned ptr of size bytes: into the table with the
 * current call path; the path's allocation_size grows by size. */
SCOREP_MEMORY_HIDDEN void scorep_memory_allocated(void* ptr, uint64_t size);
/* The end of a recorded allocation (the task's end hook, in place of
 * scorep_libwrap_end): as scorep_memory_allocated (when ptr is not NULL)
 * and the exit of region, in one call into the core (scorep_exit_metric):
 * the block enters the table with the call path of the visit it ends. */
SCOREP_MEMORY_HIDDEN void scorep_memory_allocated_exit(scorep_region region, void* ptr, uint64_t size);
static inline void scorep_memory_allocated_end(scorep_region region, void* ptr, uint64_t size)
{
    scorep_memory_allocated_exit(region, ptr, size);
    scorep_libwrap_thread_depth--;
}
/* Takes ptr's block out of the table (found 0 if it is not there). */
SCOREP_MEMORY_HIDDEN scorep_memory_block scorep_memory_take(void* ptr);
/* free of a block taken out of the table is recorded: the path's
 * deallocation_size grows by its size. */
SCOREP_MEMORY_HIDDEN void scorep_memory_freed(const scorep_memory_block* block);
/* The end of a recorded free (the task's end hook): as scorep_memory_freed
 * and scorep_libwrap_end, the size on the path of the visit it ends. */
SCOREP_MEMORY_HIDDEN void scorep_memory_freed_exit(scorep_region region, const scorep_memory_block* block);
static inline void scorep_memory_freed_end(scorep_region region, const scorep_memory_block* block)
{
    scorep_memory_freed_exit(region, block);
    scorep_libwrap_thread_depth--;
}
/* realloc(ptr, size) returned result; old is ptr's block, taken before. */
SCOREP_MEMORY_HIDDEN void scorep_memory_reallocated(void* ptr, const scorep_memory_block* old, void* result, uint64_t size);

#endif /* SCOREP_MEMORY_ADAPTER_H */
