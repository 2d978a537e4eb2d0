/* Sampling with unwinding (sampling.h). Each thread has its own POSIX timer
 * on its CPU-time clock (CLOCK_THREAD_CPUTIME_ID) that signals that thread
 * alone (SIGEV_THREAD_ID), so every thread of a threaded program is sampled
 * where it runs. The signal is the highest real-time signal nobody handles
 * at the start, not SIGPROF (Score-P's): a program that profiles itself
 * with setitimer, or runs under gprof, keeps SIGPROF to itself. libunwind
 * (Debian's libunwind8, opened at the start so that no library of the
 * measurement links it) unwinds the
 * interrupted stack in the handler, which allocates nothing and takes no
 * lock: the frames go to the substrates (the profile's calling-context
 * nodes come from the arena). A sample that interrupts the measurement
 * itself is counted and dropped: the structures it would change are in
 * the middle of a change. */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sampling.h"
#include "config.h"
#include "definitions.h"
#include "signals.h"
#include "substrates.h"
#include "timer.h"

int scorep_unwinding;

#if SCOREP_HAVE_LIBUNWIND
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#define NAME_OF_(f) #f
#define NAME_OF(f) NAME_OF_(f)   /* the library's symbol of a libunwind macro */

/* unw_backtrace alone: its fast path (a per-thread cache of each code
 * address's frame layout) takes neither a lock nor a system call once an
 * address has been seen, where unw_init_local2 and unw_step block and
 * unblock signals several times per frame (70 us a sample here, against
 * under 1 us) */
static int (*backtrace_fn)(void**, int);

static int open_libunwind(char* why, size_t size)
{
    void* lib = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        snprintf(why, size, "libunwind.so.8 cannot be opened (%s; Debian's package libunwind8)", dlerror());
        return 0;
    }
    backtrace_fn = (__typeof__(backtrace_fn))dlsym(lib, "unw_backtrace");
    if (!backtrace_fn) {
        snprintf(why, size, "libunwind.so.8 lacks unw_backtrace");
        return 0;
    }
    /* per-thread caches: the handler never waits for another thread's */
    int (*caching)(unw_addr_space_t, unw_caching_policy_t) =
        (__typeof__(caching))dlsym(lib, NAME_OF(unw_set_caching_policy));
    unw_addr_space_t* local = (unw_addr_space_t*)dlsym(lib, NAME_OF(unw_local_addr_space));
    if (caching && local) caching(*local, UNW_CACHE_PER_THREAD);
    return 1;
}
#endif

/* ---- which regions show what runs inside them ----
 * Score-P's rule: a sample inside a library call the measurement wraps
 * (MPI, I/O, a wrapped library, an allocation, a lock) is a hit of the
 * call, its internals stay hidden; inside a function or user region, a
 * thread's start routine or an OpenMP construct with the program's code in
 * it, the functions the program calls join the tree. Decided at the
 * region's enter, read by the handler. */
enum { INSIDE_UNKNOWN, INSIDE_SHOWN, INSIDE_HIDDEN };
static uint8_t inside_of[SCOREP_MAX_REGIONS];

static int shows_inside(const scorep_region_def* def)
{
    switch (def->paradigm) {
    case SCOREP_PARADIGM_USER:
    case SCOREP_PARADIGM_COMPILER:
    case SCOREP_PARADIGM_MEASUREMENT:
    case SCOREP_PARADIGM_SAMPLING: return 1;
    case SCOREP_PARADIGM_PTHREAD: return def->role == SCOREP_ROLE_FUNCTION;   /* a start routine */
    case SCOREP_PARADIGM_OPENMP:
        switch (def->role) {
        case SCOREP_ROLE_PARALLEL: case SCOREP_ROLE_LOOP: case SCOREP_ROLE_SECTIONS: case SCOREP_ROLE_SECTION:
        case SCOREP_ROLE_SINGLE_SBLOCK: case SCOREP_ROLE_CRITICAL_SBLOCK: case SCOREP_ROLE_ORDERED_SBLOCK:
        case SCOREP_ROLE_MASTER: case SCOREP_ROLE_TASK: case SCOREP_ROLE_WORKSHARE: return 1;
        default: return 0;
        }
    default: return 0;
    }
}

