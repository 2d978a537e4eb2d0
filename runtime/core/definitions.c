/* Process-local definition tables: regions, strings, communicators/groups,
 * windows, parameters, metrics. Entries live in fixed-size chunks that never
 * move, so the event path and the substrates read them without a lock;
 * defining takes the lock (once per object). */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "definitions.h"
#include "filter.h"
#include "multiprocess.h"
#include "profile.h"
#include "strmap.h"

#define CHUNK_BITS 10
#define CHUNK_SIZE (1u << CHUNK_BITS)
#define MAX_CHUNKS 1024u   /* 1M entries per kind */

typedef struct table {
    void* chunks[MAX_CHUNKS];
    size_t element_size;
    volatile uint32_t count;
} table;

static void* table_at(const table* t, uint32_t id)
{
    return (char*)t->chunks[id >> CHUNK_BITS] + (size_t)(id & (CHUNK_SIZE - 1)) * t->element_size;
}

/* caller holds the lock; returns the new id or SCOREP_INVALID_ID when full */
static uint32_t table_append(table* t, const void* element)
{
    uint32_t id = t->count;
    if (id >= MAX_CHUNKS * CHUNK_SIZE) return SCOREP_INVALID_ID;
    if (!t->chunks[id >> CHUNK_BITS]) t->chunks[id >> CHUNK_BITS] = scorep_arena_alloc(CHUNK_SIZE * t->element_size);
    if (!t->chunks[id >> CHUNK_BITS]) return SCOREP_INVALID_ID;
    memcpy(table_at(t, id), element, t->element_size);
    __atomic_store_n(&t->count, id + 1, __ATOMIC_RELEASE);
    return id;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The lock is held with event generation off on the thread: a definition is
 * the measurement's work (a compiler-instrumented function's first enter
 * defines its region outside any wrapper), and the run-time wrappers of a
 * system adapter (pthread_mutex_lock/unlock, malloc) must pass its calls
 * straight through: recording them would define their own regions under
 * this very lock. The lock is not recursive, so one saved value per thread
 * is enough. */
static __thread int generation_was_off TLS_FAST;

static void lock_definitions(void)
{
    generation_was_off = scorep_inside_begin();
    pthread_mutex_lock(&lock);
}

static void unlock_definitions(void)
{
    pthread_mutex_unlock(&lock);
    scorep_inside_end(generation_was_off);
}
static table regions = {.element_size = sizeof(scorep_region_def)};
static table strings = {.element_size = sizeof(char*)};
static table comms = {.element_size = sizeof(scorep_comm_def)};
static table windows = {.element_size = sizeof(scorep_window_def)};
static table parameters = {.element_size = sizeof(scorep_parameter_def)};
static table metrics = {.element_size = sizeof(scorep_metric_def)};
static table io_handles = {.element_size = sizeof(scorep_io_handle_def)};
static scorep_strmap region_index = {.in_arena = 1}, string_index = {.in_arena = 1}, group_index = {.in_arena = 1},
                     parameter_index = {.in_arena = 1}, metric_index = {.in_arena = 1},
                     io_handle_index = {.in_arena = 1};
static scorep_filter* filter;
static int initialised;

/* the measurement's own regions, defined at the start (lifecycle.c) */
scorep_region scorep_flush_region = SCOREP_INVALID_ID;
scorep_region scorep_program_region = SCOREP_INVALID_ID;

uint8_t scorep_region_filtered_flags[SCOREP_MAX_REGIONS];   /* bss: pages touched only for regions that exist */

/* Names live as long as the process, and a signal handler's first call may define one. */
static char* dup_or_null(const char* s) { return s ? scorep_arena_strdup(s) : NULL; }

void scorep_definitions_set_filter(scorep_filter* f) { filter = f; }

/* Idempotent: the tables make themselves ready on first use (world and self
 * first); starting the measurement is not this file's business. */
