/*
 * Chunk memory for the OTF2 writers of this process, bounded by
 * SCOREP_TOTAL_MEMORY, together with the locations' raw buffers.
 *
 * OTF2 asks for one chunk at a time (once per chunk_size bytes of encoded
 * events, while a raw buffer is encoded: never on the per-event path). When
 * an event buffer would take the process over its budget, we refuse the
 * chunk; OTF2 then flushes that buffer to disk (trace_flush.c), hands its
 * chunks back through free_all and asks again.
 *
 * Rules that keep this deadlock-free and lossless:
 *   - a buffer that holds no chunk always gets one, even over budget, so a
 *     thread whose buffer was just flushed can continue even while other
 *     threads hold the rest of the budget (overshoot: one chunk per location);
 *   - before the experiment directory exists nothing can be flushed, so the
 *     budget is not enforced yet (a warning says so once);
 *   - definition buffers (written only at finalisation) are not counted.
 * Chunks released by a flush stay with their buffer as spares: the same
 * buffer needs them again right away, and reusing them needs no lock.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trace.h"

typedef struct chunk {
    struct chunk* next;
    uint64_t bytes;
} chunk;

/* OTF2's perBufferData: the chunks one buffer owns. */
typedef struct buffer_chunks {
    chunk* in_use;
    chunk* spare;
} buffer_chunks;

/* Chunk header size; keeps the chunk itself 16-byte aligned. */
#define CHUNK_HEADER 16
_Static_assert(sizeof(chunk) <= CHUNK_HEADER, "chunk header must fit its reserved space");

static uint64_t budget;
static atomic_uint_fast64_t in_use;
static atomic_int warned_before_directory;

/* SCOREP_TRACING_MAX_SIZE: every event chunk a buffer of this process takes
 * (a fresh one or a spare after a flush) holds chunk_size bytes of event
 * records, so the process's event data is at most chunks_taken x chunk_size.
 * The chunk that takes the count over the limit is still handed out (the
 * record being written needs it, and the stop marker), but from then on the
 * locations stop recording (trace.limit_reached). */
static uint64_t event_chunk_size;
static atomic_uint_fast64_t event_chunks_taken;
static _Atomic uint64_t max_event_chunks;   /* 0: no limit (yet) */
static _Atomic uint64_t max_size_bytes;     /* the limit as given or chosen */

static void count_event_chunk(void)
{
    uint64_t taken = atomic_fetch_add(&event_chunks_taken, 1) + 1;
    uint64_t max = atomic_load(&max_event_chunks);
    if (max != 0 && taken > max)
        atomic_store(&trace.limit_reached, 1);
}

void trace_memory_set_max_size(uint64_t max_size)
{
    uint64_t chunks = 0;   /* unlimited */
    if (max_size != 0 && max_size != UINT64_MAX) {
        chunks = max_size / event_chunk_size;
        if (chunks == 0)
            chunks = 1;    /* less than a chunk: the first chunk of each location */
    }
    atomic_store(&max_size_bytes, max_size);
    atomic_store(&max_event_chunks, chunks);
    if (chunks != 0 && atomic_load(&event_chunks_taken) > chunks)
        atomic_store(&trace.limit_reached, 1);
}

uint64_t trace_memory_event_chunks(void)
{
    return atomic_load(&event_chunks_taken);
}

uint64_t trace_memory_max_size(void)
{
    return atomic_load(&max_size_bytes);
}

uint64_t trace_memory_chunk_bytes(void)
{
    return event_chunk_size;
}

uint64_t trace_memory_chunk_size(uint64_t total_memory)
{
    /* At least 8 chunks in the budget so several threads can share it, but
     * chunks no bigger than 1 MiB (one flush writes whole chunks) and no
     * smaller than OTF2 allows. */
    uint64_t size = total_memory / 8;
    if (size > 1024 * 1024)
        size = 1024 * 1024;
    if (size < OTF2_CHUNK_SIZE_MIN)
        size = OTF2_CHUNK_SIZE_MIN;
    return size;
}

static int over_budget(uint64_t bytes)
{
    uint64_t now = atomic_fetch_add(&in_use, bytes) + bytes;
    if (now <= budget)
        return 0;
    if (!atomic_load(&trace.directory_ready)) {
        if (!atomic_exchange(&warned_before_directory, 1))
            scorep_warning("trace buffers exceed SCOREP_TOTAL_MEMORY=%llu bytes before the "
                           "experiment directory exists; keeping the events in memory until "
                           "they can be flushed", (unsigned long long)budget);
        return 0;
    }
    atomic_fetch_sub(&in_use, bytes);
    return 1;
}

