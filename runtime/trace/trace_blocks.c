/*
 * The raw blocks of a location: where its records wait for finalisation.
 *
 * The event path fills the current block (trace_events.c). When it is full,
 * the location takes a new block from the pool (trace_memory.c); when the
 * pool is empty, it spills all its blocks to the process's one spill file, an
 * unnamed file on the experiment directory's file system (trace_spill_open),
 * and goes on in one of them. A spill is the trace's buffer flush: it is
 * reported to the event layer (scorep_event_buffer_flush), so the trace and
 * the profile show a visit of region TRACE_BUFFER_FLUSH spanning it.
 *
 * One file for all locations of the process, not one each: a process with
 * hundreds of threads would otherwise hold hundreds of descriptors until
 * finalisation, taking them from the program and from OTF2, which opens each
 * location's .evt file while encoding it. A spill reserves its range of the
 * file under a lock (once per spill, never per event) and writes it outside.
 * In the file every block is a head (its byte count and where the location's
 * previous block is) followed by its records, so records never straddle two
 * blocks there either, and each location's blocks form a chain read back
 * oldest first. The file is closed when the last location in it is drained.
 */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE  /* pread with -std=c11 */
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace.h"

/* Records of a location without blocks land here and are dropped: the space
 * after raw_full_at takes any record stored while another thread resets the
 * position (locations without trace state share it). Never read. */
static char discard_area[64 * 1024];

void trace_blocks_discard(trace_location* tl)
{
    tl->current = NULL;
    tl->raw_full_at = tl->raw_next = discard_area;
}

/* The process's spill file; under spill_lock. */
static pthread_mutex_t spill_lock = PTHREAD_MUTEX_INITIALIZER;
static int spill_fd = -1;
static uint64_t spill_end;          /* bytes reserved in it so far */
static uint64_t spill_locations;    /* locations with blocks in it, not yet drained */

typedef struct spill_head {
    uint64_t used;       /* bytes of records that follow */
    uint64_t previous;   /* the location's previous block: its offset + 1, 0 if none */
} spill_head;

/* Room for records in the current block, as far as SCOREP_TRACING_MAX_SIZE
 * grants it (trace_budget.c), a slice at a time: raw_full_at is RAW_MAX_BYTES
 * before the end of the room, so a record stored up to it ends inside it.
 * 1: room; 0: the budget is spent (the trace stops); -1: the block is full. */
static int reserve_room(trace_location* tl)
{
    uintptr_t end = (uintptr_t)tl->current->data + trace_memory_chunk_bytes();
    while ((uintptr_t)tl->raw_next + RAW_MAX_BYTES > (uintptr_t)tl->room_end) {
        if ((uintptr_t)tl->room_end >= end)
            return -1;
        uint64_t granted = trace_budget_reserve(end - (uintptr_t)tl->room_end);
        if (granted == 0)
            return 0;
        tl->room_end += granted;
    }
    tl->raw_full_at = tl->room_end - RAW_MAX_BYTES;
    return 1;
}

/* The rest of the block, counted by no budget: for the records that close a
 * stopped trace (its open regions' leaves and the marker). */
static void whole_block(trace_location* tl)
{
    tl->room_end = tl->current->data + trace_memory_chunk_bytes();
    tl->raw_full_at = tl->room_end - RAW_MAX_BYTES;
}

static void start_block(trace_location* tl, raw_block* block)
{
    block->next = NULL;
    block->used = 0;
    tl->current = block;
    tl->raw_next = tl->room_end = block->data;
    if (tl->stopped || trace_limit_reached() || reserve_room(tl) <= 0)
        whole_block(tl);
}

int trace_blocks_init(trace_location* tl)
{
    tl->last_spill = 0;
    tl->spill_user = 0;
    raw_block* block = trace_memory_take_block(1);
    if (block == NULL)
        return -1;
    start_block(tl, block);
    tl->first = block;
    return 0;
}

static void spill_failed(trace_location* tl, const char* what)
{
    if (tl->write_failed)
        return;
    tl->write_failed = 1;
    scorep_warning("trace: cannot %s the event buffer of location %u (%s): events of this "
                   "location are lost", what, tl->location->local_id, strerror(errno));
}