static int region_shows_inside(scorep_region region)
{
    if (region >= SCOREP_MAX_REGIONS) return 0;
    if (inside_of[region] == INSIDE_UNKNOWN) {
        const scorep_region_def* def = scorep_region_get(region);
        inside_of[region] = def && !shows_inside(def) ? INSIDE_HIDDEN : INSIDE_SHOWN;
    }
    return inside_of[region] == INSIDE_SHOWN;
}

/* ---- the configuration ---- */

static int sampling_on;           /* samples are taken (the handler's gate) */
static long interval_us = 1000;   /* timer@<us> */
static int sample_signal;

/* the measurement's own code (the core library, when it is a shared one):
 * frames there are never a region's caller */
static uintptr_t own_code_begin, own_code_end;

static int find_own_code(struct dl_phdr_info* info, size_t size, void* data)
{
    (void)size;
    uintptr_t self = (uintptr_t)data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr)* ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        uintptr_t begin = info->dlpi_addr + ph->p_vaddr, end = begin + ph->p_memsz;
        if (self >= begin && self < end) {
            /* the executable itself (a static link): its code is the program's too */
            if (info->dlpi_name && info->dlpi_name[0]) own_code_begin = begin, own_code_end = end;
            return 1;
        }
    }
    return 0;
}

static inline int own_code(uintptr_t ip) { return ip >= own_code_begin && ip < own_code_end; }

/* ---- the threads' timers ---- */

/* Threads that end give their slot back, so that a program that makes
 * thread after thread is sampled on every one; at most TIMERS_MAX at once. */
#define TIMERS_MAX 4096
enum { SLOT_FREE, SLOT_CLAIMED, SLOT_ACTIVE };
static timer_t timers[TIMERS_MAX];
static int slot_state[TIMERS_MAX];
static uint32_t slots_seen;   /* slots beyond it were never used */
static __thread int thread_timer TLS_FAST = -1;   /* index in timers; -1: none */
static __thread int thread_timer_tried TLS_FAST;
static __thread uint64_t thread_last_sample TLS_FAST;
static __thread uint32_t thread_next_depth TLS_FAST;   /* a start routine's trampoline's, + 1 */
/* an enter's unwinding before it went inside the measurement: the stack
 * (innermost first), taken by the enter; busy until released, in_libunwind
 * while libunwind runs (a sample then is dropped: libunwind's per-thread
 * cache is not for two unwindings at once on one thread) */
static __thread struct {
    int busy, in_libunwind, truncated;
    uint32_t count;
    uintptr_t frames[SCOREP_SAMPLE_FRAMES_MAX];
} prepared TLS_FAST;
static uint64_t samples_in_measurement, samples_without_location;
static scorep_location* (*location_of_sample)(void);

static int claim_slot(void)
{
    for (uint32_t i = 0; i < TIMERS_MAX; i++) {
        int expected = SLOT_FREE;
        if (__atomic_compare_exchange_n(&slot_state[i], &expected, SLOT_CLAIMED, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED)) {
            uint32_t seen = __atomic_load_n(&slots_seen, __ATOMIC_RELAXED);
            while (seen <= i && !__atomic_compare_exchange_n(&slots_seen, &seen, i + 1, 0, __ATOMIC_RELAXED,
                                                             __ATOMIC_RELAXED)) {
            }
            return (int)i;
        }
    }
    return -1;
}

