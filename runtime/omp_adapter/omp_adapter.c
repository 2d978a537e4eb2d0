/* The hand-written part of the OpenMP adapter: the team trampoline, the
 * GOMP wrappers' constructs on the thread's open-construct stack
 * (omp_constructs.c, which the OMPT front-end shares) and the construct
 * regions' names.
 *
 * GCC lowers a parallel region to GOMP_parallel(fn, data, ...) with the
 * region's body outlined into fn. The generated wrapper hands libgomp
 * scorep_omp_trampoline and a fork record instead: every member of the
 * team begins its part there (ThreadTeamBegin, which gives it the
 * member's location), enters the region, runs fn and enters the region's
 * implicit barrier, which is libgomp's end of the team after the
 * trampoline returns. The forking thread's join, once libgomp has ended
 * the team, leaves the barrier and the region on every member's location
 * and records their ThreadTeamEnd (runtime/core/events.c): the wait is
 * measured where Score-P measures it without the extra barrier Score-P's
 * source instrumentation adds for it.
 *
 * Worksharing and mutual exclusion constructs are seen as entry points
 * too (GOMP_loop_dynamic_start ... GOMP_loop_end, GOMP_critical_start ...).
 * Some constructs leave no call: a loop with a static schedule is
 * computed inline, master is a test of omp_get_thread_num, a single's
 * end has no call; docs/OPENMP_ADAPTER.md says what that means for the
 * profile. A single stays open until the thread's next construct call,
 * and a barrier right after it is its implicit barrier. A program rebuilt
 * with the compiler plugin announces those constructs and each pragma's
 * line (omp_sites.c).
 *
 * Names: "!$omp <construct> @<file>:<line>", the file and line of the
 * program's call (elfutils' libdw, opened when the first construct is
 * named: without it, or without debug information, the function that
 * calls); the parallel region's implicit barrier is named after the last
 * line of the outlined function, its end. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "scorep_omp_adapter.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#ifdef SCOREP_LIBWRAP_STATIC
/* the program's own libgomp */
extern int omp_get_thread_num(void);
extern int omp_get_num_threads(void);
static int thread_num(void) { return omp_get_thread_num(); }
static int num_threads(void) { return omp_get_num_threads(); }
extern int omp_get_max_threads(void);
static int max_threads(void) { return omp_get_max_threads(); }
#else
/* resolved from the program's OpenMP runtime when first needed: this
 * library does not link one, so that preloading it into a program loads
 * none */
