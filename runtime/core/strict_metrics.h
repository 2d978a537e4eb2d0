/* Score-P's synchronous strict metrics (SCOREP_METRIC_RUSAGE,
 * SCOREP_METRIC_PERF): counters of the calling thread read at every enter
 * and leave. The event layer reads them into the location's
 * metric_values before it dispatches the enter or leave; a substrate reads
 * them there (the profile sums leave minus enter per call path, the trace
 * writes them as a Metric record before the Enter or Leave). */
#ifndef SCOREP_WRAPGEN_STRICT_METRICS_H
#define SCOREP_WRAPGEN_STRICT_METRICS_H

#include "internal.h"

#define SCOREP_STRICT_METRICS_MAX 24

/* how many are recorded (0: none; the event path's one test); hidden: one
 * load without the GOT */
extern uint32_t scorep_strict_metric_count __attribute__((visibility("hidden")));
/* their metric ids, in the order of the values (scorep_metric_get) */
extern scorep_metric scorep_strict_metric_ids[SCOREP_STRICT_METRICS_MAX] __attribute__((visibility("hidden")));

/* Reads SCOREP_METRIC_RUSAGE and SCOREP_METRIC_PERF (and their _SEP),
 * warns about names it does not know or events the system will not count,
 * and defines a metric for each of the others. Once, at the start. */
void scorep_strict_metrics_init(void);

/* loc's array of values (from the arena), when metrics are recorded; made
 * with the location */
void scorep_strict_metrics_location_created(scorep_location* loc);

/* the calling thread records no more: its perf events are closed */
void scorep_strict_metrics_thread_ends(void);

/* the calling thread's counters into loc->metric_values; on loc's thread,
 * inside the measurement. No lock, no allocation. */
void scorep_strict_metrics_read(scorep_location* loc) __attribute__((visibility("hidden")));

#endif
