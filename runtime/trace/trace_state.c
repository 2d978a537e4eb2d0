/*
 * The substrate's process-wide state (trace.h: trace_state), at the bottom
 * of the trace's files: every other file reads it, none of them is needed to
 * reach it. The substrate's lifecycle (trace_substrate.c) sets it up.
 */
#include "trace.h"

trace_state trace;

/* the OTF2 location id: rank << 32 | thread, known once trace.rank is */
uint64_t trace_location_global_id(const trace_location* tl)
{
    return scorep_location_global_id((uint32_t)trace.rank, tl->location->local_id);
}
