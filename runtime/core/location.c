/* Locations: one per live thread, created on the thread's first event. The
 * thread-local pointer makes the event path lock-free; the process list
 * (append under a lock, read without) keeps the data of threads that ended.
 *
 * A thread that ends with no region open hands its location back (a pthread
 * key destructor, on the ending thread itself): the next new thread takes it
 * instead of a new one, as Score-P reuses the locations of ended threads. So
 * a program that starts 10,000 short-lived threads a few at a time has a few
 * locations, not 10,000 (each with its own profile tree, trace block and
 * .evt file, which readers must open all at once). A reused location goes
 * on where the ended thread stopped: its profile tree accumulates, its trace
 * continues with later timestamps. A thread that ends inside a region keeps
 * its location to itself: finalisation closes its regions at the end of
 * the run, as for a thread still running then.
 *
 * A thread records nothing once it has handed its location back: what runs
 * on it after the key destructor (other keys' destructors, the loader
 * freeing the thread's TLS through the memory adapter's free) would
 * otherwise take a location again that no destructor hands back, one per
 * thread for ever. A thread the thread adapter started hands it back at its
 * ThreadEnd already (scorep_location_thread_ends), so that the ThreadEnd is
 * its last event. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "event_state.h"
#include "internal.h"
#include "location.h"
#include "sampling.h"
#include "strict_metrics.h"
#include "substrates.h"
#include "timer.h"

__thread scorep_location* scorep_tls_location TLS_FAST;
__thread scorep_location* scorep_location_parked TLS_FAST;

static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static scorep_location* volatile list_head;
static volatile uint32_t location_count;

/* Locations of ended threads, a stack (the last one ended is taken first:
 * its memory is the warmest); under list_lock, taken once per thread, never
 * per event. */
static scorep_location** ended;
static uint32_t ended_count, ended_capacity;

/* set on a thread that handed its location back: it takes none again */
static __thread int thread_done TLS_FAST;

static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static pthread_key_t thread_key;
static int key_ok;

static void thread_ended(void* data);

static void create_key(void)
{
    key_ok = pthread_key_create(&thread_key, thread_ended) == 0;
}

/* A reused location's next event must not be stamped before the ended
 * thread's last one: the clock is read on another core now, and invariant
 * TSCs of two cores may differ by a few cycles. Waits at most that long
 * (bounded: an injected test clock may stand still). */
static void wait_past(uint64_t last_ticks)
{
    for (int i = 0; i < 100000 && scorep_timer_read() <= last_ticks; i++)
        ;
}

/* appended to the process list, with its first timestamp */
static scorep_location* new_location(void)
{
    scorep_location* loc = scorep_arena_alloc(sizeof *loc);
    if (loc == NULL)
        return NULL;
    pthread_mutex_lock(&list_lock);
    loc->local_id = location_count;
    loc->creator = SCOREP_INVALID_ID;
    loc->next = list_head;
    __atomic_store_n(&list_head, loc, __ATOMIC_RELEASE);
    __atomic_store_n(&location_count, location_count + 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&list_lock);
    loc->begin_ticks = loc->last_ticks = scorep_timer_read();
    return loc;
}

static scorep_location* take_ended(void)
{
    return ended_count > 0 ? ended[--ended_count] : NULL;
}

/* false if out of memory: the location is not reused then */
static bool put_ended(scorep_location* loc)
{
    if (ended_count == ended_capacity) {
        uint32_t capacity = ended_capacity ? 2 * ended_capacity : 64;
        scorep_location** grown = scorep_arena_alloc(capacity * sizeof *grown);
        if (grown == NULL)
            return false;
        if (ended_count)
            memcpy(grown, ended, ended_count * sizeof *grown);
        scorep_arena_release(ended, ended_capacity * sizeof *ended);
        ended = grown;
        ended_capacity = capacity;
    }
    ended[ended_count++] = loc;
    return true;
}

/* Runs with event generation off on the thread: its locks and allocations
 * are the measurement's, and run-time wrappers of pthread_mutex_lock or
 * malloc (the system adapters) must neither record them nor, by recording,
 * ask for this thread's location again while it is being made. Its memory
 * is the arena's: a thread's first event may be in a signal handler. */
scorep_location* scorep_location_create_for_thread(void)
{
    if (thread_done)
        return NULL;
    int was_off = scorep_inside_begin();
    pthread_once(&key_once, create_key);
    pthread_mutex_lock(&list_lock);
    scorep_location* loc = take_ended();
    pthread_mutex_unlock(&list_lock);
    if (loc != NULL)
        wait_past(loc->last_ticks);
    else
        loc = new_location();
    scorep_tls_location = loc;
    if (key_ok)
        pthread_setspecific(thread_key, loc);
    if (loc->events == NULL) {
        loc->events = scorep_arena_alloc(sizeof(scorep_event_state));
        scorep_strict_metrics_location_created(loc);
        scorep_sampling_location_created(loc);
        scorep_substrates_location_created(loc);
    }
    scorep_inside_end(was_off);
    return loc;
}