static void start_thread_timer(void)
{
    thread_timer_tried = 1;
    int slot = claim_slot();
    if (slot < 0) {
        static int warned;
        if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
            scorep_warning("SCOREP_ENABLE_UNWINDING: more than %d threads at once; the further ones are not "
                           "sampled", TIMERS_MAX);
        return;
    }
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = sample_signal;
    sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
    if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &timers[slot]) != 0) {
        __atomic_store_n(&slot_state[slot], SLOT_FREE, __ATOMIC_RELEASE);
        static int warned;
        if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
            scorep_warning("SCOREP_ENABLE_UNWINDING: a thread's timer could not be made (timer_create: %s); "
                           "that thread is not sampled", strerror(errno));
        return;
    }
    struct itimerspec every = {{interval_us / 1000000, (interval_us % 1000000) * 1000},
                               {interval_us / 1000000, (interval_us % 1000000) * 1000}};
    timer_settime(timers[slot], 0, &every, NULL);
    __atomic_store_n(&slot_state[slot], SLOT_ACTIVE, __ATOMIC_RELEASE);
    thread_timer = slot;
}

/* the slot's timer deleted by whoever comes first: its thread's end or the
 * end of recording */
static void stop_slot(int slot)
{
    int expected = SLOT_ACTIVE;
    if (__atomic_compare_exchange_n(&slot_state[slot], &expected, SLOT_CLAIMED, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_RELAXED)) {
        timer_delete(timers[slot]);
        __atomic_store_n(&slot_state[slot], SLOT_FREE, __ATOMIC_RELEASE);
    }
}

void scorep_sampling_thread_begins(void)
{
    if (!thread_timer_tried && sampling_on) start_thread_timer();
}

void scorep_sampling_thread_ends(void)
{
    if (thread_timer >= 0) stop_slot(thread_timer);
    thread_timer = -1;
    thread_timer_tried = 0;   /* a later location of this thread is sampled again */
}

void scorep_sampling_end(void)
{
    if (!sampling_on) return;
    sampling_on = 0;
    uint32_t n = __atomic_load_n(&slots_seen, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n && i < TIMERS_MAX; i++) stop_slot((int)i);
    if (samples_in_measurement || samples_without_location)
        scorep_verbose("sampling: %llu samples interrupted the measurement itself, %llu came on a thread "
                       "without a location; neither was recorded",
                       (unsigned long long)samples_in_measurement, (unsigned long long)samples_without_location);
}

/* ---- the signal handler ---- */

#if SCOREP_HAVE_LIBUNWIND
/* the code addresses of the calling thread's stack, innermost first (a
 * call's address is the byte before its return address); *truncated if
 * the stack is deeper than size */
static uint32_t stack_here(uintptr_t* frames, uint32_t size, int* truncated)
{
    int n = backtrace_fn((void**)frames, (int)size);
    if (n < 0) n = 0;
    *truncated = (uint32_t)n == size;
    for (int i = 0; i < n; i++) frames[i]--;
    return (uint32_t)n;
}

static void take_sample(scorep_location* loc, void* context)
{
    scorep_unwind_state* u = loc->unwind;
    const scorep_event_state* es = loc->events;
    uint32_t depth = es->depth;
    uint32_t outer = 0;   /* the innermost region's entering frame's depth from the outermost */
    int show = 1;
    if (depth > 0 && depth <= SCOREP_STACK_MAX) {
        outer = u->outer_depth[depth - 1];
        scorep_region region = es->stack[depth - 1];
        show = region >= SCOREP_MAX_REGIONS || inside_of[region] != INSIDE_HIDDEN;
    }
    uintptr_t stack[SCOREP_SAMPLE_FRAMES_MAX];
    uintptr_t* frames = stack;
    uint32_t n = 0;
#if defined(__x86_64__)
    if (show && outer != UINT32_MAX) {
        int truncated;
        uint32_t all = stack_here(stack, SCOREP_SAMPLE_FRAMES_MAX, &truncated);
        /* the interrupted instruction, below the handler's frames and the signal's */
        uintptr_t interrupted = (uintptr_t)((ucontext_t*)context)->uc_mcontext.gregs[REG_RIP];
        uint32_t first = 0;
        while (first < all && stack[first] + 1 != interrupted) first++;
        if (first < all && !truncated) {
            stack[first] = interrupted;
            uint32_t program = all - first;
            n = program > outer ? program - outer : 0;
            frames = stack + first;
        }
    }
#else
    (void)context;
#endif
    for (uint32_t i = 0; i < n / 2; i++) {
        uintptr_t f = frames[i];
        frames[i] = frames[n - 1 - i];
        frames[n - 1 - i] = f;
    }
    /* the time since the thread's last sample or event, whichever is later:
     * a sample's time never reaches across a recorded enter or exit */
    uint64_t now = scorep_timer_read();
    uint64_t since = thread_last_sample > loc->last_ticks ? thread_last_sample : loc->last_ticks;
    uint64_t ticks = now > since ? now - since : 0;
    thread_last_sample = now;
    const scorep_dispatch* d = &scorep_dispatch_now;
    for (int s = 0; s < d->count; s++)
        if (d->substrates[s]->sample) d->substrates[s]->sample(loc, now, frames, n, ticks);
}
#endif

