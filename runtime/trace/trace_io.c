/*
 * The I/O adapters' part of the OTF2 archive (docs/IO_ADAPTER.md): the
 * global I/O definitions rank 0 writes, and the event values' OTF2 forms.
 *
 * A unified I/O handle (the core's, adapter.h: a file of one I/O paradigm,
 * the same on every rank that opened it) becomes an IoHandle with the same
 * id, named after its file; each distinct file name one IoRegularFile in the
 * scope of the machine (system tree node 0); each paradigm one IoParadigm
 * in use (POSIX, ISOC), numbered in that order. The events carry process-local handle ids, which the
 * locations' OTF2_MAPPING_IO_HANDLE tables translate (trace_definitions.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

static const struct {
    const char* identification;
    const char* name;
} paradigms[SCOREP_IO_PARADIGM_COUNT_] = {
    [SCOREP_IO_PARADIGM_POSIX] = {"POSIX", "POSIX I/O"},
    [SCOREP_IO_PARADIGM_ISOC] = {"ISOC", "ISO C I/O"},
};

OTF2_IoAccessMode trace_io_access_mode(uint64_t mode)
{
    switch ((scorep_io_access)mode) {
    case SCOREP_IO_READ_ONLY: return OTF2_IO_ACCESS_MODE_READ_ONLY;
    case SCOREP_IO_WRITE_ONLY: return OTF2_IO_ACCESS_MODE_WRITE_ONLY;
    default: return OTF2_IO_ACCESS_MODE_READ_WRITE;
    }
}

OTF2_IoCreationFlag trace_io_creation_flags(uint32_t open_flags)
{
    static const struct { uint32_t ours; OTF2_IoCreationFlag otf2; } map[] = {
        {SCOREP_IO_CREATE, OTF2_IO_CREATION_FLAG_CREATE},
        {SCOREP_IO_TRUNCATE, OTF2_IO_CREATION_FLAG_TRUNCATE},
        {SCOREP_IO_EXCLUSIVE, OTF2_IO_CREATION_FLAG_EXCLUSIVE},
        {SCOREP_IO_DIRECTORY, OTF2_IO_CREATION_FLAG_DIRECTORY},
        {SCOREP_IO_NO_FOLLOW, OTF2_IO_CREATION_FLAG_NO_FOLLOW},
        {SCOREP_IO_NO_CONTROLLING_TERMINAL, OTF2_IO_CREATION_FLAG_NO_CONTROLLING_TERMINAL},
        {SCOREP_IO_TEMPORARY_FILE, OTF2_IO_CREATION_FLAG_TEMPORARY_FILE},
        {SCOREP_IO_PATH, OTF2_IO_CREATION_FLAG_PATH},
    };
    OTF2_IoCreationFlag flags = OTF2_IO_CREATION_FLAG_NONE;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (open_flags & map[i].ours) flags |= map[i].otf2;
    return flags;
}

OTF2_IoStatusFlag trace_io_status_flags(uint32_t open_flags)
{
    static const struct { uint32_t ours; OTF2_IoStatusFlag otf2; } map[] = {
        {SCOREP_IO_APPEND, OTF2_IO_STATUS_FLAG_APPEND},
        {SCOREP_IO_CLOSE_ON_EXEC, OTF2_IO_STATUS_FLAG_CLOSE_ON_EXEC},
        {SCOREP_IO_NON_BLOCKING, OTF2_IO_STATUS_FLAG_NON_BLOCKING},
        {SCOREP_IO_SYNC, OTF2_IO_STATUS_FLAG_SYNC},
        {SCOREP_IO_DATA_SYNC, OTF2_IO_STATUS_FLAG_DATA_SYNC},
        {SCOREP_IO_AVOID_CACHING, OTF2_IO_STATUS_FLAG_AVOID_CACHING},
        {SCOREP_IO_NO_ACCESS_TIME, OTF2_IO_STATUS_FLAG_NO_ACCESS_TIME},
        {SCOREP_IO_ASYNC, OTF2_IO_STATUS_FLAG_ASYNC},
    };
    OTF2_IoStatusFlag flags = OTF2_IO_STATUS_FLAG_NONE;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (open_flags & map[i].ours) flags |= map[i].otf2;
    return flags;
}

OTF2_IoSeekOption trace_io_seek_option(int64_t whence)
{
    switch (whence) {
    case SEEK_SET: return OTF2_IO_SEEK_FROM_START;
    case SEEK_CUR: return OTF2_IO_SEEK_FROM_CURRENT;
    case SEEK_END: return OTF2_IO_SEEK_FROM_END;
    default: return OTF2_IO_SEEK_FROM_CURRENT;
    }
}

int trace_io_write_definitions(OTF2_GlobalDefWriter* writer, const scorep_unified_definitions* defs,
                               uint32_t* next_string)
{
    uint32_t n = defs->io_handle_count;
    if (n == 0)
        return 0;
    int failed = 0;
    /* the paradigms in use, numbered densely from 0 (OTF2 readers expect
     * definitions without gaps) */
    uint32_t ref_of[SCOREP_IO_PARADIGM_COUNT_];
    for (int p = 0; p < SCOREP_IO_PARADIGM_COUNT_; p++)
        ref_of[p] = OTF2_UNDEFINED_IO_PARADIGM;
    for (uint32_t h = 0; h < n; h++)
        if ((unsigned)defs->io_handles[h].paradigm < SCOREP_IO_PARADIGM_COUNT_)
            ref_of[defs->io_handles[h].paradigm] = 0;
    uint32_t paradigms_used = 0;
    for (int p = 0; p < SCOREP_IO_PARADIGM_COUNT_; p++) {
        if (ref_of[p] == OTF2_UNDEFINED_IO_PARADIGM)
            continue;
        ref_of[p] = paradigms_used++;
        OTF2_StringRef identification = (*next_string)++, name = (*next_string)++;
        failed |= OTF2_GlobalDefWriter_WriteString(writer, identification, paradigms[p].identification) != OTF2_SUCCESS;
        failed |= OTF2_GlobalDefWriter_WriteString(writer, name, paradigms[p].name) != OTF2_SUCCESS;
        failed |= OTF2_GlobalDefWriter_WriteIoParadigm(writer, ref_of[p], identification, name,
                                                       OTF2_IO_PARADIGM_CLASS_SERIAL, OTF2_IO_PARADIGM_FLAG_NONE,
                                                       0, NULL, NULL, NULL) != OTF2_SUCCESS;
    }
    /* one file (and its name string) per distinct name, in the order of the
     * handles that name it first; the handles are few (one per file opened
     * per paradigm), so a quadratic search costs nothing here */
    uint32_t* file_of = malloc(n * sizeof *file_of);
    uint32_t* string_of_file = malloc(n * sizeof *string_of_file);
    if (file_of == NULL || string_of_file == NULL) {
        free(file_of);
        free(string_of_file);
        return -1;
    }
    uint32_t files = 0;
    for (uint32_t h = 0; h < n; h++) {
        uint32_t earlier = 0;
        while (earlier < h && strcmp(defs->io_handles[earlier].name, defs->io_handles[h].name) != 0)
            earlier++;
        if (earlier < h) {
            file_of[h] = file_of[earlier];
            continue;
        }
        file_of[h] = files;
        string_of_file[files] = (*next_string)++;
        failed |= OTF2_GlobalDefWriter_WriteString(writer, string_of_file[files], defs->io_handles[h].name)
                  != OTF2_SUCCESS;
        failed |= OTF2_GlobalDefWriter_WriteIoRegularFile(writer, files, string_of_file[files], 0) != OTF2_SUCCESS;
        files++;
    }
    for (uint32_t h = 0; h < n; h++) {
        const scorep_io_handle_def* d = &defs->io_handles[h];
        /* a stream's descriptor: the stream's handle is its parent (defined
         * before it on every rank, so earlier here too) */
        OTF2_IoHandleRef parent = OTF2_UNDEFINED_IO_HANDLE;
        for (uint32_t p = 0; d->under_stream && p < h && parent == OTF2_UNDEFINED_IO_HANDLE; p++)
            if (defs->io_handles[p].paradigm == SCOREP_IO_PARADIGM_ISOC && !defs->io_handles[p].pre_created &&
                defs->io_handles[p].duplicate == 0 && file_of[p] == file_of[h])
                parent = p;
        failed |= OTF2_GlobalDefWriter_WriteIoHandle(writer, h, string_of_file[file_of[h]], file_of[h],
                                                     ref_of[d->paradigm],
                                                     d->pre_created ? OTF2_IO_HANDLE_FLAG_PRE_CREATED
                                                                    : OTF2_IO_HANDLE_FLAG_NONE,
                                                     OTF2_UNDEFINED_COMM, parent) != OTF2_SUCCESS;
        /* stdin, stdout, stderr: active from the start, in their mode */
        if (d->pre_created)
            failed |= OTF2_GlobalDefWriter_WriteIoPreCreatedHandleState(writer, h, trace_io_access_mode(d->mode),
                                                                         OTF2_IO_STATUS_FLAG_NONE) != OTF2_SUCCESS;
    }
    free(file_of);
    free(string_of_file);
    return failed ? -1 : 0;
}