void scorep_definitions_init(void)
{
    if (__atomic_load_n(&initialised, __ATOMIC_ACQUIRE)) return;
    lock_definitions();
    if (!initialised) {
        /* world and self: rank maps depend on the rank, resolved on use */
        scorep_comm_def world = {0, 0, 0, NULL, scorep_arena_strdup("MPI_COMM_WORLD"), 0, 0, 0};
        scorep_comm_def self = {0, 0, 1, NULL, scorep_arena_strdup("MPI_COMM_SELF"), 0, 0, 0};
        table_append(&comms, &world);
        table_append(&comms, &self);
        __atomic_store_n(&initialised, 1, __ATOMIC_RELEASE);
    }
    unlock_definitions();
}

/* A definition's identity as one byte string: its texts and numbers, each
 * ended by \x01 (a NULL text as \x02), whole however long they are (a
 * C++ symbol or a path may pass any buffer size: two definitions must not
 * share an id because their first kilobyte agrees). Written into buf when
 * it fits, else into memory of its own, which the caller frees
 * (text_key_free); NULL if that cannot be had. */
static char* text_key(char* buf, size_t size, size_t* len, const char* const* parts, int n, const int* numbers,
                      int m)
{
    size_t need = 1;
    for (int i = 0; i < n; i++) need += strlen(parts[i] ? parts[i] : "\x02") + 1;
    need += (size_t)m * 12;   /* "%d\x01": at most 11 characters and the end */
    char* out = need <= size ? buf : malloc(need);
    if (!out) return NULL;
    size_t pos = 0;
    for (int i = 0; i < n; i++) {
        const char* s = parts[i] ? parts[i] : "\x02";
        size_t l = strlen(s);
        memcpy(out + pos, s, l);
        pos += l;
        out[pos++] = '\x01';
    }
    for (int i = 0; i < m; i++) pos += (size_t)snprintf(out + pos, need - pos, "%d\x01", numbers[i]);
    *len = pos;
    return out;
}

static void text_key_free(char* key, const char* buf)
{
    if (key != buf) free(key);
}

/* The lines are part of the identity (Score-P's region definitions compare
 * begin and end lines too): the same name and file at another line is
 * another region. */
scorep_region scorep_definitions_region_lines(const char* name, const char* file, int line, int end_line,
                                              scorep_paradigm paradigm, scorep_region_role role, const char* group,
                                              const char* mangled)
{
    scorep_definitions_init();
    if (!name) name = "<unnamed>";
    if (line < 0) line = 0;
    if (end_line < 0) end_line = 0;
    /* Fortran callers pass "" (just c_null_char) for "none" */
    if (file && !file[0]) file = NULL;
    if (group && !group[0]) group = NULL;
    /* a symbol equal to the name is no separate symbol: the same region as without it */
    if (mangled && (!mangled[0] || strcmp(mangled, name) == 0)) mangled = NULL;
    char buf[1024];
    size_t len;
    const char* parts[] = {name, file, group, mangled};
    int numbers[] = {(int)paradigm, (int)role, line, end_line};
    char* key = text_key(buf, sizeof buf, &len, parts, 4, numbers, 4);
    if (!key) return SCOREP_INVALID_ID;
    lock_definitions();
    uint32_t id;
    if (!scorep_strmap_get(&region_index, key, len, &id)) {
        scorep_region_def def = {scorep_arena_strdup(name), dup_or_null(file), dup_or_null(group), paradigm,
                                 role, 0, (uint32_t)line, (uint32_t)end_line, dup_or_null(mangled)};
        /* an MPI region's file is the label "MPI" (Score-P's), no source
         * file: file rules of the filter do not apply to it */
        def.filtered = scorep_filter_excludes(filter, name, paradigm == SCOREP_PARADIGM_MPI ? NULL : file, mangled);
        id = table_append(&regions, &def);
        if (id < SCOREP_MAX_REGIONS) {
            scorep_region_filtered_flags[id] = (uint8_t)def.filtered;
            scorep_strmap_put(&region_index, key, len, id);
            if (def.filtered) scorep_verbose("region '%s' is filtered", name);
        } else
            id = SCOREP_INVALID_ID;
    }
    unlock_definitions();
    text_key_free(key, buf);
    return id;
}

