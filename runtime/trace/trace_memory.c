/*
 * Memory for the trace of this process: SCOREP_TOTAL_MEMORY, taken at
 * initialisation as one pool of equal blocks and faulted in right away.
 *
 * The locations' raw blocks come from the pool during the run
 * (trace_blocks.c), OTF2's event chunks while the blocks are encoded at
 * finalisation; both have the chunk size, and neither is taken more than
 * once per chunk-size bytes of records: never on the per-event path. The
 * pool is faulted in at initialisation because first touching memory is
 * expensive where the run is measured: a page fault per 4 KiB natively, and
 * on a virtual machine with shadow paging about 0.7 ns per byte, more than a
 * raw record's stores (docs/PERFORMANCE.md). So events are written into
 * memory that is warm. Only the first PREFAULT_MAX bytes, though: a budget
 * set high "to be safe" must not take that much memory from every process
 * at its start; a block beyond is faulted in (one call) when it is first
 * taken.
 *
 * Raw blocks: a location that needs a block when the pool is empty spills
 * its blocks to its file and reuses one (trace_blocks.c), also before the
 * experiment directory exists (the file is on the file system it will be
 * created in, trace_spill_place.c). Where spilling would keep the trace in
 * memory all the same (the experiment directory is on a tmpfs, and
 * SCOREP_TRACING_MAX_SIZE is not set) or there is nowhere to spill, a full
 * pool stops the trace instead, as the size limit does: the memory the trace
 * holds stays SCOREP_TOTAL_MEMORY, plus at most one block per location for
 * the records that close it.
 *
 * OTF2 chunks: when the pool is empty, we refuse the chunk; OTF2 then
 * flushes that buffer to disk, hands its chunks back through free_all and
 * asks again. Chunks released by a flush stay with their buffer as spares.
 *
 * A location's first block and a buffer's first chunk are always granted
 * (allocated beyond the pool if need be), so a thread can record and a
 * buffer can be written while others hold the pool. Definition buffers do
 * not come from the pool.
 */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE  /* MAP_ANONYMOUS, madvise with -std=c11 */
#endif
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trace.h"

#define PREFAULT_MAX (256ull << 20)

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static char* pool;             /* the mapping (NULL: no pool, every block is allocated) */
static uint64_t pool_bytes;
static uint64_t budget;        /* SCOREP_TOTAL_MEMORY, as given */
static uint64_t pool_blocks;
static uint64_t fresh_block;   /* blocks from here on were never handed out; they are
                                * handed out in address order, untouched till then */
static uint64_t warm_blocks;   /* the first ones, faulted in at the start */
static uint64_t block_stride;  /* header + chunk, rounded to the cache line */
static raw_block* free_blocks;
/* why the trace stopped when it was not SCOREP_TRACING_MAX_SIZE (NULL: it was) */
static _Atomic(const char*) stop_reason;
static char stop_reason_text[512];
static atomic_int stopping;
/* A test's hold of the pool's lock, so that its signal arrives while the
 * measurement holds it: read once when the pool is made, so that a run
 * without it pays one predicted branch under the lock, not a call. */
#define TEST_HOLD_VARIABLE "SCOREP_TRACING_TEST_POOL_HOLD_US"
static long test_hold_us;

/* the size of a raw block and of an OTF2 event chunk */
static uint64_t event_chunk_size;

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

static int from_pool(const raw_block* block)
{
    return pool != NULL && (const char*)block >= pool && (const char*)block < pool + pool_bytes;
}

/* Faults the pool in: with transparent huge pages one fault per 2 MiB. A
 * failing hint leaves it to a write of every page. */
