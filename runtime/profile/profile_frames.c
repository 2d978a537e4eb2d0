/* The frame nodes of the profile (SCOREP_ENABLE_UNWINDING), named at the
 * end of recording: during the run a sample or an enter's unwinding keys
 * each frame by its code address (profile.c, frames_below), which the
 * signal handler can do; here each address becomes its function's region
 * (paradigm sampling, as in Score-P) and the nodes of one function under
 * one parent become one node:
 * - frames of the measurement itself (its libraries, a link-time wrapper)
 *   and the C library's frames that start a process or a thread are left
 *   out: their children and hits move to their parent;
 * - the frame of a function that calls its own instrumented region (the
 *   function compiler instrumentation enters) is that region, as is a
 *   thread's start routine's frame below its region: left out;
 * - a function both seen by samples and instrumented is one node, the
 *   instrumented one, with the samples' hits.
 * A frame node has no visits; its time is its samples' time and its
 * children's. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "definitions.h"
#include "profile.h"
#include "profile_events.h"

/* frames left out: the C library's start of a process or thread, and the
 * measurement's own code; a named frame node's mark (enter_ticks is free
 * now) */
#define LEFT_OUT (SCOREP_INVALID_ID - 2)
#define MEASUREMENT_CODE (SCOREP_INVALID_ID - 3)
#define NAMED_FRAME (UINT64_MAX - 1)

static int is_frame(const scorep_profile_node* n) { return n->enter_ticks == NAMED_FRAME; }