/* A team member's location belongs to no thread: the thread that runs the
 * member takes it for the team's time (events.c). Claimed with one
 * compare-and-swap per slot, so that a team's members do not wait for each
 * other's lock on every team begin; made under the list's lock once. */
scorep_location* scorep_location_team_member(scorep_location* forker, uint32_t level, uint32_t member)
{
    if (member == 0 || member >= SCOREP_TEAM_MEMBERS_MAX || level >= SCOREP_TEAM_LEVELS_MAX)
        return NULL;
    scorep_location** members = __atomic_load_n(&forker->team_members[level], __ATOMIC_ACQUIRE);
    if (UNLIKELY(members == NULL)) {
        scorep_location** made = scorep_arena_alloc(SCOREP_TEAM_MEMBERS_MAX * sizeof *made);
        if (made == NULL)
            return NULL;
        memset(made, 0, SCOREP_TEAM_MEMBERS_MAX * sizeof *made);
        scorep_location** expected = NULL;
        if (__atomic_compare_exchange_n(&forker->team_members[level], &expected, made, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE))
            members = made;
        else   /* another member made them first: this array stays unused in the arena */
            members = expected;
    }
    scorep_location* loc = __atomic_load_n(&members[member], __ATOMIC_ACQUIRE);
    if (LIKELY(loc != NULL))
        return loc;
    /* only the member's own thread asks for it while the team runs, and a
     * forker runs one team at a time: no other thread makes this slot */
    pthread_once(&key_once, create_key);
    loc = new_location();
    if (loc == NULL)
        return NULL;
    loc->team_member = member;
    loc->team_level = level;
    loc->creator = forker->local_id;
    loc->events = scorep_arena_alloc(sizeof(scorep_event_state));
    scorep_strict_metrics_location_created(loc);
    scorep_sampling_location_created(loc);
    scorep_substrates_location_created(loc);
    __atomic_store_n(&members[member], loc, __ATOMIC_RELEASE);
    return loc;
}

/* Runs on the ending thread, after its last event (pthread key destructors
 * run when the thread function has returned). A location with open regions
 * stays the thread's (finalisation closes them), as does any while the
 * measurement ends. The thread's pointer is reset before the location is
 * handed back: an event recorded later on this thread (in another
 * destructor) takes a location anew instead of writing into one that
 * another thread may hold by then. */
static bool hand_back(scorep_location* loc)
{
    const scorep_region* open;
    if (!scorep_recording || scorep_location_open_regions(loc, &open) != 0)
        return false;
    scorep_tls_location = NULL;
    int was_off = scorep_inside_begin();   /* as in scorep_location_create_for_thread */
    pthread_mutex_lock(&list_lock);
    bool handed_back = put_ended(loc);
    pthread_mutex_unlock(&list_lock);
    scorep_inside_end(was_off);
    if (!handed_back) {
        scorep_tls_location = loc;
    } else {
        thread_done = 1;
        scorep_strict_metrics_thread_ends();
        scorep_sampling_thread_ends();
    }
    return handed_back;
}

static void thread_ended(void* data)
{
    hand_back(data);
}

/* The thread's ThreadEnd was its last event: the location goes back now
 * (the key's destructor has nothing left to do), before the C library's
 * end of the thread runs code that could record. Called inside the
 * measurement, after the event. */
void scorep_location_thread_ends(scorep_location* loc)
{
    if (loc == scorep_tls_location && hand_back(loc) && key_ok)
        pthread_setspecific(thread_key, NULL);
}

scorep_location* scorep_location_current(void)
{
    scorep_location* loc = scorep_tls_location;
    if (loc) return loc;
    if (scorep_location_parked) return scorep_location_parked;
    return scorep_location_create_for_thread();
}

uint32_t scorep_thread_location_id(void)
{
    scorep_location* loc = scorep_tls_location ? scorep_tls_location : scorep_location_parked;
    return loc ? loc->local_id : SCOREP_INVALID_ID;
}

/* A reused location keeps its first thread's creator: the profile sums the
 * threads that held it, and threads started one after the other mostly
 * have the same creator. */
void scorep_thread_set_creator(uint32_t creator)
{
    scorep_location* loc = scorep_tls_location;
    if (loc && loc->creator == SCOREP_INVALID_ID && creator != loc->local_id)
        loc->creator = creator;
}

scorep_location* scorep_location_list(void) { return __atomic_load_n(&list_head, __ATOMIC_ACQUIRE); }
uint32_t scorep_location_count(void) { return __atomic_load_n(&location_count, __ATOMIC_ACQUIRE); }

uint32_t scorep_location_open_regions(const scorep_location* loc, const scorep_region** regions)
{
    const scorep_event_state* es = loc->events;
    *regions = es ? es->stack : NULL;
    if (!es) return 0;
    return es->depth < SCOREP_STACK_MAX ? es->depth : SCOREP_STACK_MAX;
}

uint64_t scorep_location_event_count(const scorep_location* loc)
{
    return loc->events ? loc->events->event_count : 0;
}