static int (*get_thread_num)(void);
static int (*get_num_threads)(void);
static int (*get_max_threads)(void);
static void resolve_runtime(void)
{
    if (get_num_threads != NULL) return;
    get_max_threads = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_max_threads");
    get_thread_num = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_thread_num");
    __atomic_store_n(&get_num_threads, (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_num_threads"),
                     __ATOMIC_RELEASE);
}
static int thread_num(void) { resolve_runtime(); return get_thread_num ? get_thread_num() : 0; }
static int num_threads(void) { resolve_runtime(); return get_num_threads ? get_num_threads() : 1; }
static int max_threads(void) { resolve_runtime(); return get_max_threads ? get_max_threads() : 1; }
#endif

/* ---- names ---------------------------------------------------------------- */

static const struct {
    const char* name;
    scorep_region_role role;
} constructs[SCOREP_OMP_CONSTRUCT_COUNT] = {
    [SCOREP_OMP_PARALLEL] = {"!$omp parallel", SCOREP_ROLE_PARALLEL},
    [SCOREP_OMP_FOR] = {"!$omp for", SCOREP_ROLE_LOOP},
    [SCOREP_OMP_SECTIONS] = {"!$omp sections", SCOREP_ROLE_SECTIONS},
    [SCOREP_OMP_SECTION] = {"!$omp section", SCOREP_ROLE_SECTION},
    [SCOREP_OMP_SINGLE] = {"!$omp single", SCOREP_ROLE_SINGLE},
    [SCOREP_OMP_SINGLE_COPY] = {"!$omp single", SCOREP_ROLE_SINGLE},
    [SCOREP_OMP_SINGLE_SBLOCK] = {"!$omp single sblock", SCOREP_ROLE_SINGLE_SBLOCK},
    [SCOREP_OMP_CRITICAL] = {"!$omp critical", SCOREP_ROLE_CRITICAL},
    [SCOREP_OMP_CRITICAL_SBLOCK] = {"!$omp critical sblock", SCOREP_ROLE_CRITICAL_SBLOCK},
    [SCOREP_OMP_ORDERED] = {"!$omp ordered", SCOREP_ROLE_ORDERED},
    [SCOREP_OMP_ORDERED_SBLOCK] = {"!$omp ordered sblock", SCOREP_ROLE_ORDERED_SBLOCK},
    [SCOREP_OMP_ATOMIC] = {"!$omp atomic", SCOREP_ROLE_ATOMIC},
    [SCOREP_OMP_BARRIER] = {"!$omp barrier", SCOREP_ROLE_BARRIER},
    [SCOREP_OMP_IMPLICIT_BARRIER] = {"!$omp implicit barrier", SCOREP_ROLE_IMPLICIT_BARRIER},
    [SCOREP_OMP_TASK_CREATE] = {"!$omp create task", SCOREP_ROLE_TASK_CREATE},
    [SCOREP_OMP_TASK] = {"!$omp task", SCOREP_ROLE_TASK},
    [SCOREP_OMP_TASKWAIT] = {"!$omp taskwait", SCOREP_ROLE_TASK_WAIT},
    [SCOREP_OMP_TASKYIELD] = {"!$omp taskyield", SCOREP_ROLE_TASK_WAIT},
    [SCOREP_OMP_TASKGROUP] = {"!$omp taskgroup", SCOREP_ROLE_TASK_WAIT},
    [SCOREP_OMP_PARALLEL_END] = {"!$omp implicit barrier", SCOREP_ROLE_IMPLICIT_BARRIER},
    [SCOREP_OMP_MASTER] = {"!$omp master", SCOREP_ROLE_MASTER},
    [SCOREP_OMP_FLUSH] = {"!$omp flush", SCOREP_ROLE_FUNCTION},   /* no role of its own */
};

/* under it: the construct sites' table (site_slot) */
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;

/* the address of the last instruction of the function at address (0: unknown) */
static uintptr_t function_end(uintptr_t address)
{
    char name[8];
    uintptr_t start, end;
    return scorep_code_symbol(address, name, sizeof name, &start, &end) && end ? end - 1 : 0;
}

/* the address of the first instruction of the function at address (0: unknown) */
static uintptr_t function_start(uintptr_t address)
{
    char name[8];
    uintptr_t start, end;
    return scorep_code_symbol(address, name, sizeof name, &start, &end) ? start : 0;
}

/* Fortran's loop construct is "do" (Score-P names it as the source says) */
static int fortran_source(const char* file)
{
    static const char* const suffixes[] = {".f", ".F", ".f90", ".F90", ".f95", ".F95", ".f03", ".F03", ".f08",
                                           ".F08", ".for", ".FOR", ".ftn", ".FTN"};
    const char* dot = strrchr(file, '.');
    for (size_t i = 0; dot && i < sizeof suffixes / sizeof *suffixes; i++)
        if (strcmp(dot, suffixes[i]) == 0) return 1;
    return 0;
}

/* libgomp's per-name pointer of the named critical section the thread
 * begins (scorep_omp_critical_name_begin; NULL: none) */
static SCOREP_OMP_TLS void** critical_name;

/* A named critical section's name: GCC and gfortran give libgomp the
 * address of a variable ".gomp_critical_user_<name>" (the symbol table's:
 * a stripped binary has none). 0: not known. */
static int critical_section_name(void** pptr, char* out, size_t size)
{
    static const char prefix[] = ".gomp_critical_user_";
    char symbol[256];
    uintptr_t start, end;
    if (!scorep_code_symbol((uintptr_t)pptr, symbol, sizeof symbol, &start, &end) || start != (uintptr_t)pptr ||
        strncmp(symbol, prefix, sizeof prefix - 1) != 0)
        return 0;
    snprintf(out, size, "%s", symbol + sizeof prefix - 1);
    return 1;
}

/* "name @file:line" with the file's last component, as Score-P names
 * constructs (a named critical section "!$omp critical (name) @file:line"),
 * or "name @function" / "name @object+0xoffset" */
static scorep_region define_named(scorep_omp_construct construct, uintptr_t address, int at_function_end)
{
    char file[1024], name[1400], critical[256], named[300];
    int line = 0;
    const char* what = constructs[construct].name;
    if (construct == SCOREP_OMP_CRITICAL && critical_name != NULL &&
        critical_section_name(critical_name, critical, sizeof critical)) {
        snprintf(named, sizeof named, "%s (%s)", what, critical);
        what = named;
    }
    if ((at_function_end || construct == SCOREP_OMP_PARALLEL_END) && address != 0) {
        uintptr_t end = function_end(address);
        if (end != 0) address = end;
    }
    if (address != 0 && scorep_code_source_line(address, file, sizeof file, &line)) {
        if (construct == SCOREP_OMP_FOR && fortran_source(file)) what = "!$omp do";
        const char* base = strrchr(file, '/');
        snprintf(name, sizeof name, "%s @%s:%d", what, base ? base + 1 : file, line);
        return scorep_region_define_at(name, file, line, SCOREP_PARADIGM_OPENMP, constructs[construct].role, "OMP");
    }
    Dl_info info;
    if (address != 0 && dladdr((void*)address, &info) && info.dli_fname) {
        const char* base = strrchr(info.dli_fname, '/');
        base = base ? base + 1 : info.dli_fname;
        if (info.dli_sname) {
            char* free_this;
            snprintf(name, sizeof name, "%s @%s", what, scorep_code_demangled(info.dli_sname, &free_this));
            free(free_this);
        } else
            snprintf(name, sizeof name, "%s @%s+0x%lx", what, base,
                     (unsigned long)(address - (uintptr_t)info.dli_fbase));
    } else {
        snprintf(name, sizeof name, "%s", what);
    }
    return scorep_region_define(name, "OMP", SCOREP_PARADIGM_OPENMP, constructs[construct].role, "OMP");
}

/* named after a pragma's line (omp_sites.c) */
scorep_region scorep_omp_region_named(scorep_omp_construct construct, const char* file, int line,
                                      const char* critical_name)
{
    char name[1200];
    const char* what = constructs[construct].name;
    if (construct == SCOREP_OMP_FOR && fortran_source(file)) what = "!$omp do";
    const char* base = strrchr(file, '/');
    if (critical_name)
        snprintf(name, sizeof name, "%s (%s) @%s:%d", what, critical_name, base ? base + 1 : file, line);
    else
        snprintf(name, sizeof name, "%s @%s:%d", what, base ? base + 1 : file, line);
    return scorep_region_define_at(name, file, line, SCOREP_PARADIGM_OPENMP, constructs[construct].role, "OMP");
}

/* The regions of the call sites seen so far: a construct is named once,
 * then found by its site without a lock (a slot's key is written last). */
#define SITE_SLOTS 4096
static struct site_slot {
    uintptr_t key;   /* site << 6 | at_function_end << 5 | construct */
    scorep_region region;
} sites[SITE_SLOTS];

/* A call site in the adapter's own trampolines is an entry point that the
 * outlined function of a parallel region or task called as its last act,
 * a tail call returning into the trampoline; the site names no line of the
 * program then, and such a call is named after the end of the outlined
 * function (region_of_call). Its slots hold this instead of a region. */
#define TAIL_CALL_SITE ((scorep_region)(SCOREP_INVALID_ID - 1))
static void task_trampoline(void* block);

_Static_assert(SCOREP_OMP_CONSTRUCT_COUNT <= 32, "a site's key holds its construct in 5 bits");

static int in_trampoline(uintptr_t address)
{
    uintptr_t start = function_start(address);
    return start != 0 && (start == (uintptr_t)scorep_omp_trampoline || start == (uintptr_t)task_trampoline);
}

static scorep_region region_at(scorep_omp_construct construct, uintptr_t address, int at_function_end)
{
    uintptr_t key = address << 6 | (uintptr_t)at_function_end << 5 | (uintptr_t)construct;
    uint64_t h = (uint64_t)key * 0x9e3779b97f4a7c15ull;
    for (unsigned probe = 0; probe < SITE_SLOTS; probe++) {
        struct site_slot* slot = &sites[((h >> 40) + probe) % SITE_SLOTS];
        uintptr_t seen = __atomic_load_n(&slot->key, __ATOMIC_ACQUIRE);
        if (seen == key) return slot->region;
        if (seen == 0) break;
    }
    int was_off = scorep_thread_event_generation_off;
    scorep_event_generation_off();   /* libdw's own calls are not the program's */
    pthread_mutex_lock(&names_lock);
    scorep_region region = SCOREP_INVALID_ID;
    for (unsigned probe = 0; probe < SITE_SLOTS; probe++) {
        struct site_slot* slot = &sites[((h >> 40) + probe) % SITE_SLOTS];
        if (slot->key == key) {
            region = slot->region;
            break;
        }
        if (slot->key == 0) {
            region = !at_function_end && address != 0 && in_trampoline(address)
                         ? TAIL_CALL_SITE
                         : define_named(construct, address, at_function_end);
            slot->region = region;
            __atomic_store_n(&slot->key, key, __ATOMIC_RELEASE);
            break;
        }
    }
    if (region == SCOREP_INVALID_ID)   /* the table is full: named again at each call */
        region = define_named(construct, address, at_function_end);
    pthread_mutex_unlock(&names_lock);
    scorep_thread_event_generation_off = was_off;
    return region;
}

scorep_region scorep_omp_region_at(scorep_omp_construct construct, uintptr_t address)
{
    return region_at(construct, address, 0);
}

/* the outlined function the thread's trampoline runs: of the innermost task
 * it runs, else of its team's part (NULL: none) */
static SCOREP_OMP_TLS void (*running_task_fn)(void*);
static SCOREP_OMP_TLS scorep_omp_fork_record* current_fork;

/* the team of the thread's current part (NULL: none recorded) */
static const scorep_thread_team* current_team(void)
{
    return current_fork ? &current_fork->team : NULL;
}

/* address's region of construct is region from now on (the pragma's,
 * omp_sites.c) */
static void remember_at(scorep_omp_construct construct, uintptr_t address, scorep_region region)
{
    uintptr_t key = address << 6 | (uintptr_t)construct;   /* region_at's key of a call site */
    uint64_t h = (uint64_t)key * 0x9e3779b97f4a7c15ull;
    for (unsigned probe = 0; probe < SITE_SLOTS; probe++) {
        struct site_slot* slot = &sites[((h >> 40) + probe) % SITE_SLOTS];
        uintptr_t seen = __atomic_load_n(&slot->key, __ATOMIC_ACQUIRE);
        if (seen == key && slot->region == region) return;
        if (seen == 0) break;
    }
    pthread_mutex_lock(&names_lock);
    for (unsigned probe = 0; probe < SITE_SLOTS; probe++) {
        struct site_slot* slot = &sites[((h >> 40) + probe) % SITE_SLOTS];
        if (slot->key == key || slot->key == 0) {
            slot->region = region;
            __atomic_store_n(&slot->key, key, __ATOMIC_RELEASE);
            break;
        }
    }
    pthread_mutex_unlock(&names_lock);
}

/* the thread's last call site of each construct and its region */
static SCOREP_OMP_TLS struct {
    const void* site;
    scorep_region region;
} last_call[SCOREP_OMP_CONSTRUCT_COUNT];

/* a call site's address is the instruction after the call: the call's
 * own line is the byte before it */
static scorep_region region_of_call(scorep_omp_construct construct, const void* site)
{
    uintptr_t address = site ? (uintptr_t)site - 1 : 0;
    scorep_region sited = scorep_omp_next_site_kind != 0 ? scorep_omp_site_region(construct, site)
                                                         : SCOREP_INVALID_ID;   /* the pragma's line, if rebuilt */
    if (sited == SCOREP_INVALID_ID) {
        /* a loop's construct calls come from one site again and again */
        if (site != NULL && last_call[construct].site == site) return last_call[construct].region;
        scorep_region region = region_at(construct, address, 0);
        if (region != TAIL_CALL_SITE) {
            /* a section's site may be remembered for its sections' pragma later */
            if (construct != SCOREP_OMP_SECTION) last_call[construct].site = site, last_call[construct].region = region;
            return region;
        }
        void (*outlined)(void*) = running_task_fn ? running_task_fn : current_fork ? current_fork->fn : NULL;
        return region_at(construct, (uintptr_t)outlined, 1);
    }
    /* the next sections are named by the construct's call, when the thread's
     * site is another construct's (tail-called barriers share one address:
     * nothing else is remembered) */
    if (construct == SCOREP_OMP_SECTION && address != 0) remember_at(construct, address, sited);
    return sited;
}

/* ---- the thread's team part ----------------------------------------------- */

/* the floor of the thread's innermost team part: constructs below it are
 * another part's (the enclosing team, on a thread of a nested team) */
static SCOREP_OMP_TLS unsigned team_floor;
/* the depth of the combined construct the trampoline opened (0: none) */
static SCOREP_OMP_TLS unsigned team_combined_at;
/* current_fork (above): the team whose part the thread runs in the
 * trampoline (NULL: none) */

/* A single whose end no call marks stays open until the thread's next
 * construct call: that call is after the single's end. */
static void close_single(void)
{
    if (scorep_omp_innermost() == SCOREP_OMP_SINGLE_SBLOCK) scorep_omp_pop();
    if (scorep_omp_innermost() == SCOREP_OMP_SINGLE) scorep_omp_pop();
}

/* ---- the adapter's calls ----------------------------------------------------- */

void scorep_omp_fork_begin(scorep_omp_fork_record* fork, const void* site, scorep_omp_construct combined,
                           void (*fn)(void*), void* data, unsigned threads)
{
    close_single();
    if (combined == SCOREP_OMP_NONE) combined = scorep_omp_site_combined();
    fork->fn = fn;
    fork->data = data;
    fork->combined = combined;
    fork->region = region_of_call(SCOREP_OMP_PARALLEL, site);
    fork->combined_region = combined != SCOREP_OMP_NONE ? region_of_call(combined, site) : SCOREP_INVALID_ID;
    fork->barrier_region = scorep_omp_site_region(SCOREP_OMP_PARALLEL_END, site);
    if (fork->barrier_region == SCOREP_INVALID_ID)
        fork->barrier_region = scorep_omp_region_at(SCOREP_OMP_PARALLEL_END, (uintptr_t)fn);
    scorep_omp_site_clear();
    /* no num_threads clause (0): the team the runtime will make, as the
     * fork's requested threads say in Score-P's traces */
    scorep_thread_fork(&fork->team, threads ? threads : (unsigned)max_threads());
}

void scorep_omp_fork_end(scorep_omp_fork_record* fork)
{
    scorep_thread_join(&fork->team);
}

void scorep_omp_trampoline(void* p)
{
    scorep_omp_fork_record* fork = p;
    unsigned floor_before = team_floor, combined_before = team_combined_at;
    scorep_omp_fork_record* fork_before = current_fork;
    void (*task_fn_before)(void*) = running_task_fn;
    current_fork = fork;
    running_task_fn = NULL;
    scorep_omp_task_state tasks_before = scorep_omp_tasks_enter_part();
    unsigned depth_before = scorep_omp_open_depth();
    team_floor = depth_before;
    team_combined_at = 0;
    scorep_thread_team_begin(&fork->team, (uint32_t)thread_num(), (uint32_t)num_threads());
    scorep_omp_push(SCOREP_OMP_PARALLEL, fork->region, NULL);
    if (fork->combined_region != SCOREP_INVALID_ID) {
        scorep_omp_push(fork->combined, fork->combined_region, NULL);
        team_combined_at = scorep_omp_open_depth();
    }
    unsigned body_depth = scorep_omp_open_depth();
    fork->fn(fork->data);
    /* a site the body's code left untaken (a combined loop's that libgomp
     * started for the team) is no later construct's */
    scorep_omp_site_clear();
    /* what the body left open (a single's end, which no call marks), but a
     * combined loop the body started (omp_sites.c) */
    if (team_combined_at > body_depth) body_depth = team_combined_at;
    scorep_omp_pop_to(body_depth);
    /* The implicit barrier is libgomp's end of the team, after this
     * returns: its region, the parallel region and the team part stay open
     * until the forking thread's join leaves them, when every member has
     * passed that barrier (scorep_thread_team_leave). */
    scorep_omp_push(SCOREP_OMP_IMPLICIT_BARRIER, fork->barrier_region, NULL);
    scorep_omp_forget_to(depth_before);
    scorep_thread_team_leave(&fork->team);
    team_floor = floor_before;
    team_combined_at = combined_before;
    current_fork = fork_before;
    running_task_fn = task_fn_before;
    scorep_omp_tasks_leave_part(tasks_before);
}

void scorep_omp_construct_begin(scorep_omp_construct construct, const void* site)
{
    close_single();
    if (construct == SCOREP_OMP_SINGLE_COPY) construct = SCOREP_OMP_SINGLE;
    scorep_omp_push(construct, region_of_call(construct, site), site);
    /* a rebuilt program's combined loop, started inside the team: its
     * implicit barrier is the team's end, inside it, as in Score-P */
    if (construct == SCOREP_OMP_FOR && team_combined_at == 0 && scorep_omp_site_combined_loop())
        team_combined_at = scorep_omp_open_depth();
}

void scorep_omp_critical_name_begin(const void* site, void** pptr)
{
    critical_name = pptr;
    scorep_omp_construct_begin(SCOREP_OMP_CRITICAL, site);
    critical_name = NULL;
}

void scorep_omp_construct_end(scorep_omp_construct construct)
{
    scorep_omp_task_switch_back(current_team());
    scorep_omp_pop_through(construct, team_floor);
}

void scorep_omp_block_begin(scorep_omp_construct block, const void* site)
{
    if (block == SCOREP_OMP_ATOMIC_SBLOCK) return;
    scorep_omp_push(block, region_of_call(block, site), NULL);
}

void scorep_omp_block_end(scorep_omp_construct block)
{
    if (block == SCOREP_OMP_ATOMIC_SBLOCK) return;
    if (scorep_omp_innermost() == block) scorep_omp_pop();
}

/* every unnamed critical section is one lock, as in libgomp */
static char unnamed_critical;

void scorep_omp_critical_lock(scorep_thread_event_kind kind, void** name)
{
    scorep_lock_event(kind, name != NULL ? (const void*)name : (const void*)&unnamed_critical);
}

/* the barrier that follows a single is its implicit barrier, inside it */
static SCOREP_OMP_TLS int barrier_ends_single;

void scorep_omp_barrier_begin(const void* site)
{
    if (scorep_omp_innermost() == SCOREP_OMP_SINGLE_SBLOCK) scorep_omp_pop();
    barrier_ends_single = scorep_omp_innermost() == SCOREP_OMP_SINGLE;
    /* a rebuilt program's static loop announces its implicit barrier */
    int implicit = barrier_ends_single ||
                   (scorep_omp_next_site_kind != 0 && scorep_omp_site_pending(SCOREP_OMP_IMPLICIT_BARRIER, site));
    scorep_omp_construct barrier = implicit ? SCOREP_OMP_IMPLICIT_BARRIER : SCOREP_OMP_BARRIER;
    scorep_omp_push(barrier, region_of_call(barrier, site), NULL);
}

void scorep_omp_barrier_end(void)
{
    scorep_omp_task_switch_back(current_team());
    scorep_omp_pop();
    if (barrier_ends_single && scorep_omp_innermost() == SCOREP_OMP_SINGLE) scorep_omp_pop();
    barrier_ends_single = 0;
}

void scorep_omp_construct_end_begin(int barrier, const void* site)
{
    if (scorep_omp_innermost() == SCOREP_OMP_SINGLE_SBLOCK) scorep_omp_pop();
    if (scorep_omp_innermost() == SCOREP_OMP_SECTION) scorep_omp_pop();
    if (barrier) scorep_omp_push(SCOREP_OMP_IMPLICIT_BARRIER, region_of_call(SCOREP_OMP_IMPLICIT_BARRIER, site), NULL);
}

/* The construct the end call ends: the innermost worksharing one. The
 * loop of a combined parallel loop stays open: the trampoline leaves it
 * after the region's implicit barrier, as Score-P shows that barrier
 * inside the loop. */
void scorep_omp_construct_end_end(int barrier)
{
    scorep_omp_task_switch_back(current_team());
    if (barrier && scorep_omp_innermost() == SCOREP_OMP_IMPLICIT_BARRIER) scorep_omp_pop();
    for (unsigned d = scorep_omp_open_depth(); d > team_floor && d <= SCOREP_OMP_OPEN_MAX; d--) {
        scorep_omp_construct c = scorep_omp_open_at(d)->construct;
        if (c == SCOREP_OMP_FOR || c == SCOREP_OMP_SECTIONS || c == SCOREP_OMP_SINGLE) {
            if (d == team_combined_at) return;   /* the trampoline leaves it */
            scorep_omp_pop_to(d - 1);
            return;
        }
    }
}

/* Every section of a sections construct is one region, named after the
 * construct's call (as Score-P names it after the construct's line), not
 * after the call that hands out the next section. */
void scorep_omp_section_next(unsigned section, const void* site)
{
    if (scorep_omp_innermost() == SCOREP_OMP_SECTION) scorep_omp_pop();
    if (section == 0) return;
    const scorep_omp_open_construct* sections = scorep_omp_open_at(scorep_omp_open_depth());
    if (sections != NULL && sections->construct == SCOREP_OMP_SECTIONS && sections->site != NULL)
        site = sections->site;
    scorep_omp_push(SCOREP_OMP_SECTION, region_of_call(SCOREP_OMP_SECTION, site), NULL);
}

/* A construct the plugin sees without a runtime call (omp_sites.c): a
 * single still open has ended before it, as before any construct call. */
void scorep_omp_inline_begin(scorep_omp_construct construct, scorep_region region)
{
    close_single();
    scorep_omp_push(construct, region, NULL);
}

void scorep_omp_inline_end(scorep_omp_construct construct)
{
    scorep_omp_pop_through(construct, team_floor);
}

/* ---- tasks ----------------------------------------------------------------- */

/* A task's argument block as the adapter gives it to libgomp: this header,
 * then (at offset, a multiple of the task's alignment) the program's data
 * or, where the program has a copy function, the address of its data for
 * the adapter's copy function to hand on. libgomp copies the block into
 * the task's own memory (or runs the task at once with it) and calls
 * task_trampoline with the copy. */
typedef struct task_header {
    void (*fn)(void*);
    void (*cpyfn)(void*, void*);
    void* data;        /* the program's data: read only by the copy function */
    scorep_omp_fork_record* team;   /* the creating thread's team (NULL: none recorded) */
    scorep_region region;
    scorep_omp_task_id id;
    size_t offset;
} task_header;

#define TASK_BLOCK_MAX (64 * 1024)

static size_t task_offset(long arg_align)
{
    size_t align = arg_align > 16 ? (size_t)arg_align : 16;
    return (sizeof(task_header) + align - 1) / align * align;
}

size_t scorep_omp_task_block_size(long arg_size, long arg_align, int has_copy)
{
    if (arg_size < 0 || arg_size > TASK_BLOCK_MAX || arg_align <= 0 || arg_align > 4096)
        return 1;
    /* the alignment's worth more, to align the block itself */
    return task_offset(arg_align) + (has_copy ? sizeof(void*) : (size_t)arg_size) + (size_t)arg_align;
}

/* A task of a team runs before the team's end, also on a member that has
 * left its part and waits in libgomp's end of the team: there it records
 * on the member's location again, inside the part's implicit barrier. */
static void task_trampoline(void* block)
{
    const task_header* h = block;
    int resumed = h->team != NULL && h->team != current_fork &&
                  scorep_thread_team_resume(&h->team->team, (uint32_t)thread_num());
    const scorep_thread_team* team = h->team ? &h->team->team : NULL;
    void (*task_fn_before)(void*) = running_task_fn;
    running_task_fn = h->fn;
    scorep_omp_task_id task_before = scorep_omp_task_begin(team, h->id);
    scorep_enter(h->region);
    h->fn((char*)block + h->offset);
    scorep_exit(h->region);
    /* resumed: the thread waits in the team's end again, which no call of
     * the thread's ends */
    scorep_omp_task_end(team, h->id, task_before, !resumed);
    running_task_fn = task_fn_before;
    if (resumed) scorep_thread_team_leave(&h->team->team);
}

/* the program's copy function into the block's data part */
static void task_copy(void* to, void* from)
{
    const task_header* h = from;
    memcpy(to, h, sizeof *h);
    h->cpyfn((char*)to + h->offset, h->data);
}

void scorep_omp_task_wrap(char* block, size_t size, const void* site, void (**fn)(void*), void** data,
                          void (**cpyfn)(void*, void*), long* arg_size, long* arg_align)
{
    if (size <= 1) return;
    size_t align = *arg_align > 16 ? (size_t)*arg_align : 16;
    task_header* h = (task_header*)(((uintptr_t)block + align - 1) & ~(uintptr_t)(align - 1));
    h->fn = *fn;
    h->cpyfn = *cpyfn;
    h->data = *data;
    h->region = region_of_call(SCOREP_OMP_TASK, site);
    h->team = current_fork;
    h->id = scorep_omp_task_create(current_team(), (uint32_t)thread_num());
    h->offset = task_offset(*arg_align);
    if (*cpyfn == NULL)
        memcpy((char*)h + h->offset, *data, (size_t)*arg_size);
    *fn = task_trampoline;
    *data = h;
    if (*cpyfn != NULL) *cpyfn = task_copy;
    *arg_size = (long)h->offset + *arg_size;
    *arg_align = (long)align;
}
