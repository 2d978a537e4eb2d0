/* The thread's event-generation flag (adapter.h), which is also the mark of
 * a thread inside the measurement (substrate.h, INSIDE_MEASUREMENT): the
 * lowest floor, read by every wrapper and every file of the core. */
#include "internal.h"

__thread int scorep_thread_event_generation_off TLS_FAST;

int scorep_event_generation_is_on_fn(void) { return scorep_event_generation_is_on(); }
void scorep_event_generation_off_fn(void) { scorep_event_generation_off(); }
void scorep_event_generation_on_fn(void) { scorep_event_generation_on(); }
