/* The measurement's own memory for what lives as long as the process:
 * definitions, profile nodes, location states. It comes from mmap, never
 * from malloc: a signal handler's first call of a function or at a new call
 * path needs such memory while the thread it interrupted may be inside the
 * C library's malloc, whose locks are not re-entrant (a hang) and whose
 * single-threaded fast path is not re-entrant either (a corrupt heap). And a
 * program's own allocator never sees the measurement's allocations.
 *
 * Bump allocation from 1 MiB chunks without a lock: a handler may interrupt
 * an allocation on its own thread at any instruction. Memory is zero-filled
 * and never given back, except large blocks (own mappings) on release. */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"

#define ARENA_CHUNK ((size_t)1 << 20)
#define ARENA_LARGE (ARENA_CHUNK / 8)   /* from here on a block is a mapping of its own */
#define ARENA_ALIGN 16

typedef struct arena_chunk {
    size_t used;   /* bytes handed out, header included; may run past the end when full */
} arena_chunk;

static arena_chunk* current;

static size_t round_up(size_t n, size_t to) { return (n + to - 1) & ~(to - 1); }

static void* map_zeroed(size_t size)
{
    void* p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void* scorep_arena_alloc(size_t size)
{
    size = round_up(size ? size : 1, ARENA_ALIGN);
    if (size >= ARENA_LARGE) return map_zeroed(round_up(size, 4096));
    for (;;) {
        arena_chunk* c = __atomic_load_n(&current, __ATOMIC_ACQUIRE);
        if (c) {
            size_t at = __atomic_fetch_add(&c->used, size, __ATOMIC_RELAXED);
            if (at + size <= ARENA_CHUNK) return (char*)c + at;
        }
        arena_chunk* fresh = map_zeroed(ARENA_CHUNK);
        if (!fresh) return NULL;
        fresh->used = round_up(sizeof *fresh, ARENA_ALIGN);
        /* another thread, or a handler on this one, may have put a chunk in meanwhile */
        if (!__atomic_compare_exchange_n(&current, &c, fresh, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            munmap(fresh, ARENA_CHUNK);
    }
}

void scorep_arena_release(void* block, size_t size)
{
    size = round_up(size ? size : 1, ARENA_ALIGN);
    if (block && size >= ARENA_LARGE) munmap(block, round_up(size, 4096));
}

char* scorep_arena_strdup(const char* text)
{
    size_t n = strlen(text) + 1;
    char* copy = scorep_arena_alloc(n);
    if (copy) memcpy(copy, text, n);
    return copy;
}