scorep_region scorep_definitions_region(const char* name, const char* file, int line, scorep_paradigm paradigm,
                                        scorep_region_role role, const char* group, const char* mangled)
{
    return scorep_definitions_region_lines(name, file, line, 0, paradigm, role, group, mangled);
}

int scorep_region_is_filtered(scorep_region region)
{
    return region >= regions.count || scorep_region_filtered_flags[region];
}

uint32_t scorep_region_count(void) { return __atomic_load_n(&regions.count, __ATOMIC_ACQUIRE); }
const scorep_region_def* scorep_region_get(scorep_region id)
{
    return id < scorep_region_count() ? table_at(&regions, id) : NULL;
}

scorep_string scorep_string_define(const char* text)
{
    if (!text) text = "";
    size_t len = strlen(text);
    lock_definitions();
    uint32_t id;
    if (!scorep_strmap_get(&string_index, text, len, &id)) {
        char* copy = scorep_arena_strdup(text);
        id = table_append(&strings, &copy);
        scorep_strmap_put(&string_index, text, len, id);
    }
    unlock_definitions();
    return id;
}
uint32_t scorep_string_count(void) { return __atomic_load_n(&strings.count, __ATOMIC_ACQUIRE); }
const char* scorep_string_get(scorep_string id)
{
    return id < scorep_string_count() ? *(char**)table_at(&strings, id) : NULL;
}

scorep_comm scorep_comm_define(uint64_t stable_key, int is_group, uint32_t size, const int* local_to_world,
                               const char* name)
{
    scorep_definitions_init();
    lock_definitions();
    uint32_t id = SCOREP_INVALID_ID;
    /* groups are created often (MPI_Comm_group each time); keep one per member list */
    if (is_group && local_to_world &&
        scorep_strmap_get(&group_index, local_to_world, size * sizeof(int), &id)) {
        unlock_definitions();
        return id;
    }
    int* map = malloc((size ? size : 1) * sizeof(int));
    if (local_to_world) memcpy(map, local_to_world, size * sizeof(int));
    else for (uint32_t i = 0; i < size; i++) map[i] = (int)i;
    scorep_comm_def def = {is_group ? 0 : stable_key, is_group != 0, size, map,
                           name && name[0] ? scorep_arena_strdup(name) : NULL, 0, 0, 0};
    id = table_append(&comms, &def);
    if (is_group && id != SCOREP_INVALID_ID) scorep_strmap_put(&group_index, map, size * sizeof(int), id);
    unlock_definitions();
    return id;
}

static int lowest_rank(uint32_t size, const int* ranks)
{
    int low = INT_MAX;
    for (uint32_t i = 0; i < size; i++)
        if (ranks[i] < low) low = ranks[i];
    return low;
}

scorep_comm scorep_comm_define_inter(uint64_t stable_key, uint32_t local_size, const int* local_to_world,
                                     uint32_t remote_size, const int* remote_to_world, const char* name)
{
    scorep_definitions_init();
    /* both sides list the groups in one order (they are disjoint): the same
     * definition on every process, which unifies into one communicator */
    int local_first = lowest_rank(local_size, local_to_world) < lowest_rank(remote_size, remote_to_world);
    uint32_t size = local_size + remote_size;
    int* map = malloc((size ? size : 1) * sizeof(int));
    if (!map) return SCOREP_INVALID_ID;
    memcpy(map + (local_first ? 0 : remote_size), local_to_world, local_size * sizeof(int));
    memcpy(map + (local_first ? local_size : 0), remote_to_world, remote_size * sizeof(int));
    scorep_comm_def def = {stable_key, 0, size, map, name && name[0] ? scorep_arena_strdup(name) : NULL,
                           local_first ? local_size : 0, remote_size, 0};
    lock_definitions();
    uint32_t id = table_append(&comms, &def);
    unlock_definitions();
    return id;
}

uint32_t scorep_comm_defined_rank(scorep_comm comm, uint32_t rank)
{
    const scorep_comm_def* def = scorep_comm_get(comm);
    if (!def || def->remote_size == 0 || rank >= def->remote_size) return rank;
    return def->remote_offset + rank;
}

