/*
 * OTF2 flush callbacks. OTF2 flushes a location's buffer to its .evt file
 * while the location's raw blocks are encoded at finalisation, when its
 * chunks would take the process over SCOREP_TOTAL_MEMORY (trace_memory.c),
 * and at close. None of that is time of the run: the BufferFlush record OTF2
 * writes ends at the time of the record being encoded. The trace's buffer
 * flushes during the run are the raw blocks' spills (trace_blocks.c),
 * recorded as region TRACE_BUFFER_FLUSH.
 */
#include "trace.h"

static OTF2_FlushType pre_flush(void* user_data, OTF2_FileType file_type,
                                OTF2_LocationRef location, void* caller_data, bool final)
{
    (void)user_data;
    (void)location;
    if (file_type != OTF2_FILETYPE_EVENTS)
        return OTF2_FLUSH;
    (void)caller_data;
    (void)final;
    if (!atomic_load(&trace.directory_ready))
        return OTF2_NO_FLUSH;  /* only at close without an experiment directory */
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void* user_data, OTF2_FileType file_type,
                                 OTF2_LocationRef location)
{
    (void)user_data;
    (void)file_type;
    (void)location;
    return trace_encode_time();
}

static const OTF2_FlushCallbacks flush_callbacks = {
    .otf2_pre_flush = pre_flush,
    .otf2_post_flush = post_flush,
};

void trace_flush_install(OTF2_Archive* archive)
{
    OTF2_Archive_SetFlushCallbacks(archive, &flush_callbacks, NULL);
}
