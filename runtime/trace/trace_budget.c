/*
 * SCOREP_TRACING_MAX_SIZE: the bytes of event data the processes of one node
 * may record together (runtime/README.md).
 *
 * The processes of a node share the free space of the experiment
 * directory's file system, so they share one budget, counted in bytes of raw
 * records (trace_raw.h; OTF2 encodes them into fewer). A location reserves
 * room in its current block a slice at a time (trace_blocks.c), with one
 * atomic add on a counter: once per slice (at most a block, at least 4 KiB,
 * about 1/256 of the budget), never per event. The slice that meets the end
 * of the budget is granted in part, so the last record fits the budget to
 * the byte; the next reservation gets nothing and the trace stops
 * (trace.limit_reached, trace_location_stop).
 *
 * Before the experiment directory exists the counter is the process's own.
 * Then (experiment_dir_ready) every process of the node maps one small file
 * in the experiment directory, named after the node (the host name), with
 * MAP_SHARED, and adds what it reserved so far; the first one there sets the
 * budget for all. No communication: it works for serial programs (a node of
 * one), for ranks that notice MPI late and for every MPI. Every process of
 * the node has mapped the file before any of them writes its trace (the
 * unification comes first), so the first one to write removes the name; the
 * mapping stays valid.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace.h"

typedef struct shared_budget {
    _Atomic uint64_t budget;   /* bytes (0: not known yet, UINT64_MAX: unlimited) */
    _Atomic uint64_t used;     /* bytes reserved by the node's processes (may pass budget) */
} shared_budget;
/* shared between processes: the atomics must not be a lock of the process */
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2 && sizeof(uint64_t) == sizeof(long long),
               "lock-free 64-bit atomics");

#define SLICE_MIN (4u * 1024)
#define SLICE_UNKNOWN (64u * 1024)

static shared_budget own;                    /* the process's, until the node's is mapped */
static _Atomic(shared_budget*) counter = &own;
/* 0: a whole block; until the budget is known (auto: when the experiment
 * directory exists), small slices, so what the process holds then is little
 * more than what it used when it joins the node's count */
static _Atomic uint64_t slice_bytes = SLICE_UNKNOWN;
static char shared_path[PATH_MAX];

static uint64_t slice_for(uint64_t budget)
{
    if (budget == 0)
        return SLICE_UNKNOWN;
    if (budget == UINT64_MAX)
        return 0;
    uint64_t slice = budget / 256;
    return slice < SLICE_MIN ? SLICE_MIN : slice;
}

uint64_t trace_budget_reserve(uint64_t wanted)
{
    uint64_t slice = atomic_load_explicit(&slice_bytes, memory_order_relaxed);
    if (slice != 0 && wanted > slice)
        wanted = slice;
    shared_budget* c = atomic_load_explicit(&counter, memory_order_acquire);
    uint64_t budget = atomic_load_explicit(&c->budget, memory_order_relaxed);
    uint64_t before = atomic_fetch_add(&c->used, wanted);
    if (budget == 0 || budget == UINT64_MAX)
        return wanted;
    if (before >= budget) {
        atomic_store(&trace.limit_reached, 1);
        return 0;
    }
    return budget - before < wanted ? budget - before : wanted;
}

void trace_budget_set(uint64_t budget)
{
    if (budget == 0)
        return;   /* not known yet: nothing stops the trace */
    shared_budget* c = atomic_load(&counter);
    uint64_t none = 0;   /* the first process of the node to know it decides */
    atomic_compare_exchange_strong(&c->budget, &none, budget);
    budget = atomic_load(&c->budget);
    atomic_store(&slice_bytes, slice_for(budget));
    if (budget != UINT64_MAX && atomic_load(&c->used) >= budget)
        atomic_store(&trace.limit_reached, 1);
}

uint64_t trace_budget_bytes(void)
{
    uint64_t budget = atomic_load(&atomic_load(&counter)->budget);
    return budget == UINT64_MAX ? 0 : budget;
}

static uint64_t host_hash(void)
{
    char name[256] = {0};
    gethostname(name, sizeof name - 1);
    uint64_t h = 1469598103934665603ull;  /* FNV-1a */
    for (const char* c = name; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    return h;
}

int trace_budget_share(const char* directory)
{
    char path[PATH_MAX];
    int n = snprintf(path, sizeof path, "%s/.scorep-trace-budget-%016llx", directory,
                     (unsigned long long)host_hash());
    if (n <= 0 || (size_t)n >= sizeof path)
        return -1;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    /* every process grows it to the same size: a second ftruncate changes nothing */
    struct stat st;
    if (fstat(fd, &st) != 0 || (st.st_size < (off_t)sizeof(shared_budget)
                                && ftruncate(fd, sizeof(shared_budget)) != 0)) {
        close(fd);
        unlink(path);
        return -1;
    }
    shared_budget* node = mmap(NULL, sizeof *node, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (node == MAP_FAILED)
        return -1;
    strcpy(shared_path, path);
    /* what the process reserved so far counts on the node; its budget is the
     * one it had (the node's, once set, wins) */
    atomic_fetch_add(&node->used, atomic_load(&own.used));
    atomic_store(&counter, node);
    trace_budget_set(atomic_load(&own.budget));
    return 0;
}

void trace_budget_unshare(void)
{
    if (shared_path[0] != '\0')
        unlink(shared_path);   /* the other processes of the node may have done it */
    shared_path[0] = '\0';
}