void scorep_comm_free(scorep_comm comm) { (void)comm; }

uint32_t scorep_comm_count(void) { return __atomic_load_n(&comms.count, __ATOMIC_ACQUIRE); }
const scorep_comm_def* scorep_comm_get(scorep_comm id)
{
    return id < scorep_comm_count() ? table_at(&comms, id) : NULL;
}

int scorep_comm_create_recorded(scorep_comm comm, int set)
{
    scorep_comm_def* def = comm < scorep_comm_count() ? table_at(&comms, comm) : NULL;
    if (!def) return 0;
    int was = __atomic_load_n(&def->create_recorded, __ATOMIC_RELAXED);
    __atomic_store_n(&def->create_recorded, (uint8_t)(set ? 1 : 0), __ATOMIC_RELAXED);
    return was;
}

int scorep_comm_world_rank(scorep_comm comm, int rank_in_comm)
{
    if (rank_in_comm < 0) return -1;
    if (comm == SCOREP_COMM_WORLD) return rank_in_comm < scorep_process_size ? rank_in_comm : -1;
    if (comm == SCOREP_COMM_SELF) return rank_in_comm == 0 ? scorep_process_rank : -1;
    const scorep_comm_def* def = scorep_comm_get(comm);
    if (!def) return -1;
    if (def->remote_size)   /* an intercommunicator: peers are in the remote group */
        return (uint32_t)rank_in_comm < def->remote_size ? def->local_to_world[def->remote_offset + rank_in_comm]
                                                         : -1;
    if ((uint32_t)rank_in_comm >= def->size) return -1;
    return def->local_to_world[rank_in_comm];
}

scorep_window scorep_definitions_window(uint64_t stable_key, scorep_comm comm, const char* name)
{
    scorep_definitions_init();
    scorep_window_def def = {stable_key, comm, dup_or_null(name)};
    lock_definitions();
    uint32_t id = table_append(&windows, &def);
    unlock_definitions();
    return id;
}
uint32_t scorep_window_count(void) { return __atomic_load_n(&windows.count, __ATOMIC_ACQUIRE); }
const scorep_window_def* scorep_window_get(scorep_window id)
{
    return id < scorep_window_count() ? table_at(&windows, id) : NULL;
}

scorep_parameter scorep_definitions_parameter(const char* name, scorep_parameter_type type)
{
    scorep_definitions_init();
    if (!name) name = "<unnamed>";
    char buf[1024];
    size_t len;
    const char* parts[] = {name};
    int numbers[] = {(int)type};
    char* key = text_key(buf, sizeof buf, &len, parts, 1, numbers, 1);
    if (!key) return SCOREP_INVALID_ID;
    lock_definitions();
    uint32_t id;
    if (!scorep_strmap_get(&parameter_index, key, len, &id)) {
        scorep_parameter_def def = {scorep_arena_strdup(name), type};
        id = table_append(&parameters, &def);
        scorep_strmap_put(&parameter_index, key, len, id);
    }
    unlock_definitions();
    text_key_free(key, buf);
    return id;
}
uint32_t scorep_parameter_count(void) { return __atomic_load_n(&parameters.count, __ATOMIC_ACQUIRE); }
const scorep_parameter_def* scorep_parameter_get(scorep_parameter id)
{
    return id < scorep_parameter_count() ? table_at(&parameters, id) : NULL;
}

scorep_metric scorep_definitions_metric(const char* name, const char* unit, const char* description,
                                        scorep_metric_kind kind)
{
    scorep_definitions_init();
    if (!name) name = "<unnamed>";
    lock_definitions();
    uint32_t id;
    if (!scorep_strmap_get(&metric_index, name, strlen(name), &id)) {
        if (metrics.count >= SCOREP_PROFILE_MAX_METRICS) {
            unlock_definitions();
            scorep_warning("metric '%s': at most %d metrics (user metrics, SCOREP_METRIC_RUSAGE and "
                           "SCOREP_METRIC_PERF together) are supported, it is ignored",
                           name, SCOREP_PROFILE_MAX_METRICS);
            return SCOREP_INVALID_ID;
        }
        scorep_metric_def def = {scorep_arena_strdup(name), scorep_arena_strdup(unit ? unit : ""),
                                 scorep_arena_strdup(description ? description : ""), kind};
        id = table_append(&metrics, &def);
        scorep_strmap_put(&metric_index, name, strlen(name), id);
    }
    unlock_definitions();
    return id;
}
uint32_t scorep_io_fd_handles[SCOREP_IO_PARADIGM_COUNT_][SCOREP_IO_MAX_FD];
int scorep_io_std_closed[SCOREP_IO_PARADIGM_COUNT_][3];

