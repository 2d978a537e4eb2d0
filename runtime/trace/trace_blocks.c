/*
 * The raw blocks of a location: where its records wait for finalisation.
 *
 * The event path fills the current block (trace_events.c). When it is full,
 * the location takes a new block from the pool (trace_memory.c); when the
 * pool is empty, it spills all its blocks to its own unnamed file on the
 * experiment directory's file system (trace_spill_open) and goes on in one
 * of them. A spill is the trace's buffer flush: it is
 * reported to the event layer (scorep_event_buffer_flush), so the trace and
 * the profile show a visit of region TRACE_BUFFER_FLUSH spanning it.
 *
 * In the file every block is its byte count followed by its records, so
 * records never straddle two blocks there either.
 */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE  /* pread with -std=c11 */
#endif
#include <errno.h>
#include <fcntl.h>
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

static void start_block(trace_location* tl, raw_block* block)
{
    block->next = NULL;
    block->used = 0;
    tl->current = block;
    tl->raw_next = block->data;
    tl->raw_full_at = block->data + trace_memory_chunk_bytes() - RAW_MAX_BYTES;
}

int trace_blocks_init(trace_location* tl)
{
    tl->spill_fd = -1;
    raw_block* block = trace_memory_take_block(1);
    if (block == NULL)
        return -1;
    start_block(tl, block);
    tl->first = block;
    trace_memory_count_block();
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

static int write_all(int fd, const void* data, uint64_t bytes)
{
    const char* p = data;
    while (bytes > 0) {
        ssize_t n = write(fd, p, bytes);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        bytes -= (uint64_t)n;
    }
    return 0;
}

static int open_spill_file(trace_location* tl)
{
    /* unnamed, on the experiment directory's file system (trace_substrate.c) */
    tl->spill_fd = trace_spill_open();
    return tl->spill_fd < 0 ? -1 : 0;
}

/* Writes every block to the file and keeps the first for reuse. */
static void spill(trace_location* tl)
{
    if (tl->spill_fd < 0 && open_spill_file(tl) != 0)
        spill_failed(tl, "create a spill file for");
    raw_block* keep = tl->first;
    for (raw_block* b = tl->first; b != NULL;) {
        raw_block* next = b->next;
        if (tl->spill_fd >= 0 && !tl->write_failed) {
            if (write_all(tl->spill_fd, &b->used, sizeof b->used) != 0
                || write_all(tl->spill_fd, b->data, b->used) != 0)
                spill_failed(tl, "spill");
            else
                tl->spilled_blocks++;
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
    full->used = (uint64_t)(tl->raw_next - full->data);
    raw_block* block = trace_memory_take_block(0);
    trace_memory_count_block();
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
    spill(tl);
    uint64_t end = scorep_timer_now();
    scorep_verbose("trace: spilled the buffer of location %u to disk (%llu ticks)",
                   tl->location->local_id, (unsigned long long)(end - begin));
    scorep_event_buffer_flush(tl->location, begin, end);
}

void trace_blocks_drain(trace_location* tl,
                        void (*encode)(trace_location* tl, const char* data, uint64_t bytes))
{
    if (tl->current == NULL)
        return;
    tl->current->used = (uint64_t)(tl->raw_next - tl->current->data);
    if (tl->spill_fd >= 0 && tl->spilled_blocks > 0) {
        /* read into a block of its own: the location's blocks are still full */
        raw_block* buffer = trace_memory_take_block(1);
        off_t offset = 0;
        for (uint64_t i = 0; buffer != NULL && i < tl->spilled_blocks; i++) {
            uint64_t used = 0;
            if (pread(tl->spill_fd, &used, sizeof used, offset) != (ssize_t)sizeof used
                || used > trace_memory_chunk_bytes()
                || pread(tl->spill_fd, buffer->data, used, offset + (off_t)sizeof used)
                       != (ssize_t)used) {
                spill_failed(tl, "read back");
                break;
            }
            offset += (off_t)(sizeof used + used);
            encode(tl, buffer->data, used);
        }
        if (buffer == NULL)
            spill_failed(tl, "read back (out of memory)");
        trace_memory_give_block(buffer);
    }
    while (tl->first != NULL) {
        raw_block* b = tl->first;
        tl->first = b->next;
        encode(tl, b->data, b->used);
        trace_memory_give_block(b);
    }
    trace_blocks_free(tl);
}

void trace_blocks_free(trace_location* tl)
{
    while (tl->first != NULL) {
        raw_block* b = tl->first;
        tl->first = b->next;
        trace_memory_give_block(b);
    }
    trace_blocks_discard(tl);
    if (tl->spill_fd >= 0)
        close(tl->spill_fd);
    tl->spill_fd = -1;
    tl->spilled_blocks = 0;
}
