/* Sampling with unwinding (SCOREP_ENABLE_UNWINDING, SCOREP_SAMPLING_EVENTS):
 * each thread is interrupted on its own CPU-time clock and its stack
 * unwound down to the innermost region the measurement has open; the frames
 * found (code addresses, outermost first) reach the substrates' sample
 * callback. At every enter, the frames between the enclosing open region
 * and the one entered are unwound too, for the substrates' enter (in
 * loc->unwind): so instrumented regions and the functions samples see make
 * one calling-context tree. Addresses are named at the end
 * (util/code_names.c), never in the signal handler. */
#ifndef SCOREP_WRAPGEN_SAMPLING_H
#define SCOREP_WRAPGEN_SAMPLING_H

#include "internal.h"
#include "event_state.h"

#define SCOREP_SAMPLE_FRAMES_MAX 128
#define SCOREP_ENTER_FRAMES_MAX 64

typedef struct scorep_unwind_state {
    /* for each open region of the location, by depth: how deep the frame
     * that entered it (the wrapper, the instrumented function) is, counted
     * from the outermost frame; the frames deeper than that run inside the
     * region (UINT32_MAX: not known, the stack was too deep) */
    uint32_t outer_depth[SCOREP_STACK_MAX];
    /* the frames between the enclosing open region and the region entered
     * last, outermost first, as code addresses (a call's address is the
     * byte before its return address); none where the enclosing region
     * keeps its inside hidden */
    uint32_t enter_frame_count;
    uintptr_t enter_frames[SCOREP_ENTER_FRAMES_MAX];
} scorep_unwind_state;

/* SCOREP_ENABLE_UNWINDING took effect; hidden: read on the event path */
extern int scorep_unwinding __attribute__((visibility("hidden")));

/* Reads the variables, opens libunwind, installs the signal handler and
 * starts the calling (main) thread's timer. Once, at the start, before the
 * first location is made. location_of_thread: the calling thread's
 * location for a sample (the event layer's scorep_events_sample_location),
 * called in the signal handler. */
void scorep_sampling_init(scorep_location* (*location_of_thread)(void));
/* loc's unwinding state (from the arena), when unwinding is on */
void scorep_sampling_location_created(scorep_location* loc);
/* the calling thread will record: its timer starts (once) */
void scorep_sampling_thread_begins(void);
/* the calling thread records no more: its timer is deleted */
void scorep_sampling_thread_ends(void);
/* recording ended: every thread's timer is deleted, samples end */
void scorep_sampling_end(void);

/* The enter of region at depth slot (events.c, before the substrates see
 * it): where it begins on the stack, and the frames between it and the
 * enclosing region. On loc's thread, inside the measurement. */
void scorep_unwind_enter(scorep_location* loc, uint32_t slot, scorep_region region, int unwound)
    __attribute__((visibility("hidden"), noinline));
/* The calling thread's stack unwound for the enter that follows, before it
 * goes inside the measurement (a signal handler's events meanwhile are
 * recorded, not passed over): 1 if it was, and the enter takes it
 * (unwound); 0 where another enter's unwinding on this thread is not yet
 * taken (this one, in a signal handler, interrupted it). release: the
 * caller is done, the thread may unwind again. */
int scorep_unwind_prepare(void) __attribute__((visibility("hidden"), noinline));
void scorep_unwind_release(void) __attribute__((visibility("hidden")));
/* A fork on loc (scorep_thread_fork): the frames between the innermost
 * open region and the fork's caller, into the enter frames, where the
 * team's members continue the forker's call path (the profile's fork
 * takes them: the forker's own region enter that follows has the same). */
void scorep_unwind_fork(scorep_location* loc) __attribute__((visibility("hidden"), noinline));
/* a thread's start routine's trampoline calls the measurement: the next
 * enter on this thread (the routine's region, entered later) begins at
 * the trampoline, with no frames outside; its timer starts */
void scorep_unwind_thread_starts(void) __attribute__((visibility("hidden")));

#endif
