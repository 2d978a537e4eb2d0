/*
 * OTF2 flush callbacks: a full event buffer goes to disk, and the time that
 * took is recorded, never hidden.
 *
 * OTF2 flushes while a raw buffer is encoded into it (trace_encode.c), from
 * inside an event write on the location's own thread, in the middle of
 * updating its buffer, so nothing can be recorded from here. We note that a
 * flush happened and OTF2 itself writes its standard BufferFlush record; when
 * the drain is over, trace_encode.c sees flush_pending and calls
 * trace_flush_report() with the drain's begin and end, which tells the event
 * layer (scorep_event_buffer_flush). The event layer calls every substrate's
 * buffer_flush, ours included, which records the flush as an enter/leave of
 * the core's region "TRACE_BUFFER_FLUSH" after the drained records.
 */
#include "trace.h"

/* The location whose buffer is being flushed on this thread (pre_flush to
 * post_flush); post_flush gets no writer to find it otherwise. */
static _Thread_local trace_location* flushing;

uint64_t trace_location_global_id(const trace_location* tl)
{
    return scorep_location_global_id((uint32_t)trace.rank, tl->location->local_id);
}

/* Event writers are created before the rank is known; OTF2 needs the id only
 * when it first opens the location's file. */
void trace_flush_set_location_id(OTF2_EvtWriter* writer, const trace_location* tl)
{
    OTF2_LocationRef id;
    if (OTF2_EvtWriter_GetLocationID(writer, &id) == OTF2_SUCCESS && id == OTF2_UNDEFINED_LOCATION)
        OTF2_EvtWriter_SetLocationID(writer, trace_location_global_id(tl));
}

static OTF2_FlushType pre_flush(void* user_data, OTF2_FileType file_type,
                                OTF2_LocationRef location, void* caller_data, bool final)
{
    (void)user_data;
    (void)location;
    if (file_type != OTF2_FILETYPE_EVENTS)
        return OTF2_FLUSH;
    if (!atomic_load(&trace.directory_ready))
        return OTF2_NO_FLUSH;  /* only at close without an experiment directory */
    OTF2_EvtWriter* writer = caller_data;
    void* data = NULL;
    OTF2_EvtWriter_GetUserData(writer, &data);
    trace_location* tl = data;
    if (tl != NULL) {
        trace_flush_set_location_id(writer, tl);
        if (!final)
            flushing = tl;
    }
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void* user_data, OTF2_FileType file_type,
                                 OTF2_LocationRef location)
{
    (void)user_data;
    (void)file_type;
    (void)location;
    trace_location* tl = flushing;
    if (tl != NULL) {
        tl->flush_pending = 1;
        flushing = NULL;
    }
    return scorep_timer_now();
}

static const OTF2_FlushCallbacks flush_callbacks = {
    .otf2_pre_flush = pre_flush,
    .otf2_post_flush = post_flush,
};

void trace_flush_install(OTF2_Archive* archive)
{
    OTF2_Archive_SetFlushCallbacks(archive, &flush_callbacks, NULL);
}

void trace_flush_report(trace_location* tl)
{
    tl->flush_pending = 0;
    scorep_verbose("trace: flushed the buffer of location %u to disk (%llu ticks)",
                   tl->location->local_id,
                   (unsigned long long)(tl->flush_end - tl->flush_begin));
    scorep_event_buffer_flush(tl->location, tl->flush_begin, tl->flush_end);
}