static const char* base_name(const char* path)
{
    const char* slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int measurement_symbol(const char* s)
{
    return strncmp(s, "__wrap_", 7) == 0 || strncmp(s, "scorep_", 7) == 0 || strncmp(s, "SCOREP_", 7) == 0 ||
           strncmp(s, "__cyg_profile_func_", 19) == 0;
}

/* the C library's start of the process and of a thread */
static int start_symbol(const char* s)
{
    static const char* const names[] = {"_start", "__libc_start_main", "__libc_start_call_main", "__libc_start_main_impl",
                                        "start_thread", "clone", "clone3", "__clone", "__clone3", "__clone_internal"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(s, names[i]) == 0) return 1;
    return 0;
}

static int quickly;   /* an abnormal end: by the dynamic symbol table only */

static scorep_region function_region(const char* name, const char* file, int line, const char* symbol)
{
    return scorep_definitions_region_lines(name, file, line, 0, SCOREP_PARADIGM_SAMPLING, SCOREP_ROLE_FUNCTION,
                                           NULL, symbol);
}

static scorep_region region_of_address(uintptr_t address)
{
    Dl_info info;
    int found = dladdr((void*)address, &info);
    const char* object = found ? info.dli_fname : NULL;
    if (object && strncmp(base_name(object), "libscorep", 9) == 0) return MEASUREMENT_CODE;
    /* the dynamic symbol table first: the frames left out need no debug
     * information, and on an abnormal end it is all there is (libdw and
     * the demangler allocate) */
    const char* exported = found ? info.dli_sname : NULL;
    if (exported && measurement_symbol(exported)) return MEASUREMENT_CODE;
    if (exported && start_symbol(exported)) return LEFT_OUT;
    char symbol[1024], file[1024], name[1200];
    uintptr_t start, end;
    if (quickly ? exported == NULL : !scorep_code_symbol(address, symbol, sizeof symbol, &start, &end)) {
        /* no symbol: one region per object, as its code's unknown part */
        snprintf(name, sizeof name, "UNKNOWN @%s", object ? base_name(object) : "?");
        return function_region(name, object, 0, NULL);
    }
    if (quickly) return function_region(exported, object, 0, NULL);
    /* a versioned symbol (__libc_start_main@@GLIBC_2.34) as its source names it */
    char* version = strchr(symbol, '@');
    if (version && version != symbol) *version = 0;
    if (measurement_symbol(symbol)) return MEASUREMENT_CODE;
    if (start_symbol(symbol)) return LEFT_OUT;
    char* free_this;
    snprintf(name, sizeof name, "%s", scorep_code_demangled(symbol, &free_this));
    free(free_this);
    int line = 0;
    if (!scorep_code_source_line(start, file, sizeof file, &line)) snprintf(file, sizeof file, "%s", object ? object : "");
    return function_region(name, file[0] ? file : NULL, line, strcmp(name, symbol) ? symbol : NULL);
}

/* each address named once: open addressing, in a table of the program's
 * (no malloc); beyond its room an address is named at each sight */
#define NAMED_SLOTS (1u << 15)
static uintptr_t named_address[NAMED_SLOTS];
static scorep_region named_region[NAMED_SLOTS];
static uint32_t named_count;

static scorep_region region_of(uintptr_t address)
{
    if (2 * (named_count + 1) > NAMED_SLOTS) return region_of_address(address);
    size_t j = (address * 0x9E3779B97F4A7C15ull >> 20) & (NAMED_SLOTS - 1);
    while (named_address[j] && named_address[j] != address) j = (j + 1) & (NAMED_SLOTS - 1);
    if (!named_address[j]) {
        named_address[j] = address;
        named_region[j] = region_of_address(address);
        named_count++;
    }
    return named_region[j];
}

static const char* region_name(scorep_region region)
{
    const scorep_region_def* def = scorep_region_get(region);
    return def ? def->name : "";
}

/* a frame that is the function whose instrumented region is its child */
static int calls_own_region(const scorep_profile_node* frame)
{
    const char* name = region_name(frame->region);
    for (const scorep_profile_node* c = frame->first_child; c; c = c->next_sibling)
        if (c->parameter == SCOREP_INVALID_ID && !is_frame(c) && strcmp(region_name(c->region), name) == 0)
            return 1;
    return 0;
}

/* a frame that is its instrumented parent itself: a thread's start routine
 * (whose region its trampoline enters), or part of it: the outlined body of
 * an OpenMP construct (GCC's main._omp_fn.0) */
static int is_parent_itself(const scorep_profile_node* parent, const scorep_profile_node* frame)
{
    const char* name = region_name(frame->region);
    if (is_frame(parent) || parent->parameter != SCOREP_INVALID_ID) return 0;
    if (strstr(name, "._omp_fn.") || strstr(name, ".omp_outlined")) return 1;
    return parent->parent && strcmp(region_name(parent->region), name) == 0;
}

/* the sibling among list that c is one node with */
static scorep_profile_node* same_node(scorep_profile_node* list, const scorep_profile_node* c)
{
    for (scorep_profile_node* s = list; s; s = s->next_sibling) {
        if (s->region == c->region && s->parameter == c->parameter && s->parameter_value == c->parameter_value)
            return s;
        if (is_frame(s) != is_frame(c) && s->parameter == SCOREP_INVALID_ID && c->parameter == SCOREP_INVALID_ID &&
            strcmp(region_name(s->region), region_name(c->region)) == 0)
            return s;
    }
    return NULL;
}

/* c becomes part of s: a frame's samples are hits of the instrumented node */
static void merge_into(scorep_profile_node* s, scorep_profile_node* c)
{
    if (is_frame(s) && !is_frame(c)) {
        uint64_t hits = s->n.hits;
        s->n = c->n;
        s->n.hits += hits;
        memcpy(s->metrics, c->metrics, sizeof s->metrics);
        s->region = c->region;
        s->enter_ticks = c->enter_ticks;
    } else if (!is_frame(s) && is_frame(c)) {
        s->n.hits += c->n.hits;
    } else {
        scorep_profile_numbers_add(&s->n, &c->n);
        for (int k = 0; k < SCOREP_PROFILE_MAX_METRICS; k++) s->metrics[k] += c->metrics[k];
    }
    scorep_profile_node** tail = &s->first_child;
    while (*tail) tail = &(*tail)->next_sibling;
    *tail = c->first_child;
    for (scorep_profile_node* g = c->first_child; g; g = g->next_sibling) g->parent = s;
    c->first_child = NULL;
}

/* Below a frame of the measurement's own code (a wrapper, a trampoline)
 * nothing is the program's until the next recorded region: the frames
 * there (the wrapped library's own, libgomp's GOMP_parallel between the
 * adapter's wrapper and its trampoline) go, their samples become hits of
 * the measurement frame's caller (into), and the recorded regions below
 * them join *regions, to stand under into. */
static void absorb(scorep_profile_node* frame, scorep_profile_node* into, scorep_profile_node*** regions)
{
    scorep_profile_node* c = frame->first_child;
    frame->first_child = NULL;
    while (c) {
        scorep_profile_node* next = c->next_sibling;
        c->next_sibling = NULL;
        if (c->parameter == SCOREP_PROFILE_FRAME) {
            into->n.hits += c->n.hits;
            if (is_frame(into)) into->n.time_incl += c->n.time_incl;
            absorb(c, into, regions);
        } else {
            c->parent = into;
            **regions = c;
            *regions = &c->next_sibling;
        }
        c = next;
    }
}

static void name_below(scorep_profile_node* node)
{
    scorep_profile_node* pending = node->first_child;
    node->first_child = NULL;
    scorep_profile_node** tail = &node->first_child;
    while (pending) {
        scorep_profile_node* c = pending;
        pending = c->next_sibling;
        c->next_sibling = NULL;
        c->cached_child[0] = c->cached_child[1] = NULL;
        if (c->parameter == SCOREP_PROFILE_FRAME) {
            c->region = region_of((uintptr_t)c->parameter_value);
            c->parameter = SCOREP_INVALID_ID;
            c->parameter_value = 0;
            c->enter_ticks = NAMED_FRAME;
            if (c->region == LEFT_OUT || c->region == MEASUREMENT_CODE || calls_own_region(c) ||
                is_parent_itself(node, c)) {
                /* its children take its place, its samples are its parent's;
                 * what the measurement's code called in its own work (not
                 * a region it records) is its caller's hits */
                node->n.hits += c->n.hits;
                if (is_frame(node)) node->n.time_incl += c->n.time_incl;
                if (c->region == MEASUREMENT_CODE) {
                    scorep_profile_node* regions = NULL;
                    scorep_profile_node** tail_of_regions = &regions;
                    absorb(c, node, &tail_of_regions);
                    c->first_child = regions;
                }
                scorep_profile_node* last = c->first_child;
                for (scorep_profile_node* g = c->first_child; g; g = g->next_sibling) {
                    g->parent = node;
                    last = g;
                }
                if (last) {
                    last->next_sibling = pending;
                    pending = c->first_child;
                }
                c->first_child = NULL;
                continue;
            }
        }
        scorep_profile_node* s = same_node(node->first_child, c);
        if (s) {
            merge_into(s, c);
            continue;
        }
        c->parent = node;
        *tail = c;
        tail = &c->next_sibling;
    }
    node->cached_child[0] = node->cached_child[1] = NULL;
    for (scorep_profile_node* c = node->first_child; c; c = c->next_sibling) name_below(c);
    if (is_frame(node))
        for (scorep_profile_node* c = node->first_child; c; c = c->next_sibling) node->n.time_incl += c->n.time_incl;
}

void scorep_profile_name_frames(scorep_profile_node* root, int emergency)
{
    quickly = emergency;
    if (root) name_below(root);
}
