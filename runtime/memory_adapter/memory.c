/* The memory adapter's support (scorep --memory, scorep-exec --memory): the
 * generated wrappers (generated/memory/, tasks/memory.json) call these.
 *
 * - allocation_size / deallocation_size (Score-P's metric names): bytes per
 *   call path, added to the malloc / free region the wrapper is in;
 * - maximum_heap_memory_allocated: per call path of an allocation, the
 *   most bytes live in the process's recorded allocations right after one
 *   of its allocations (the largest over the paths: the process's
 *   high-water mark);
 * - bytes_leaked / leaks: the blocks still in the table when the
 *   measurement ends, added to the call paths that allocated them.
 *
 * The table of live blocks is keyed by address: open addressing over an
 * mmap-backed array (nothing here allocates through malloc), slots claimed
 * with a compare-and-swap, no lock. A live address is unique (the C library
 * hands it out once until it is freed), so a slot is written by one thread at
 * a time; a freed slot becomes a tombstone that later inserts reuse.
 *
 * While the process has one thread (glibc's __libc_single_threaded: true
 * until the first pthread_create, which orders everything before it for the
 * new thread), the read-modify-writes (the slot's claim, the live bytes, the
 * high-water mark) are plain loads and stores: a locked instruction costs
 * about 7 ns next to the clock reads of a recorded call, the largest part of
 * the adapter's own cost (docs/PERFORMANCE.md). docs/MEMORY_ADAPTER.md. */
#include "scorep_memory_adapter.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/single_threaded.h>
#include <unistd.h>

__thread int scorep_memory_thread_busy __attribute__((tls_model("initial-exec")));
uintptr_t scorep_memory_core_begin = 0, scorep_memory_core_size = UINTPTR_MAX;

#define EMPTY ((uintptr_t)0)
#define TOMBSTONE ((uintptr_t)1)
#define TABLE_BITS 22   /* 4 Mi slots, 96 MiB of address space; pages appear as they are touched */

typedef struct slot {
    uintptr_t key;      /* block address, EMPTY or TOMBSTONE */
    uint64_t size;
    void* path;
} slot;

static slot* table;
static const size_t table_mask = ((size_t)1 << TABLE_BITS) - 1;
static uint64_t table_full;          /* allocations not tracked: the table was full */

static uint64_t live_bytes;

enum { M_ALLOC, M_FREE, M_LEAKED, M_LEAKS, M_HIGH, M_COUNT };
static const char* const metric_names[M_COUNT] = {
    "allocation_size", "deallocation_size", "bytes_leaked", "leaks", "maximum_heap_memory_allocated"};
static const char* const metric_units[M_COUNT] = {"bytes", "bytes", "bytes", "allocations", "bytes"};
static const char* const metric_descriptions[M_COUNT] = {
    "Size of allocated heap memory", "Size of released heap memory",
    "Size of allocated heap memory that was not released", "Number of allocations that were not released",
    "Maximum amount of heap memory allocated at a time"};
static const scorep_metric_kind metric_kinds[M_COUNT] = {SCOREP_METRIC_SUM_UNSIGNED, SCOREP_METRIC_SUM_UNSIGNED,
                                                         SCOREP_METRIC_SUM_UNSIGNED, SCOREP_METRIC_SUM_UNSIGNED,
                                                         SCOREP_METRIC_MAXIMUM};
static scorep_metric metrics[M_COUNT];
static int metrics_defined;

static void define_metrics(void)
{
    /* the core returns the same id to every thread that defines a name */
    for (int m = 0; m < M_COUNT; m++)
        metrics[m] = scorep_metric_define_kind(metric_names[m], metric_units[m], metric_descriptions[m], metric_kinds[m]);
    __atomic_store_n(&metrics_defined, 1, __ATOMIC_RELEASE);
}

/* The slot of a block: its address in 16-byte units (the C library's
 * alignment), so that blocks allocated one after another sit in neighbouring
 * slots, on cache lines and pages a recent call touched; a scattering hash
 * sent every call to a random place of the 96 MiB table, a cache and TLB
 * miss (and at first a page fault) each time, several hundred ns per call of
 * an allocation-heavy program (bench/memory_heavy). The bits above the
 * table's 64 MiB window are folded in, so that blocks a multiple of 64 MiB
 * apart do not share a home slot. */
static inline size_t slot_of(uintptr_t key)
{
    uint64_t units = (uint64_t)key >> 4;
    return (size_t)((units ^ (units >> TABLE_BITS) * 0x9E3779B1u) & table_mask);
}

/* No other thread can exist now (see the top of the file). */
static inline int single_threaded(void) { return __builtin_expect(__libc_single_threaded, 1); }

/* Claims the free slot i for key: a compare-and-swap, unless this is the
 * process's only thread. */