static int pwrite_all(int fd, const void* data, uint64_t bytes, uint64_t offset)
{
    const char* p = data;
    while (bytes > 0) {
        ssize_t n = pwrite(fd, p, bytes, (off_t)offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        bytes -= (uint64_t)n;
        offset += (uint64_t)n;
    }
    return 0;
}

/* Under spill_lock: the file, opened at the process's first spill. */
static int open_spill_file(void)
{
    if (spill_fd >= 0)
        return 0;
    /* unnamed, on the experiment directory's file system (trace_spill_place.c) */
    spill_fd = trace_spill_open();
    if (spill_fd < 0)
        return -1;
    spill_end = 0;
    return 0;
}

/* Reserves bytes of the file for tl's spill; returns the offset, or -1
 * without a file. The first spill of tl makes it one of the file's users. */
static int64_t reserve_spill(trace_location* tl, uint64_t bytes)
{
    int64_t offset = -1;
    pthread_mutex_lock(&spill_lock);
    if (open_spill_file() == 0) {
        offset = (int64_t)spill_end;
        spill_end += bytes;
        if (!tl->spill_user)
            spill_locations++;
        tl->spill_user = 1;
    }
    pthread_mutex_unlock(&spill_lock);
    return offset;
}

/* tl's blocks are no longer needed in the file; the last user closes it. */
static void release_spill(trace_location* tl)
{
    tl->last_spill = 0;
    tl->spilled_blocks = 0;
    if (!tl->spill_user)
        return;
    tl->spill_user = 0;
    pthread_mutex_lock(&spill_lock);
    if (spill_locations > 0 && --spill_locations == 0 && spill_fd >= 0) {
        close(spill_fd);
        spill_fd = -1;
    }
    pthread_mutex_unlock(&spill_lock);
}

/* Writes every block to the file and keeps the first for reuse. */
static void spill(trace_location* tl)
{
    uint64_t bytes = 0;
    for (raw_block* b = tl->first; b != NULL; b = b->next)
        bytes += sizeof(spill_head) + b->used;
    int64_t offset = tl->write_failed ? -1 : reserve_spill(tl, bytes);
    if (offset < 0 && !tl->write_failed)
        spill_failed(tl, "create a spill file for");
    raw_block* keep = tl->first;
    for (raw_block* b = tl->first; b != NULL;) {
        raw_block* next = b->next;
        if (offset >= 0 && !tl->write_failed) {
            spill_head head = {b->used, tl->last_spill};
            if (pwrite_all(spill_fd, &head, sizeof head, (uint64_t)offset) != 0
                || pwrite_all(spill_fd, b->data, b->used, (uint64_t)offset + sizeof head) != 0) {
                spill_failed(tl, "spill");
            } else {
                tl->last_spill = (uint64_t)offset + 1;
                tl->spilled_blocks++;
            }
            offset += (int64_t)(sizeof head + b->used);
        }
        if (b != keep)
            trace_memory_give_block(b);
        b = next;
    }
    tl->first = keep;
    start_block(tl, keep);
}

/* The current block is full: a new one from the pool, or a spill. */
void trace_blocks_full(trace_location* tl)
{
    raw_block* full = tl->current;
    if (full == NULL) {   /* records go nowhere (trace_blocks_discard) */
        tl->raw_next = tl->raw_full_at;
        return;
    }
    /* more of the budget in this block, or (stopped or spent) the rest of it */
    int room = tl->stopped ? 0 : reserve_room(tl);
    if (room > 0)
        return;
    if (room == 0 && (uintptr_t)tl->room_end < (uintptr_t)full->data + trace_memory_chunk_bytes()) {
        whole_block(tl);
        if (tl->raw_next <= tl->raw_full_at)
            return;
    }
    full->used = (uint64_t)(tl->raw_next - full->data);
    raw_block* block = trace_memory_take_block(0);
    if (block != NULL) {
        full->next = block;
        start_block(tl, block);
        return;
    }
    if (trace_spill_refused() != NULL) {
        /* out of memory (malloc) and spilling refused: what the location
         * recorded so far is dropped (with a warning), it goes on in its
         * first block */
        spill_failed(tl, "keep (out of memory)");
        raw_block* keep = tl->first;
        while (tl->first->next) {
            raw_block* next = tl->first->next;
            tl->first->next = next->next;
            trace_memory_give_block(next);
        }
        start_block(tl, keep);
        return;
    }
    uint64_t begin = scorep_timer_now();
    /* the spill's pwrite is the measurement's: a preloaded --io=posix
     * wrapper calls straight through instead of recording an event from
     * inside this one */
    int generation_was_off = scorep_inside_begin();
    spill(tl);
    uint64_t end = scorep_timer_now();
    scorep_verbose("trace: spilled the buffer of location %u to disk (%llu ticks)",
                   tl->location->local_id, (unsigned long long)(end - begin));
    scorep_event_buffer_flush(tl->location, begin, end);
    scorep_inside_end(generation_was_off);
}

/* The offsets of tl's spilled blocks, oldest first (malloc'ed; at
 * finalisation), following the chain back from the newest. */
static uint64_t* spilled_offsets(trace_location* tl)
{
    uint64_t* offsets = malloc(tl->spilled_blocks * sizeof *offsets);
    uint64_t at = tl->last_spill;
    for (uint64_t i = tl->spilled_blocks; offsets != NULL && i > 0; i--) {
        spill_head head;
        if (at == 0
            || pread(spill_fd, &head, sizeof head, (off_t)(at - 1)) != (ssize_t)sizeof head) {
            free(offsets);
            return NULL;
        }
        offsets[i - 1] = at - 1;
        at = head.previous;
    }
    return offsets;
}

/* Calls encode for tl's blocks in record order, spilled ones first. keep: the
 * blocks stay (a prefix encoded before the whole, trace_partial.c) and the
 * walk ends once encode returns nonzero; else each is given back to the pool
 * once encoded (OTF2's chunks come from it) and all are visited. */
static void walk(trace_location* tl, trace_block_encoder encode, int keep)
{
    if (tl->current == NULL)
        return;
    tl->current->used = (uint64_t)(tl->raw_next - tl->current->data);
    int stop = 0;
    if (tl->spilled_blocks > 0) {
        /* read into a block of its own: the location's blocks are still full */
        raw_block* buffer = trace_memory_take_block(1);
        uint64_t* offsets = buffer != NULL ? spilled_offsets(tl) : NULL;
        for (uint64_t i = 0; offsets != NULL && i < tl->spilled_blocks && !stop; i++) {
            spill_head head;
            off_t at = (off_t)offsets[i];
            if (pread(spill_fd, &head, sizeof head, at) != (ssize_t)sizeof head
                || head.used > trace_memory_chunk_bytes()
                || pread(spill_fd, buffer->data, head.used, at + (off_t)sizeof head)
                       != (ssize_t)head.used) {
                spill_failed(tl, "read back");
                break;
            }
            stop = encode(tl, buffer->data, head.used) && keep;
        }
        if (offsets == NULL)
            spill_failed(tl, buffer == NULL ? "read back (out of memory)" : "read back");
        free(offsets);
        trace_memory_give_block(buffer);
    }
    if (keep) {
        for (raw_block* b = tl->first; b != NULL && !stop; b = b->next)
            stop = encode(tl, b->data, b->used);
        return;
    }
    while (tl->first != NULL) {
        raw_block* b = tl->first;
        tl->first = b->next;
        encode(tl, b->data, b->used);
        trace_memory_give_block(b);
    }
}

void trace_blocks_drain(trace_location* tl, trace_block_encoder encode)
{
    walk(tl, encode, 0);
    trace_blocks_free(tl);
}

void trace_blocks_walk(trace_location* tl, trace_block_encoder encode)
{
    walk(tl, encode, 1);
}

void trace_blocks_free(trace_location* tl)
{
    while (tl->first != NULL) {
        raw_block* b = tl->first;
        tl->first = b->next;
        trace_memory_give_block(b);
    }
    trace_blocks_discard(tl);
    release_spill(tl);
}
