/* The pragma lines of a program rebuilt with the compiler instrumentation
 * plugin (scorep_omp_sites.h). Without them a construct is named after the
 * debug line of its libgomp call, which GCC often takes from a neighbouring
 * statement, and a construct GCC computes inline (a static loop, master,
 * flush, an atomic update) is not seen at all.
 *
 * __scorep_omp_site leaves the thread's next construct its pragma's file
 * and lines; the adapter's naming (region_of_call in omp_adapter.c) asks
 * here first and takes them if the next call is of that construct. The
 * first call that takes a site owns it: a later call from elsewhere (code
 * compiled without the plugin) finds it stale. The adapter remembers a
 * section's region by the sections construct's call, so that the next
 * sections, handed out when the site is another construct's, are named
 * alike. */
#include "scorep_omp_adapter.h"
#include "scorep_omp_sites.h"

#include <pthread.h>
#include <string.h>

/* the kind of the thread's announced site (SCOREP_OMP_SITE_NONE: none),
 * apart so that the adapter's calls test it inline (scorep_omp_adapter.h) */
SCOREP_OMP_TLS int scorep_omp_next_site_kind;
static SCOREP_OMP_TLS struct {
    const char* file;
    int line;
    int end_line;
    const char* name;   /* a named critical section's, or NULL */
    const void* owner;  /* the call that took it first (NULL: none yet) */
} next_site;

/* the site kind whose pragma names construct's regions */
static int kind_of(scorep_omp_construct construct)
{
    switch (construct) {
    case SCOREP_OMP_PARALLEL:
    case SCOREP_OMP_PARALLEL_END: return SCOREP_OMP_SITE_PARALLEL;
    case SCOREP_OMP_FOR: return SCOREP_OMP_SITE_FOR;
    case SCOREP_OMP_SECTIONS:
    case SCOREP_OMP_SECTION: return SCOREP_OMP_SITE_SECTIONS;
    case SCOREP_OMP_SINGLE:
    case SCOREP_OMP_SINGLE_COPY:
    case SCOREP_OMP_SINGLE_SBLOCK: return SCOREP_OMP_SITE_SINGLE;
    case SCOREP_OMP_CRITICAL:
    case SCOREP_OMP_CRITICAL_SBLOCK: return SCOREP_OMP_SITE_CRITICAL;
    case SCOREP_OMP_ORDERED:
    case SCOREP_OMP_ORDERED_SBLOCK: return SCOREP_OMP_SITE_ORDERED;
    case SCOREP_OMP_ATOMIC: return SCOREP_OMP_SITE_ATOMIC;
    case SCOREP_OMP_BARRIER: return SCOREP_OMP_SITE_BARRIER;
    case SCOREP_OMP_IMPLICIT_BARRIER: return SCOREP_OMP_SITE_IMPLICIT_BARRIER;
    case SCOREP_OMP_TASK_CREATE:
    case SCOREP_OMP_TASK: return SCOREP_OMP_SITE_TASK;
    case SCOREP_OMP_TASKWAIT: return SCOREP_OMP_SITE_TASKWAIT;
    case SCOREP_OMP_TASKGROUP: return SCOREP_OMP_SITE_TASKGROUP;
    case SCOREP_OMP_MASTER: return SCOREP_OMP_SITE_MASTER;
    case SCOREP_OMP_FLUSH: return SCOREP_OMP_SITE_FLUSH;
    default: return SCOREP_OMP_SITE_NONE;
    }
}

/* The regions of the pragmas seen so far, by the file's string (one per
 * translation unit), line and construct: named once, then found without a
 * lock (a slot's file is written last). */
#define SLOTS 4096
static struct slot {
    const char* file;
    int line;
    scorep_omp_construct construct;
    scorep_region region;
} slots[SLOTS];
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;

static scorep_region region_of(scorep_omp_construct construct, const char* file, int line, const char* name)
{
    uint64_t h = ((uint64_t)(uintptr_t)file ^ (uint64_t)line << 20 ^ (uint64_t)construct << 52) *
                 0x9e3779b97f4a7c15ull;
    for (unsigned probe = 0; probe < SLOTS; probe++) {
        struct slot* s = &slots[((h >> 40) + probe) % SLOTS];
        const char* seen = __atomic_load_n(&s->file, __ATOMIC_ACQUIRE);
        if (seen == NULL) break;
        if (seen == file && s->line == line && s->construct == construct) return s->region;
    }
    int was_off = scorep_thread_event_generation_off;
    scorep_event_generation_off();   /* the definition's allocations are not the program's */
    pthread_mutex_lock(&slots_lock);
    scorep_region region = SCOREP_INVALID_ID;
    for (unsigned probe = 0; probe < SLOTS; probe++) {
        struct slot* s = &slots[((h >> 40) + probe) % SLOTS];
        if (s->file == file && s->line == line && s->construct == construct) {
            region = s->region;
            break;
        }
        if (s->file == NULL) {
            region = scorep_omp_region_named(construct, file, line, name);
            s->line = line;
            s->construct = construct;
            s->region = region;
            __atomic_store_n(&s->file, file, __ATOMIC_RELEASE);
            break;
        }
    }
    if (region == SCOREP_INVALID_ID)   /* the table is full: named again at each use */
        region = scorep_omp_region_named(construct, file, line, name);
    pthread_mutex_unlock(&slots_lock);
    scorep_thread_event_generation_off = was_off;
    return region;
}