static void fault_in(char* memory, uint64_t bytes)
{
    /* the whole pages inside; a failing hint leaves it to the memset */
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    char* begin = (char*)(((uintptr_t)memory + page - 1) & ~(page - 1));
    char* end = (char*)(((uintptr_t)memory + bytes) & ~(page - 1));
    if (end > begin) {
#ifdef MADV_HUGEPAGE
        (void)madvise(begin, (size_t)(end - begin), MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
        if (madvise(begin, (size_t)(end - begin), MADV_POPULATE_WRITE) == 0)
            return;
#endif
    }
    memset(memory, 0, bytes);
}

static void create_pool(uint64_t total_memory)
{
    block_stride = (sizeof(raw_block) + event_chunk_size + 63) & ~(uint64_t)63;
    uint64_t blocks = total_memory / event_chunk_size;   /* the headers come on top */
    if (blocks == 0)
        blocks = 1;
    const uint64_t huge = 2u << 20;
    uint64_t bytes = blocks * block_stride;
    char* mapping = mmap(NULL, bytes + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                         -1, 0);
    if (mapping == MAP_FAILED) {
        scorep_warning("trace: cannot map SCOREP_TOTAL_MEMORY=%llu bytes: trace blocks are "
                       "allocated one by one", (unsigned long long)total_memory);
        return;
    }
    /* 2 MiB aligned, for huge pages; the slack is returned */
    char* aligned = (char*)(((uintptr_t)mapping + huge - 1) & ~(uintptr_t)(huge - 1));
    if (aligned > mapping)
        munmap(mapping, (size_t)(aligned - mapping));
    uint64_t tail = (uint64_t)((mapping + bytes + huge) - (aligned + bytes));
    if (tail > 0)
        munmap(aligned + bytes, tail);
    warm_blocks = bytes <= PREFAULT_MAX ? blocks : PREFAULT_MAX / block_stride;
    fault_in(aligned, warm_blocks * block_stride);
    pool = aligned;
    pool_bytes = bytes;
    pool_blocks = blocks;
}

static raw_block* take_from_pool(void)
{
    /* event generation off while the pool's lock is held: a run-time
     * pthread_mutex_lock wrapper (--thread=pthread) must not record the
     * measurement's lock from inside an event that needs a block */
    int was_off = scorep_inside_begin();
    pthread_mutex_lock(&pool_lock);
    if (UNLIKELY(test_hold_us > 0))
        scorep_test_hold(TEST_HOLD_VARIABLE, &test_hold_us);
    raw_block* block = free_blocks;
    int cold = 0;
    if (block != NULL) {
        free_blocks = block->next;
    } else if (fresh_block < pool_blocks) {
        cold = fresh_block >= warm_blocks;
        block = (raw_block*)(pool + fresh_block++ * block_stride);
    }
    pthread_mutex_unlock(&pool_lock);
    scorep_inside_end(was_off);
    if (cold)
        fault_in((char*)block, block_stride);
    return block;
}

static raw_block* allocate_block(void)
{
    raw_block* block = malloc(sizeof(raw_block) + event_chunk_size);
    if (block == NULL)
        scorep_warning("trace: out of memory for a %llu byte trace buffer block",
                       (unsigned long long)event_chunk_size);
    return block;
}

/* The pool is full and spilling is refused (why): every location stops at
 * its next event (trace_location_stop says why, once). */
static void stop_tracing(const char* why)
{
    if (atomic_exchange(&stopping, 1))
        return;
    snprintf(stop_reason_text, sizeof stop_reason_text,
             "the trace buffers filled SCOREP_TOTAL_MEMORY=%llu bytes and %s",
             (unsigned long long)budget, why);
    atomic_store(&stop_reason, stop_reason_text);
    atomic_store(&trace.limit_reached, 1);
}

const char* trace_memory_stop_reason(void)
{
    return atomic_load(&stop_reason);
}

raw_block* trace_memory_take_block(int always)
{
    raw_block* block = take_from_pool();
    if (block != NULL)
        return block;
    if (!always) {
        const char* refused = trace_spill_refused();
        if (refused == NULL)
            return NULL;   /* spill and reuse */
        stop_tracing(refused);
    }
    /* a location's first block, or the one that holds the records closing a
     * stopped trace: at most one per location beyond the pool */
    return allocate_block();
}

void trace_memory_give_block(raw_block* block)
{
    if (block == NULL)
        return;
    if (!from_pool(block)) {
        free(block);
        return;
    }
    int was_off = scorep_inside_begin();   /* as in take_from_pool */
    pthread_mutex_lock(&pool_lock);
    block->next = free_blocks;
    free_blocks = block;
    pthread_mutex_unlock(&pool_lock);
    scorep_inside_end(was_off);
}

/* OTF2's perBufferData: the chunks one buffer owns (blocks' data areas). */
typedef struct buffer_chunks {
    raw_block* in_use;
    raw_block* spare;
} buffer_chunks;

/* Definition chunks (OTF2's, 4 MiB each, one per writer, the global
 * writer's while the events are written) come straight from mmap and go
 * back to it. From malloc, a small allocation made between two of them kept
 * the heap's top above both, so that one more than ever in use stayed
 * resident: 4 MiB beyond SCOREP_TOTAL_MEMORY. Only touched pages count. The
 * header's "used" holds the mapping's size. */
static raw_block* map_chunk(uint64_t chunk_size)
{
    size_t bytes = sizeof(raw_block) + chunk_size;
    void* memory = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED)
        return NULL;
    raw_block* c = memory;
    c->used = bytes;
    return c;
}