static void on_sample_signal(int sig, siginfo_t* info, void* context)
{
    (void)sig; (void)info;
    int saved_errno = errno;
    if (!sampling_on || !scorep_recording) goto out;
    if ((scorep_thread_event_generation_off & SCOREP_INSIDE_MEASUREMENT) || prepared.in_libunwind) {
        __atomic_fetch_add(&samples_in_measurement, 1, __ATOMIC_RELAXED);
        goto out;
    }
    scorep_location* loc = location_of_sample();
    if (loc == NULL || loc->unwind == NULL || loc->events == NULL) {
        __atomic_fetch_add(&samples_without_location, 1, __ATOMIC_RELAXED);
        goto out;
    }
#if SCOREP_HAVE_LIBUNWIND
    int was = scorep_inside_begin();
    take_sample(loc, context);
    scorep_inside_end(was);
#else
    (void)context;
#endif
out:
    errno = saved_errno;
}

/* ---- enters ---- */

/* The depth, counted from the outermost frame, of the frame that called
 * into the measurement (the first one outside its library, or for a static
 * link the first one the stack shows) in a stack of count code addresses,
 * innermost first; UINT32_MAX where the stack was deeper than the room for
 * it (truncated). *at: that frame's index. */
static uint32_t caller_depth(const uintptr_t* frames, uint32_t count, int truncated, uint32_t* at)
{
    uint32_t i = 0;
    while (i < count && own_code(frames[i])) i++;
    *at = i;
    return truncated ? UINT32_MAX : count - i;
}

/* the calling thread's stack into frames (room for SCOREP_SAMPLE_FRAMES_MAX),
 * libunwind marked busy meanwhile; its count */
static uint32_t unwind_here(uintptr_t* frames, int* truncated)
{
#if SCOREP_HAVE_LIBUNWIND
    prepared.in_libunwind = 1;
    uint32_t n = stack_here(frames, SCOREP_SAMPLE_FRAMES_MAX, truncated);
    prepared.in_libunwind = 0;
    return n;
#else
    (void)frames;
    *truncated = 1;
    return 0;
#endif
}

void scorep_unwind_thread_starts(void)
{
    if (!scorep_unwinding) return;
    uintptr_t frames[SCOREP_SAMPLE_FRAMES_MAX];
    int truncated;
    uint32_t count = unwind_here(frames, &truncated), at;
    uint32_t depth = caller_depth(frames, count, truncated, &at);
    thread_next_depth = depth == UINT32_MAX ? 0 : depth + 1;
    scorep_sampling_thread_begins();
}

int scorep_unwind_prepare(void)
{
    /* in the program's signal handler: not at all (scorep_unwind_enter says why) */
    if (prepared.busy || scorep_signals_program_handler_running()) return 0;
    prepared.busy = 1;
    prepared.count = unwind_here(prepared.frames, &prepared.truncated);
    return 1;
}

void scorep_unwind_release(void) { prepared.busy = 0; }

