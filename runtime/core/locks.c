/* The process's locks, for the trace's ThreadAcquireLock and
 * ThreadReleaseLock (Score-P's lock events): pthread mutexes (the thread
 * adapter), OpenMP's critical sections and locks (the OpenMP adapter).
 * Each lock has a slot of a fixed table, found from its address by open
 * addressing and claimed with one compare-and-swap, so that a lock event
 * takes no lock and allocates nothing. The thread that claims a slot
 * numbers the lock (0, 1, ... in the order of first use, as Score-P
 * numbers them). Everything else of a slot (the number once set, the
 * acquisition count, the depth of a recursive lock's nested holds) is
 * written only while the thread holds the lock, which orders these writes
 * for the next thread to hold it: an adapter records the acquisition
 * after the lock call took the lock and the release before the unlock
 * call gives it up. A lock beyond the table's LOCK_SLOTS gets no lock
 * events; a lock destroyed and another made at its address share a
 * number, which is right for the trace: one lock at a time. */
#include "internal.h"

#define LOCK_SLOTS 8192
static struct lock_slot {
    uintptr_t lock;      /* 0: free; set once */
    uint32_t number;     /* the lock's number + 1 (0: not numbered yet) */
    uint32_t order;      /* acquisitions so far (the outermost of nested ones) */
    uint32_t depth;      /* held this many times (recursive and nested locks) */
} locks[LOCK_SLOTS];
static uint32_t lock_count;

static struct lock_slot* lock_slot(const void* lock)
{
    uintptr_t key = (uintptr_t)lock;
    uint64_t h = (uint64_t)key * 0x9e3779b97f4a7c15ull;
    for (unsigned probe = 0; probe < LOCK_SLOTS; probe++) {
        struct lock_slot* slot = &locks[((h >> 40) + probe) % LOCK_SLOTS];
        uintptr_t seen = __atomic_load_n(&slot->lock, __ATOMIC_ACQUIRE);
        if (seen == 0) {
            if (__atomic_compare_exchange_n(&slot->lock, &seen, key, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
                seen = key;
        }
        if (seen == key) {
            if (slot->number == 0)
                slot->number = __atomic_add_fetch(&lock_count, 1, __ATOMIC_RELAXED);
            return slot;
        }
    }
    return NULL;
}

void scorep_lock_event(scorep_thread_event_kind kind, const void* lock)
{
    if (lock == NULL) return;
    struct lock_slot* slot = lock_slot(lock);
    if (slot == NULL) return;
    if (kind == SCOREP_THREAD_ACQUIRE_LOCK || kind == SCOREP_THREAD_OMP_ACQUIRE_LOCK) {
        if (slot->depth++ == 0)
            slot->order++;
    } else if (slot->depth > 0) {   /* a lock taken where nothing was recorded has depth 0 here */
        slot->depth--;
    }
    scorep_thread_event(kind, scorep_thread_lock_word(slot->number - 1, slot->order));
}
