/* Per-file I/O totals (docs/IO_ADAPTER.md, "Per file"): for every file the
 * I/O adapters gave a handle, the transfers on it (visits), the bytes read and
 * written and the time in those transfers, summed over all threads and ranks
 * into profile.json's "io_files" and profile.txt's I/O section.
 *
 * Fed from the I/O operation events (events.c: scorep_io_operation_begin /
 * _complete), which already know the transfer's handle: one handle per file
 * name and I/O paradigm (definitions.c), dense from 0. Each thread adds into
 * its own array indexed by the handle's local id: no lock and no allocation
 * per transfer. The array is allocated once, at the thread's first transfer,
 * with room for IO_FILES_MAX handles; transfers on handles beyond that count
 * into one "other files" entry (reported as such, never dropped). The
 * arrays stay in a list after their thread ends; at the end the totals are
 * summed per unified handle over threads and ranks, then per file name over
 * the paradigms (a file written with fwrite and read with read is one file). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "report.h"
#include "io_files.h"

static io_files_thread* all_threads;   /* pushed without a lock (CAS) */
__thread io_files_thread* scorep_io_files_mine TLS_FAST;

static __attribute__((noinline, cold)) io_files_thread* thread_start(void)
{
    io_files_thread* t = scorep_arena_alloc(sizeof *t);
    if (!t) return NULL;
    t->next = __atomic_load_n(&all_threads, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(&all_threads, &t->next, t, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
    }
    scorep_io_files_mine = t;
    return t;
}

void scorep_io_files_begin(uint64_t t, scorep_io_handle handle, scorep_io_operation mode)
{
    io_files_thread* f = scorep_io_files_mine;
    if (UNLIKELY(!f) && !(f = thread_start())) return;
    f->pending_slot = handle < IO_FILES_MAX ? handle : IO_FILES_MAX;
    f->pending_mode = mode;
    f->pending_ticks = t;
}

void scorep_io_files_complete(uint64_t t, scorep_io_handle handle, uint64_t bytes)
{
    io_files_thread* f = scorep_io_files_mine;
    if (UNLIKELY(!f)) return;
    uint32_t slot = handle < IO_FILES_MAX ? handle : IO_FILES_MAX;
    io_file_sum* s = &f->sums[slot];
    scorep_io_files_add(s, f->pending_mode, bytes,
                        f->pending_slot == slot && t >= f->pending_ticks ? t - f->pending_ticks : 0);
    f->pending_slot = UINT32_MAX;
}

/* A transfer whose begin no substrate recorded (the profile alone,
 * events.c: scorep_io_transfer_exit), begun at t_begin and complete at
 * t_end: begin and complete in one call. */
void scorep_io_files_transfer(uint64_t t_begin, uint64_t t_end, scorep_io_handle handle, scorep_io_operation mode,
                              uint64_t bytes)
{
    /* what begin then complete add, without the pending transfer's round
     * trip through memory: only the file's sums are touched (a complete
     * always follows its own begin, which sets the pending fields anew) */
    io_files_thread* f = scorep_io_files_mine;
    if (UNLIKELY(!f) && !(f = thread_start())) return;
    scorep_io_files_add(scorep_io_files_slot(f, handle), mode, bytes, t_end >= t_begin ? t_end - t_begin : 0);
}

static uint64_t to_ns(uint64_t ticks, uint64_t tps)
{
    if (tps == 1000000000ull) return ticks;
    return (uint64_t)((unsigned __int128)ticks * 1000000000u / (tps ? tps : 1));
}

/* Collective over all ranks (unless ctx->mpp is NULL): the totals per file
 * name on rank 0, in the order of the unified handles that name the files
 * first, the "other files" entry (name NULL) last if it has any visits. */
scorep_io_file_total* scorep_io_files_collect(const scorep_finalize_context* ctx, size_t* count)
{
    *count = 0;
    const scorep_unified_definitions* defs = ctx->defs;
    uint32_t nlocal = scorep_io_handle_count();
    /* the unified handle count: the largest global id any rank maps to, + 1 */
    uint64_t nglobal = 0;
    for (uint32_t h = 0; h < nlocal; h++)
        if (defs->io_handle_map[h] != SCOREP_INVALID_ID && defs->io_handle_map[h] + 1ull > nglobal)
            nglobal = defs->io_handle_map[h] + 1ull;
    if (ctx->mpp) ctx->mpp->allreduce_u64(&nglobal, 1, 2);
    /* 4 figures per unified handle, then the other files' 4 */
    size_t n = (size_t)nglobal + 1;
    uint64_t* sums = calloc(n * 4, sizeof *sums);
    if (!sums) return NULL;   /* every rank: calloc fails alike or the ranks are lost anyway */
    for (io_files_thread* f = __atomic_load_n(&all_threads, __ATOMIC_ACQUIRE); f; f = f->next)
        for (uint32_t h = 0; h <= IO_FILES_MAX; h++) {
            const io_file_sum* s = &f->sums[h];
            if (!s->visits) continue;
            uint32_t g = h < IO_FILES_MAX && h < nlocal ? defs->io_handle_map[h] : SCOREP_INVALID_ID;
            uint64_t* to = &sums[4 * (g < nglobal ? g : nglobal)];
            to[0] += s->visits;
            to[1] += s->bytes[0];
            to[2] += s->bytes[1];
            to[3] += to_ns(s->ticks, ctx->ticks_per_second);
        }
    if (ctx->mpp) ctx->mpp->allreduce_u64(sums, n * 4, 0);
    if ((ctx->mpp && ctx->rank != 0) || !defs->io_handles) {
        free(sums);
        return NULL;
    }
    scorep_io_file_total* out = calloc(n, sizeof *out);
    size_t files = 0;
    for (uint32_t g = 0; out && g < nglobal && g < defs->io_handle_count; g++) {
        const uint64_t* s = &sums[4 * g];
        if (!s[0]) continue;
        const char* name = defs->io_handles[g].name;
        size_t i = 0;
        while (i < files && strcmp(out[i].name, name) != 0) i++;
        if (i == files) out[files++].name = name;
        out[i].visits += s[0];
        out[i].bytes_read += s[1];
        out[i].bytes_written += s[2];
        out[i].time_ns += s[3];
    }
    if (out && sums[4 * nglobal]) {
        const uint64_t* s = &sums[4 * nglobal];
        out[files++] = (scorep_io_file_total){NULL, s[0], s[1], s[2], s[3]};
    }
    free(sums);
    *count = files;
    return out;
}