/* The frames from the caller of the measurement up to the enclosing open
 * region (the one at depth slot - 1; none: the whole stack), outermost
 * first, into loc's enter frames, where frames show (the enclosing region
 * shows its inside, and the event is not a team member's first in its
 * part, whose call path is the forker's). unwound: the stack is the one
 * scorep_unwind_prepare took, else it is unwound here. Returns the
 * caller's depth from the outermost frame (UINT32_MAX: not known). */
static uint32_t unwind_to_enclosing(scorep_location* loc, uint32_t slot, int unwound)
{
    scorep_unwind_state* u = loc->unwind;
    uintptr_t here[SCOREP_SAMPLE_FRAMES_MAX];
    const uintptr_t* frames = prepared.frames;
    uint32_t count = prepared.count, at;
    int truncated = prepared.truncated;
    if (!unwound) {
        frames = here;
        count = unwind_here(here, &truncated);
    }
    uint32_t depth = caller_depth(frames, count, truncated, &at);
    if (depth == UINT32_MAX) return depth;
    if (loc->team_member != 0 && loc->team_parts > 0 &&
        slot <= loc->team_part_depth[loc->team_parts <= SCOREP_TEAM_LEVELS_MAX ? loc->team_parts - 1
                                                                               : SCOREP_TEAM_LEVELS_MAX])
        return depth;
    uint32_t outer = 0;
    if (slot > 0 && slot <= SCOREP_STACK_MAX) {
        if (!region_shows_inside(loc->events->stack[slot - 1])) return depth;
        outer = u->outer_depth[slot - 1];
    }
    if (outer == UINT32_MAX || depth <= outer) return depth;
    uint32_t n = depth - outer;
    if (n > SCOREP_ENTER_FRAMES_MAX) n = SCOREP_ENTER_FRAMES_MAX;
    /* outermost first: from the enclosing region's frame inwards */
    for (uint32_t i = 0; i < n; i++) u->enter_frames[i] = frames[at + (depth - outer) - 1 - i];
    u->enter_frame_count = n;
    return depth;
}

void scorep_unwind_enter(scorep_location* loc, uint32_t slot, scorep_region region, int unwound)
{
    scorep_unwind_state* u = loc->unwind;
    if (u == NULL) return;
    u->enter_frame_count = 0;
    scorep_sampling_thread_begins();
    region_shows_inside(region);   /* decided here, read by the handler */
    if (slot >= SCOREP_STACK_MAX) return;
    if (thread_next_depth) {
        u->outer_depth[slot] = thread_next_depth - 1;
        thread_next_depth = 0;
        return;
    }
    /* the program region holds all of the program: nothing outside it */
    if (region == scorep_program_region) {
        u->outer_depth[slot] = 0;
        return;
    }
    /* Inside a handler of the program's signal, which runs on the
     * measurement's alternate signal stack (util/signals.c), libunwind
     * leaves its cached fast path: 70 us an enter, more than a 20 us
     * timer's period, and such a program stood still. Nor while another
     * enter's unwinding on this thread is not yet taken (this one
     * interrupted it). The region stands under the one it interrupted,
     * and extends as far as it does. */
    if (UNLIKELY(scorep_signals_program_handler_running()) || (!unwound && prepared.busy)) {
        u->outer_depth[slot] = slot > 0 ? u->outer_depth[slot - 1] : 0;
        return;
    }
    u->outer_depth[slot] = unwind_to_enclosing(loc, slot, unwound);
}

void scorep_unwind_fork(scorep_location* loc)
{
    scorep_unwind_state* u = loc->unwind;
    if (u == NULL) return;
    u->enter_frame_count = 0;
    if (prepared.busy || scorep_signals_program_handler_running()) return;   /* as at an enter */
    unwind_to_enclosing(loc, loc->events->depth, 0);
}

void scorep_sampling_location_created(scorep_location* loc)
{
    if (!scorep_unwinding) return;
    scorep_unwind_state* u = scorep_arena_alloc(sizeof *u);
    if (u == NULL) return;
    memset(u->outer_depth, 0, sizeof u->outer_depth);
    u->enter_frame_count = 0;
    loc->unwind = u;
}