static scorep_io_handle io_handle(scorep_io_paradigm paradigm, const char* name, int pre_created,
                                  scorep_io_access mode, uint32_t duplicate, int under_stream)
{
    scorep_definitions_init();
    if (!name) name = "<unknown>";
    char buf[1024];
    size_t len;
    const char* parts[] = {name};
    int numbers[] = {(int)paradigm, pre_created, pre_created ? (int)mode : 0, (int)duplicate, under_stream};
    char* key = text_key(buf, sizeof buf, &len, parts, 1, numbers, 5);
    if (!key) return SCOREP_INVALID_ID;
    lock_definitions();
    uint32_t id;
    if (!scorep_strmap_get(&io_handle_index, key, len, &id)) {
        scorep_io_handle_def def = {scorep_arena_strdup(name), paradigm, pre_created,
                                    pre_created ? mode : SCOREP_IO_READ_ONLY, duplicate, under_stream};
        id = table_append(&io_handles, &def);
        scorep_strmap_put(&io_handle_index, key, len, id);
    }
    unlock_definitions();
    text_key_free(key, buf);
    return id;
}
scorep_io_handle scorep_io_handle_define(scorep_io_paradigm paradigm, const char* name)
{
    return io_handle(paradigm, name, 0, SCOREP_IO_READ_ONLY, 0, 0);
}
scorep_io_handle scorep_io_handle_define_same_file(scorep_io_paradigm paradigm, scorep_io_handle of)
{
    const scorep_io_handle_def* d = scorep_io_handle_get(of);
    return d ? io_handle(paradigm, d->name, 0, SCOREP_IO_READ_ONLY, 0, 0) : SCOREP_INVALID_ID;
}
scorep_io_handle scorep_io_handle_define_under_stream(const char* name)
{
    return io_handle(SCOREP_IO_PARADIGM_POSIX, name, 0, SCOREP_IO_READ_ONLY, 0, 1);
}
scorep_io_handle scorep_io_handle_define_pre_created(scorep_io_paradigm paradigm, const char* name,
                                                     scorep_io_access mode)
{
    return io_handle(paradigm, name, 1, mode, 0, 0);
}
/* One handle per file and descriptor number of the duplicate: two live
 * duplicates of a file never share a handle (a process's live descriptors
 * have distinct numbers), a program that dups and closes in a loop reuses
 * one, and the count stays bounded by the descriptors a process uses. */
scorep_io_handle scorep_io_handle_define_duplicate(scorep_io_handle of, int fd)
{
    const scorep_io_handle_def* d = scorep_io_handle_get(of);
    if (!d || fd < 0) return SCOREP_INVALID_ID;
    return io_handle(d->paradigm, d->name, 0, SCOREP_IO_READ_ONLY, (uint32_t)fd + 1, d->under_stream);
}
uint32_t scorep_io_handle_count(void) { return __atomic_load_n(&io_handles.count, __ATOMIC_ACQUIRE); }
const scorep_io_handle_def* scorep_io_handle_get(scorep_io_handle id)
{
    return id < scorep_io_handle_count() ? table_at(&io_handles, id) : NULL;
}

uint32_t scorep_metric_count(void) { return __atomic_load_n(&metrics.count, __ATOMIC_ACQUIRE); }
const scorep_metric_def* scorep_metric_get(scorep_metric id)
{
    return id < scorep_metric_count() ? table_at(&metrics, id) : NULL;
}