/* POSIX asynchronous I/O's records besides the complete (io_async.c,
 * docs/IO_ADAPTER.md "Asynchronous I/O"): event_mode is the
 * scorep_io_async_event, with the operation's direction in its high half. */
OTF2_ErrorCode trace_io_async_encode(OTF2_EvtWriter* w, uint64_t t, uint32_t handle, uint64_t event_mode,
                                     uint64_t bytes_request, uint64_t matching_id)
{
    OTF2_IoOperationMode mode = raw_high(event_mode) == SCOREP_IO_OP_WRITE ? OTF2_IO_OPERATION_MODE_WRITE
                                                                            : OTF2_IO_OPERATION_MODE_READ;
    switch ((scorep_io_async_event)raw_low(event_mode)) {
    case SCOREP_IO_ASYNC_BEGIN:
        return OTF2_EvtWriter_IoOperationBegin(w, NULL, t, handle, mode, OTF2_IO_OPERATION_FLAG_NON_BLOCKING,
                                               bytes_request, matching_id);
    case SCOREP_IO_ASYNC_BEGIN_BLOCKING:
        return OTF2_EvtWriter_IoOperationBegin(w, NULL, t, handle, mode, OTF2_IO_OPERATION_FLAG_NONE,
                                               bytes_request, matching_id);
    case SCOREP_IO_ASYNC_ISSUED: return OTF2_EvtWriter_IoOperationIssued(w, NULL, t, handle, matching_id);
    case SCOREP_IO_ASYNC_TEST: return OTF2_EvtWriter_IoOperationTest(w, NULL, t, handle, matching_id);
    case SCOREP_IO_ASYNC_CANCELLED: return OTF2_EvtWriter_IoOperationCancelled(w, NULL, t, handle, matching_id);
    }
    return OTF2_SUCCESS;
}