/* an entry of SCOREP_SAMPLING_EVENTS: timer@<microseconds>, the only
 * source so far */
static int valid_sources;
static void sampling_source(const char* entry)
{
    const char* at = strchr(entry, '@');
    size_t name_length = at ? (size_t)(at - entry) : strlen(entry);
    if (name_length != 5 || strncmp(entry, "timer", 5) != 0) {
        scorep_warning_all_ranks("SCOREP_SAMPLING_EVENTS: '%s' is no sampling source this measurement has; valid: "
                                 "timer@<microseconds> (the thread's CPU time); not sampled", entry);
        return;
    }
    if (at) {
        char* end;
        long us = strtol(at + 1, &end, 10);
        if (*end || us <= 0) {
            scorep_warning_all_ranks("SCOREP_SAMPLING_EVENTS: '%s': the interval after '@' must be a positive "
                                     "number of microseconds; not sampled", entry);
            return;
        }
        interval_us = us;
    }
    valid_sources++;
}

void scorep_sampling_init(scorep_location* (*location_of_thread)(void))
{
    location_of_sample = location_of_thread;
    if (!scorep_cfg.enable_unwinding) return;
    /* set but empty: the default source */
    if (!scorep_cfg.sampling_events[0]) valid_sources = 1;
    scorep_config_for_each_entry(scorep_cfg.sampling_events, scorep_cfg.sampling_sep, sampling_source);
    if (valid_sources > 1)
        scorep_warning_all_ranks("SCOREP_SAMPLING_EVENTS: one timer source is used (the last, every %ld us)",
                                 interval_us);
    if (valid_sources == 0) {
        scorep_warning_all_ranks("SCOREP_ENABLE_UNWINDING: no valid source in SCOREP_SAMPLING_EVENTS='%s'; "
                                 "no sampling", scorep_cfg.sampling_events);
        return;
    }
    char why[512] = "";
#if SCOREP_HAVE_LIBUNWIND
    if (!open_libunwind(why, sizeof why)) {
        scorep_warning_all_ranks("SCOREP_ENABLE_UNWINDING: %s; no sampling", why);
        return;
    }
#else
    scorep_warning_all_ranks("SCOREP_ENABLE_UNWINDING: this measurement was built without libunwind's header "
                             "(Debian's libunwind-dev); no sampling");
    return;
#endif
    /* the C library keeps the lowest real-time signals; from the top down,
     * the first one with no handler */
    for (int s = SIGRTMAX - 1; s >= SIGRTMIN + 2 && !sample_signal; s--) {
        struct sigaction old;
        if (sigaction(s, NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL)
            sample_signal = s;
    }
    if (!sample_signal) {
        scorep_warning_all_ranks("SCOREP_ENABLE_UNWINDING: every real-time signal has a handler already; "
                                 "no signal is left for the samples: no sampling");
        return;
    }
    dl_iterate_phdr(find_own_code, (void*)(uintptr_t)&scorep_sampling_init);
    struct sigaction act;
    memset(&act, 0, sizeof act);
    act.sa_sigaction = on_sample_signal;
    act.sa_flags = SA_SIGINFO | SA_RESTART;
    /* the program's own signals wait the few microseconds of a sample: its
     * handler's calls would otherwise land inside the measurement's work
     * and pass unrecorded */
    sigfillset(&act.sa_mask);
    if (sigaction(sample_signal, &act, NULL) != 0) {
        scorep_warning_all_ranks("SCOREP_ENABLE_UNWINDING: the handler of signal %d cannot be set (%s); "
                                 "no sampling", sample_signal, strerror(errno));
        return;
    }
    /* libunwind's first unwinding on a thread sets up its caches: here, not
     * inside the first region the program enters */
    uintptr_t warm[SCOREP_SAMPLE_FRAMES_MAX];
    int truncated;
    unwind_here(warm, &truncated);
    scorep_unwinding = 1;
    sampling_on = 1;
    start_thread_timer();
}
