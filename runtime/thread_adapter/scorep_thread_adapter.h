/* The support header of the generated POSIX threads adapter
 * (generated/thread/pthread/, from pthread.h and tasks/pthread.json by
 * generator/system_backend.py): what its wrappers and task snippets
 * (tasks/thread_*.c.j2) need besides the library wrapper API.
 *
 * The measurement takes locks of its own (region definitions, a thread's
 * first location, trace memory). With the run-time wrappers its calls of
 * pthread_mutex_lock reach these wrappers, and recording one would enter
 * the core again from inside the core: the region definition of the very
 * wrapper that asks for it would recurse, a location being created would
 * be created twice. So these wrappers record a call only where no core
 * work can be under way on the thread, and say so by two replacements of
 * the skeleton's names (made here, after libwrap.h declared the originals):
 *   scorep_libwrap_should_record  also false inside any recorded library call
 *                                 (the core's event path runs there, between
 *                                 scorep_libwrap_begin's depth++ and its
 *                                 enter), whatever SCOREP_LIBWRAP_NESTED says
 *   scorep_libwrap_region_as      defines the region with event generation off
 *                                 on the thread, so that the definition's own
 *                                 lock is the C library's, unrecorded
 * The core's other slow paths outside any wrapper (a thread's first event,
 * runtime/core/location.c) run with event generation off themselves. */
#ifndef SCOREP_THREAD_ADAPTER_H
#define SCOREP_THREAD_ADAPTER_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <pthread.h>
#include <stdint.h>

#include <scorep_wrapgen/libwrap.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What pthread_create's wrapper hands the new thread: the program's start
 * routine and argument and the region named after the routine. */
typedef struct scorep_thread_start scorep_thread_start;

/* A start record for start(arg) created by the code at caller, or NULL
 * (out of memory, or a thread of an OpenMP runtime while the OpenMP
 * adapter is in the process, whose team parts record on their team
 * locations: the thread then runs start(arg) unmeasured by the
 * trampoline, as without measurement). */
scorep_thread_start* scorep_thread_start_new(void* (*start)(void*), void* arg, const void* caller);
/* Frees a record no thread took (pthread_create failed). */
void scorep_thread_start_free(scorep_thread_start* start);
/* The thread of start is about to be created: its ThreadCreate on the
 * calling thread (before the C library's pthread_create, so that it comes
 * before the new thread's ThreadBegin); returns the thread's number (0 for
 * a thread that runs unmeasured: no events). */
uint64_t scorep_thread_created(const scorep_thread_start* start);
/* pthread_create succeeded: thread has that number, which its joiner's
 * ThreadWait names (scorep_thread_joined). */
void scorep_thread_started(pthread_t thread, uint64_t sequence);
/* pthread_join of thread succeeded: its ThreadWait on the calling thread. */
void scorep_thread_joined(pthread_t thread);
/* The start routine pthread_create is given instead of the program's: takes
 * a scorep_thread_start, enters its region (the new thread's first event,
 * which makes its location), runs the program's routine, leaves. */
void* scorep_thread_trampoline(void* start);
/* Leaves the region of the thread's start routine if the trampoline entered
 * it and it is still open (pthread_exit's wrapper, then the trampoline),
 * and records the thread's ThreadEnd. */
void scorep_thread_leave_start(void);

/* The trace's lock events of a pthread mutex, as Score-P records them:
 * acquired after pthread_mutex_lock or a pthread_mutex_trylock that
 * succeeded, and after pthread_cond_(timed)wait took it again; releasing
 * before pthread_mutex_unlock and before pthread_cond_(timed)wait gives it
 * up. Each names the mutex's number in the process and its acquisition
 * (thread_adapter.c). */
void scorep_thread_mutex_acquired(const pthread_mutex_t* mutex);
void scorep_thread_mutex_releasing(const pthread_mutex_t* mutex);

/* See above: no recording inside recorded library calls (nor, as always,
 * where event generation is off). */
static inline int scorep_thread_should_record(void)
{
    return __builtin_expect(scorep_thread_event_generation_off == 0, 1) &&
           __builtin_expect(scorep_libwrap_thread_depth == 0, 1);
}

scorep_region scorep_thread_region_as(const scorep_libwrap_library* lib, const char* region_name,
                                      const char* file, const char* symbol, scorep_paradigm paradigm,
                                      scorep_region_role role);

#ifndef SCOREP_THREAD_ADAPTER_SUPPORT
#define scorep_libwrap_should_record scorep_thread_should_record
#define scorep_libwrap_region_as scorep_thread_region_as
#endif

#ifdef __cplusplus
}
#endif

#endif /* SCOREP_THREAD_ADAPTER_H */