static inline int claim(size_t i, uintptr_t k, uintptr_t key)
{
    if (single_threaded()) {
        __atomic_store_n(&table[i].key, key, __ATOMIC_RELAXED);
        return 1;
    }
    return __atomic_compare_exchange_n(&table[i].key, &k, key, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

static void insert(uintptr_t key, uint64_t size, void* path)
{
    if (!table) return;
    size_t i = slot_of(key);
    for (size_t probes = 0; probes <= table_mask; probes++, i = (i + 1) & table_mask) {
        uintptr_t k = __atomic_load_n(&table[i].key, __ATOMIC_ACQUIRE);
        if (k == key) {
            /* a block freed unrecorded (by the measurement's pass-through,
             * or inside an MPI call) whose address came back */
            table[i].size = size, table[i].path = path;
            return;
        }
        if ((k == EMPTY || k == TOMBSTONE) && claim(i, k, key)) {
            table[i].size = size, table[i].path = path;
            return;
        }
    }
    __atomic_fetch_add(&table_full, 1, __ATOMIC_RELAXED);
}

static int take(uintptr_t key, slot* out)
{
    if (!table || key == EMPTY) return 0;
    size_t i = slot_of(key);
    for (size_t probes = 0; probes <= table_mask; probes++, i = (i + 1) & table_mask) {
        uintptr_t k = __atomic_load_n(&table[i].key, __ATOMIC_ACQUIRE);
        if (k == EMPTY) return 0;
        if (k == key) {
            *out = table[i];
            __atomic_store_n(&table[i].key, TOMBSTONE, __ATOMIC_RELEASE);
            return 1;
        }
    }
    return 0;
}

/* the process's live bytes after adding size */
static inline uint64_t live_add(uint64_t size)
{
    if (single_threaded()) return live_bytes += size;
    return __atomic_add_fetch(&live_bytes, size, __ATOMIC_RELAXED);
}

/* maximum_heap_memory_allocated, Score-P's way: on the call path of each
 * allocation, the largest of the process's live bytes right after one of
 * its allocations. The path is the allocating thread's own node: one
 * writer, no atomics. */
static inline void allocated_on(void* path, uint64_t size)
{
    scorep_profile_path_metric_raise(path, metrics[M_HIGH], (int64_t)live_add(size));
}

void scorep_memory_allocated(void* ptr, uint64_t size)
{
    if (__builtin_expect(!__atomic_load_n(&metrics_defined, __ATOMIC_ACQUIRE), 0)) define_metrics();
    void* path = scorep_profile_current_path();
    insert((uintptr_t)ptr, size, path);
    allocated_on(path, size);
    scorep_metric_add(metrics[M_ALLOC], (int64_t)size);
}

void scorep_memory_allocated_exit(scorep_region region, void* ptr, uint64_t size)
{
    if (!ptr) {
        scorep_exit(region);
        return;
    }
    if (__builtin_expect(!__atomic_load_n(&metrics_defined, __ATOMIC_ACQUIRE), 0)) define_metrics();
    void* path = scorep_exit_metric(region, metrics[M_ALLOC], (int64_t)size);
    insert((uintptr_t)ptr, size, path);
    allocated_on(path, size);
}

void scorep_memory_freed_exit(scorep_region region, const scorep_memory_block* block)
{
    if (block->found && block->size)
        scorep_exit_metric(region, metrics[M_FREE], (int64_t)block->size);
    else
        scorep_exit(region);
}

scorep_memory_block scorep_memory_take(void* ptr)
{
    scorep_memory_block b = {0, NULL, 0};
    slot s;
    if (ptr && take((uintptr_t)ptr, &s)) {
        b = (scorep_memory_block){s.size, s.path, 1};
        if (single_threaded())
            live_bytes -= s.size;
        else
            __atomic_sub_fetch(&live_bytes, s.size, __ATOMIC_RELAXED);
    }
    return b;
}

void scorep_memory_freed(const scorep_memory_block* block)
{
    if (block->found && block->size) scorep_metric_add(metrics[M_FREE], (int64_t)block->size);
}

void scorep_memory_reallocated(void* ptr, const scorep_memory_block* old, void* result, uint64_t size)
{
    if (result) {
        if (old->found && old->size) scorep_metric_add(metrics[M_FREE], (int64_t)old->size);
        scorep_memory_allocated(result, size);
    } else if (ptr && size == 0) {
        /* glibc's realloc(ptr, 0) frees ptr and returns NULL */
        if (old->found && old->size) scorep_metric_add(metrics[M_FREE], (int64_t)old->size);
    } else if (old->found) {
        /* failed: ptr is still the program's */
        insert((uintptr_t)ptr, old->size, old->path);
        live_add(old->size);
    }
}

/* realloc's leave attributes, as Score-P's: a new block (ptr NULL) its
 * address; a block freed by size 0 its size; a block moved or resized the
 * old size and the new address; a failure address 0 */
void scorep_memory_realloc_attributes(void* ptr, const scorep_memory_block* old, void* result, uint64_t size)
{
    uint64_t freed = old->found ? old->size : 0;
    if (ptr == NULL && result) {
        scorep_attribute(SCOREP_ATTRIBUTE_RESULT_ADDRESS, (uint64_t)(uintptr_t)result);
    } else if (ptr && size == 0) {
        scorep_attribute(SCOREP_ATTRIBUTE_DEALLOCATION_SIZE, freed);
    } else if (result) {
        scorep_attribute(SCOREP_ATTRIBUTE_DEALLOCATION_SIZE, freed);
        scorep_attribute(SCOREP_ATTRIBUTE_RESULT_ADDRESS, (uint64_t)(uintptr_t)result);
    } else {
        scorep_attribute(SCOREP_ATTRIBUTE_RESULT_ADDRESS, 0);
    }
}

int scorep_memory_posix_memalign_unrecorded(void** memptr, size_t alignment, size_t size)
{
    if (alignment < sizeof(void*) || (alignment & (alignment - 1))) return EINVAL;
    void* p = __libc_memalign(alignment, size);
    if (!p) return ENOMEM;
    *memptr = p;
    return 0;
}

void* scorep_memory_next(const char* symbol)
{
    void* address = dlsym(RTLD_NEXT, symbol);
    if (!address) {
        fprintf(stderr, "[Score-P] Error: memory adapter: cannot find the function '%s' to call: "
                        "no library loaded after the adapter defines it\n", symbol);
        abort();
    }
    return address;
}

/* The measurement ends: the leaks onto the paths that allocated them, the
 * high-water mark onto the path that reached it. */
static void at_end(void)
{
    if (!__atomic_load_n(&metrics_defined, __ATOMIC_ACQUIRE)) return;
    /* only the table's pages an insert touched can hold a block: reading the
     * others would map every page of the 96 MiB (mincore says which are in) */
    const size_t page = (size_t)sysconf(_SC_PAGESIZE), bytes = (table_mask + 1) * sizeof(slot);
    static unsigned char resident[((size_t)1 << TABLE_BITS) * sizeof(slot) / 4096 + 1];
    int known = table && page >= 4096 && bytes / page < sizeof resident && mincore(table, bytes, resident) == 0;
    for (size_t i = 0; table && i <= table_mask; i++) {
        if (known && !(resident[i * sizeof(slot) / page] & 1)) {
            i = ((i * sizeof(slot) / page + 1) * page + sizeof(slot) - 1) / sizeof(slot) - 1;   /* the next page */
            continue;
        }
        uintptr_t k = __atomic_load_n(&table[i].key, __ATOMIC_ACQUIRE);
        if (k == EMPTY || k == TOMBSTONE || !table[i].path) continue;
        scorep_profile_path_metric_add(table[i].path, metrics[M_LEAKED], (int64_t)table[i].size);
        scorep_profile_path_metric_add(table[i].path, metrics[M_LEAKS], 1);
    }
    if (table_full)
        fprintf(stderr, "[Score-P] Warning: memory adapter: %llu allocations were not tracked (the address "
                        "table of %zu blocks was full); their frees and leaks are not counted\n",
                (unsigned long long)table_full, table_mask + 1);
}

/* The measurement core's mapping, from its ELF program headers (no lock of
 * the dynamic loader's beyond dladdr's). */
static void find_core(void)
{
    Dl_info info;
    if (!dladdr((void*)&scorep_enter, &info) || !info.dli_fbase) return;
    const ElfW(Ehdr)* eh = info.dli_fbase;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0) return;
    const ElfW(Phdr)* ph = (const ElfW(Phdr)*)((const char*)eh + eh->e_phoff);
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < eh->e_phnum; i++) {
        if (ph[i].p_type != PT_LOAD) continue;
        if (ph[i].p_vaddr < lo) lo = ph[i].p_vaddr;
        if (ph[i].p_vaddr + ph[i].p_memsz > hi) hi = ph[i].p_vaddr + ph[i].p_memsz;
    }
    if (lo >= hi) return;
    /* a shared object's p_vaddr is relative to its load base (dli_fbase is
     * the base plus the first segment's p_vaddr, 0 for ld's layouts) */
    uintptr_t base = (uintptr_t)info.dli_fbase - (lo & ~(uintptr_t)0xfff);
    scorep_memory_core_begin = base + lo;
    __atomic_store_n(&scorep_memory_core_size, hi - lo, __ATOMIC_RELEASE);
}

__attribute__((constructor)) static void memory_adapter_start(void)
{
    scorep_memory_thread_busy = 1;
    void* t = mmap(NULL, (table_mask + 1) * sizeof(slot), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    table = t == MAP_FAILED ? NULL : t;
    scorep_at_measurement_end(at_end);
    find_core();
    scorep_memory_thread_busy = 0;
}