/* Faults a fresh event chunk in with one call. Left to the event writes, its
 * first touch costs a page fault every few hundred events (about a tenth of
 * the trace event path on a KVM guest with a large SCOREP_TOTAL_MEMORY). */
static void prefault(void* memory, uint64_t bytes)
{
#ifdef MADV_POPULATE_WRITE
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t begin = ((uintptr_t)memory + page - 1) & ~(page - 1);
    uintptr_t end = ((uintptr_t)memory + bytes) & ~(page - 1);
    if (end > begin)
        (void)madvise((void*)begin, end - begin, MADV_POPULATE_WRITE);  /* a hint: failure is harmless */
#else
    (void)memory;
    (void)bytes;
#endif
}

/* A location's raw buffer (trace_raw.h) is one chunk's size and counts
 * against the budget like a chunk, but is always granted: the location
 * cannot record without it, and it is reused after every drain. */
char* trace_memory_raw_buffer(void)
{
    char* buffer = malloc(event_chunk_size);
    if (buffer == NULL)
        return NULL;
    atomic_fetch_add(&in_use, event_chunk_size);
    prefault(buffer, event_chunk_size);
    return buffer;
}

void trace_memory_free_raw_buffer(char* buffer)
{
    if (buffer == NULL)
        return;
    atomic_fetch_sub(&in_use, event_chunk_size);
    free(buffer);
}

static void* allocate_chunk(void* user_data, OTF2_FileType file_type, OTF2_LocationRef location,
                            void** per_buffer_data, uint64_t chunk_size)
{
    (void)user_data;
    (void)location;
    buffer_chunks* owner = *per_buffer_data;
    if (owner == NULL) {
        owner = calloc(1, sizeof *owner);
        if (owner == NULL)
            return NULL;
        *per_buffer_data = owner;
    }
    chunk* c = owner->spare;
    if (c != NULL && c->bytes == chunk_size) {
        owner->spare = c->next;
    } else {
        int counted = file_type == OTF2_FILETYPE_EVENTS;
        if (counted && owner->in_use != NULL && over_budget(chunk_size))
            return NULL;  /* OTF2 flushes this buffer and asks again */
        if (counted && owner->in_use == NULL)
            atomic_fetch_add(&in_use, chunk_size);
        c = malloc(CHUNK_HEADER + chunk_size);
        if (c == NULL) {
            if (counted)
                atomic_fetch_sub(&in_use, chunk_size);
            scorep_warning("trace: out of memory for a %llu byte trace buffer chunk",
                           (unsigned long long)chunk_size);
            return NULL;
        }
        c->bytes = counted ? chunk_size : 0;
        if (counted)
            prefault(c, CHUNK_HEADER + chunk_size);
    }
    if (file_type == OTF2_FILETYPE_EVENTS)
        count_event_chunk();
    c->next = owner->in_use;
    owner->in_use = c;
    return (char*)c + CHUNK_HEADER;
}

static void release_list(chunk* c)
{
    while (c != NULL) {
        chunk* next = c->next;
        atomic_fetch_sub(&in_use, c->bytes);
        free(c);
        c = next;
    }
}

static void free_all_chunks(void* user_data, OTF2_FileType file_type, OTF2_LocationRef location,
                            void** per_buffer_data, bool final)
{
    (void)user_data;
    (void)file_type;
    (void)location;
    buffer_chunks* owner = *per_buffer_data;
    if (owner == NULL)
        return;
    if (final) {
        release_list(owner->in_use);
        release_list(owner->spare);
        free(owner);
        *per_buffer_data = NULL;
        return;
    }
    /* After a flush: keep the chunks as spares for this buffer. */
    while (owner->in_use != NULL) {
        chunk* c = owner->in_use;
        owner->in_use = c->next;
        c->next = owner->spare;
        owner->spare = c;
    }
}

static const OTF2_MemoryCallbacks memory_callbacks = {
    .otf2_allocate = allocate_chunk,
    .otf2_free_all = free_all_chunks,
};

void trace_memory_install(OTF2_Archive* archive, uint64_t total_memory, uint64_t chunk_size)
{
    budget = total_memory > chunk_size ? total_memory : chunk_size;
    event_chunk_size = chunk_size;
    OTF2_Archive_SetMemoryCallbacks(archive, &memory_callbacks, NULL);
}
