/* Locations: one per thread, created on the thread's first event. The
 * thread-local pointer makes the event path lock-free; the process list
 * (append under a lock, read without) keeps the data of threads that ended. */
#include <pthread.h>
#include <stdlib.h>

#include "internal.h"
#include "timer.h"

__thread scorep_location* scorep_tls_location TLS_FAST;

static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static scorep_location* volatile list_head;
static volatile uint32_t location_count;

scorep_location* scorep_location_create_for_thread(void)
{
    scorep_location* loc = calloc(1, sizeof *loc);
    pthread_mutex_lock(&list_lock);
    loc->local_id = location_count;
    loc->next = list_head;
    __atomic_store_n(&list_head, loc, __ATOMIC_RELEASE);
    __atomic_store_n(&location_count, location_count + 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&list_lock);
    loc->begin_ticks = loc->last_ticks = scorep_timer_read();
    scorep_tls_location = loc;
    scorep_events_location_created(loc);
    return loc;
}

scorep_location* scorep_location_current(void)
{
    scorep_location* loc = scorep_tls_location;
    return loc ? loc : scorep_location_create_for_thread();
}

scorep_location* scorep_location_list(void) { return __atomic_load_n(&list_head, __ATOMIC_ACQUIRE); }
uint32_t scorep_location_count(void) { return __atomic_load_n(&location_count, __ATOMIC_ACQUIRE); }