static void unmap_list(raw_block* c)
{
    while (c != NULL) {
        raw_block* next = c->next;
        munmap(c, c->used);
        c = next;
    }
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
    raw_block* c = owner->spare;
    if (c != NULL) {
        owner->spare = c->next;
    } else if (file_type == OTF2_FILETYPE_EVENTS && chunk_size == event_chunk_size) {
        c = take_from_pool();
        if (c == NULL && owner->in_use != NULL)
            return NULL;  /* OTF2 flushes this buffer (its event file) and asks again */
        if (c == NULL && (c = allocate_block()) == NULL)
            return NULL;
    } else {
        c = file_type == OTF2_FILETYPE_EVENTS ? malloc(sizeof(raw_block) + chunk_size) : map_chunk(chunk_size);
        if (c == NULL) {
            scorep_warning("trace: out of memory for a %llu byte trace buffer chunk",
                           (unsigned long long)chunk_size);
            return NULL;
        }
    }
    c->next = owner->in_use;
    owner->in_use = c;
    return c->data;
}

static void release_list(raw_block* c)
{
    while (c != NULL) {
        raw_block* next = c->next;
        trace_memory_give_block(c);
        c = next;
    }
}

static void free_all_chunks(void* user_data, OTF2_FileType file_type, OTF2_LocationRef location,
                            void** per_buffer_data, bool final)
{
    (void)user_data;
    (void)location;
    buffer_chunks* owner = *per_buffer_data;
    if (owner == NULL)
        return;
    if (final) {
        void (*release)(raw_block*) = file_type == OTF2_FILETYPE_EVENTS ? release_list : unmap_list;
        release(owner->in_use);
        release(owner->spare);
        free(owner);
        *per_buffer_data = NULL;
        return;
    }
    /* After a flush: keep the chunks as spares for this buffer. */
    while (owner->in_use != NULL) {
        raw_block* c = owner->in_use;
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
    event_chunk_size = chunk_size;
    budget = total_memory;
    const char* hold = getenv(TEST_HOLD_VARIABLE);
    test_hold_us = hold ? strtol(hold, NULL, 10) : 0;
    create_pool(total_memory);
    OTF2_Archive_SetMemoryCallbacks(archive, &memory_callbacks, NULL);
}

void trace_memory_release_pool(void)
{
    if (pool != NULL)
        munmap(pool, pool_bytes);
    pool = NULL;
    pool_bytes = pool_blocks = fresh_block = warm_blocks = 0;
    free_blocks = NULL;
    atomic_store(&stop_reason, NULL);
    atomic_store(&stopping, 0);
}