void __scorep_omp_site(int kind, const char* file, int line, int end_line)
{
    scorep_omp_next_site_kind = kind;
    next_site.file = file;
    next_site.line = line;
    next_site.end_line = end_line;
    next_site.name = NULL;
    next_site.owner = NULL;
}

void __scorep_omp_site_named(int kind, const char* file, int line, const char* name)
{
    __scorep_omp_site(kind, file, line, 0);
    next_site.name = name;
}

int scorep_omp_site_pending(scorep_omp_construct construct, const void* call)
{
    return scorep_omp_next_site_kind != SCOREP_OMP_SITE_NONE && scorep_omp_next_site_kind == kind_of(construct) &&
           (next_site.owner == NULL || next_site.owner == call);
}

scorep_region scorep_omp_site_region(scorep_omp_construct construct, const void* call)
{
    int kind = scorep_omp_next_site_kind;
    if (kind == SCOREP_OMP_SITE_NONE) return SCOREP_INVALID_ID;
    if (next_site.owner != NULL && next_site.owner != call) {   /* another call's */
        scorep_omp_next_site_kind = SCOREP_OMP_SITE_NONE;
        return SCOREP_INVALID_ID;
    }
    /* a combined construct is named after its parallel region's pragma */
    if (kind == SCOREP_OMP_SITE_PARALLEL || kind == SCOREP_OMP_SITE_PARALLEL_FOR) {
        if (construct != SCOREP_OMP_PARALLEL && construct != SCOREP_OMP_PARALLEL_END &&
            construct != SCOREP_OMP_FOR && construct != SCOREP_OMP_SECTIONS)
            return SCOREP_INVALID_ID;
    } else if (kind == SCOREP_OMP_SITE_COMBINED_FOR) {
        if (construct != SCOREP_OMP_FOR && construct != SCOREP_OMP_IMPLICIT_BARRIER) return SCOREP_INVALID_ID;
    } else if (kind != kind_of(construct)) {
        return SCOREP_INVALID_ID;
    }
    next_site.owner = call;
    int end = construct == SCOREP_OMP_PARALLEL_END || construct == SCOREP_OMP_IMPLICIT_BARRIER;
    int line = end && next_site.end_line > 0 ? next_site.end_line : next_site.line;
    /* the name is the construct region's, not its block's */
    return region_of(construct, next_site.file, line, construct == SCOREP_OMP_CRITICAL ? next_site.name : NULL);
}

scorep_omp_construct scorep_omp_site_combined(void)
{
    return scorep_omp_next_site_kind == SCOREP_OMP_SITE_PARALLEL_FOR ? SCOREP_OMP_FOR : SCOREP_OMP_NONE;
}

int scorep_omp_site_combined_loop(void)
{
    return scorep_omp_next_site_kind == SCOREP_OMP_SITE_COMBINED_FOR;
}

void scorep_omp_site_clear(void)
{
    scorep_omp_next_site_kind = SCOREP_OMP_SITE_NONE;
}

/* the construct of a kind the plugin opens and closes itself */
static scorep_omp_construct inline_construct(int kind)
{
    switch (kind) {
    case SCOREP_OMP_SITE_FOR: return SCOREP_OMP_FOR;
    case SCOREP_OMP_SITE_MASTER: return SCOREP_OMP_MASTER;
    case SCOREP_OMP_SITE_FLUSH: return SCOREP_OMP_FLUSH;
    case SCOREP_OMP_SITE_ATOMIC: return SCOREP_OMP_ATOMIC;
    default: return SCOREP_OMP_NONE;
    }
}

void __scorep_omp_begin(int kind, const char* file, int line)
{
    scorep_omp_construct construct = inline_construct(kind);
    if (construct == SCOREP_OMP_NONE) return;
    scorep_omp_inline_begin(construct, region_of(construct, file, line, NULL));
}

void __scorep_omp_end(int kind)
{
    scorep_omp_construct construct = inline_construct(kind);
    if (construct != SCOREP_OMP_NONE) scorep_omp_inline_end(construct);
}
