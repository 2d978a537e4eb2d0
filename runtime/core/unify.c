/* Unification of definitions across ranks.
 *
 * Every definition is encoded as (kind, canonical bytes). Ranks merge their
 * sets pairwise up a binomial tree, dropping duplicates on the way, so rank 0
 * ends with the unique global set; its order defines the global ids. The set
 * is broadcast back and every rank maps its local ids by looking up its own
 * encodings. Locations are never duplicates: each is (rank, thread). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "buffer.h"
#include "location.h"
#include "multiprocess.h"
#include "unify.h"
#include "strmap.h"

enum def_kind { K_STRING, K_REGION, K_COMM, K_WINDOW, K_PARAMETER, K_METRIC, K_IO_HANDLE, K_LOCATION, K_COUNT };

static void encode_comm(scorep_buffer* b, scorep_comm id)
{
    const scorep_comm_def* c = scorep_comm_get(id);
    uint64_t key;
    uint32_t size;
    int is_group = 0;
    if (id == SCOREP_COMM_WORLD) {
        key = UINT64_MAX;
        size = (uint32_t)scorep_process_size;
    } else if (id == SCOREP_COMM_SELF) {
        key = ((uint64_t)(uint32_t)scorep_process_rank << 32) | 0xFFFFFFFFull;
        size = 1;
    } else {
        key = c->stable_key;
        size = c->size;
        is_group = c->is_group;
    }
    scorep_buffer_put_u64(b, key);
    scorep_buffer_put_u64(b, (uint64_t)is_group);
    scorep_buffer_put_u64(b, size);
    for (uint32_t i = 0; i < size; i++) {
        int w = id == SCOREP_COMM_WORLD ? (int)i : id == SCOREP_COMM_SELF ? scorep_process_rank : c->local_to_world[i];
        scorep_buffer_put_u64(b, (uint64_t)(int64_t)w);
    }
    scorep_buffer_put_str(b, c ? c->name : NULL);
}

/* canonical encoding of local definition `id` of `kind` */
static void encode(scorep_buffer* b, int kind, uint32_t id)
{
    b->size = 0;
    switch (kind) {
    case K_STRING: scorep_buffer_put_str(b, scorep_string_get(id)); break;
    case K_REGION: {
        const scorep_region_def* r = scorep_region_get(id);
        scorep_buffer_put_str(b, r->name);
        scorep_buffer_put_str(b, r->file);
        scorep_buffer_put_str(b, r->group);
        scorep_buffer_put_u64(b, r->paradigm);
        scorep_buffer_put_u64(b, r->role);
        scorep_buffer_put_u64(b, (uint64_t)r->filtered);
        scorep_buffer_put_u64(b, r->line);   /* part of the identity, as locally */
        scorep_buffer_put_u64(b, r->end_line);
        scorep_buffer_put_str(b, r->canonical);
        break;
    }
    case K_COMM: encode_comm(b, id); break;
    case K_WINDOW: {
        const scorep_window_def* w = scorep_window_get(id);
        scorep_buffer_put_u64(b, w->stable_key);
        scorep_buffer_put_str(b, w->name);
        encode_comm(b, w->comm);
        break;
    }
    case K_PARAMETER: {
        const scorep_parameter_def* p = scorep_parameter_get(id);
        scorep_buffer_put_str(b, p->name);
        scorep_buffer_put_u64(b, p->type);
        break;
    }
    case K_METRIC: {
        const scorep_metric_def* m = scorep_metric_get(id);
        scorep_buffer_put_str(b, m->name);
        scorep_buffer_put_str(b, m->unit);
        scorep_buffer_put_str(b, m->description);
        scorep_buffer_put_u64(b, m->kind);
        break;
    }
    case K_IO_HANDLE: {   /* a file of an I/O paradigm: ranks opening one file share its handle */
        const scorep_io_handle_def* h = scorep_io_handle_get(id);
        scorep_buffer_put_str(b, h->name);
        scorep_buffer_put_u64(b, h->paradigm);
        scorep_buffer_put_u64(b, (uint64_t)h->pre_created);
        scorep_buffer_put_u64(b, h->mode);
        scorep_buffer_put_u64(b, h->duplicate);
        scorep_buffer_put_u64(b, (uint64_t)h->under_stream);
        break;
    }
    }
}

static uint32_t local_count(int kind)
{
    switch (kind) {
    case K_STRING: return scorep_string_count();
    case K_REGION: return scorep_region_count();
    case K_COMM: return scorep_comm_count();
    case K_WINDOW: return scorep_window_count();
    case K_PARAMETER: return scorep_parameter_count();
    case K_METRIC: return scorep_metric_count();
    case K_IO_HANDLE: return scorep_io_handle_count();
    default: return 0;
    }
}

/* set blob: sequence of records (kind u64, length u64, bytes) */
static void put_record(scorep_buffer* set, uint64_t kind, const void* bytes, size_t n)
{
    scorep_buffer_put_u64(set, kind);
    scorep_buffer_put_u64(set, n);
    scorep_buffer_put(set, bytes, n);
}

static bool next_record(scorep_buffer* set, uint64_t* kind, const uint8_t** bytes, size_t* n)
{
    if (set->read_pos >= set->size) return false;
    *kind = scorep_buffer_get_u64(set);
    *n = scorep_buffer_get_u64(set);
    if (set->read_error || set->read_pos + *n > set->size) return false;
    *bytes = set->data + set->read_pos;
    set->read_pos += *n;
    return true;
}

/* Global ids: the position among records of the same kind, except that
 * communicators come before MPI groups (both K_COMM records): the trace
 * numbers its communicators densely from 0 with these ids (OTF2 readers
 * expect no gaps), and every entry, group or not, also names a group. */
typedef struct id_numbering {
    uint32_t next[K_COUNT];
    uint32_t comms;          /* communicator records in the set */
    uint32_t groups_seen;
} id_numbering;

static bool comm_record_is_group(const uint8_t* bytes, size_t n)
{
    uint64_t is_group = 0;   /* encode_comm: key, then is_group */
    if (n >= 2 * sizeof is_group)
        memcpy(&is_group, bytes + sizeof is_group, sizeof is_group);
    return is_group != 0;
}

static void numbering_start(id_numbering* ids, scorep_buffer* set)
{
    memset(ids, 0, sizeof *ids);
    uint64_t kind;
    const uint8_t* bytes;
    size_t n;
    set->read_pos = 0;
    while (next_record(set, &kind, &bytes, &n))
        if (kind == K_COMM && !comm_record_is_group(bytes, n)) ids->comms++;
    set->read_pos = 0;
}

static uint32_t numbering_next(id_numbering* ids, uint64_t kind, const uint8_t* bytes, size_t n)
{
    if (kind == K_COMM) {
        if (comm_record_is_group(bytes, n)) return ids->comms + ids->groups_seen++;
        return ids->next[K_COMM]++;
    }
    return ids->next[kind]++;
}

static void local_set(scorep_buffer* set)
{
    scorep_buffer enc = {0};
    for (int kind = 0; kind < K_LOCATION; kind++) {
        uint32_t n = local_count(kind);
        for (uint32_t id = 0; id < n; id++) {
            encode(&enc, kind, id);
            put_record(set, kind, enc.data, enc.size);
        }
    }
    /* locations in local_id order */
    uint32_t nloc = scorep_location_count();
    scorep_location** by_id = calloc(nloc ? nloc : 1, sizeof *by_id);
    for (scorep_location* l = scorep_location_list(); l; l = l->next)
        if (l->local_id < nloc) by_id[l->local_id] = l;
    for (uint32_t i = 0; i < nloc; i++) {
        uint64_t rec[5] = {(uint64_t)scorep_process_rank, i, by_id[i] ? scorep_location_event_count(by_id[i]) : 0,
                           by_id[i] ? by_id[i]->creator : SCOREP_INVALID_ID, by_id[i] ? by_id[i]->team_member : 0};
        put_record(set, K_LOCATION, rec, sizeof rec);
    }
    free(by_id);
    scorep_buffer_free(&enc);
}

static void key_of(scorep_buffer* k, uint64_t kind, const uint8_t* bytes, size_t n)
{
    k->size = 0;
    scorep_buffer_put_u64(k, kind);
    scorep_buffer_put(k, bytes, n);
}

static void merge_sets(scorep_buffer* child, scorep_buffer* into)
{
    scorep_strmap seen = {0};
    scorep_buffer k = {0};
    uint64_t kind;
    const uint8_t* bytes;
    size_t n;
    into->read_pos = 0;
    while (next_record(into, &kind, &bytes, &n)) {
        key_of(&k, kind, bytes, n);
        scorep_strmap_put(&seen, k.data, k.size, 1);
    }
    child->read_pos = 0;
    while (next_record(child, &kind, &bytes, &n)) {
        uint32_t dummy;
        key_of(&k, kind, bytes, n);
        if (kind != K_LOCATION && scorep_strmap_get(&seen, k.data, k.size, &dummy)) continue;
        scorep_strmap_put(&seen, k.data, k.size, 1);
        put_record(into, kind, bytes, n);
    }
    into->read_pos = 0;
    scorep_buffer_free(&k);
    scorep_strmap_free(&seen);
}

/* ---- decoding the global set into tables (rank 0) ---- */

static char* dup_str(scorep_buffer* b)
{
    const char* s = scorep_buffer_get_str(b);
    return s ? strdup(s) : NULL;
}

static scorep_comm_def decode_comm(scorep_buffer* b)
{
    scorep_comm_def c = {0};
    c.stable_key = scorep_buffer_get_u64(b);
    c.is_group = (int)scorep_buffer_get_u64(b);
    c.size = (uint32_t)scorep_buffer_get_u64(b);
    int* map = malloc((c.size ? c.size : 1) * sizeof(int));
    for (uint32_t i = 0; i < c.size; i++) map[i] = (int)(int64_t)scorep_buffer_get_u64(b);
    c.local_to_world = map;
    c.name = dup_str(b);
    return c;
}

typedef struct unified_storage {
    scorep_unified_definitions pub;
    char** strings;
    scorep_region_def* regions;
    scorep_comm_def* comms;
    scorep_window_def* windows;
    scorep_parameter_def* parameters;
    scorep_metric_def* metrics;
    scorep_io_handle_def* io_handles;
    uint32_t *location_rank, *location_thread;
    uint64_t* location_events;
    uint32_t* location_creator;
    uint32_t* location_team_member;
    uint32_t* maps[K_LOCATION];
} unified_storage;

static void build_tables(unified_storage* u, scorep_buffer* set, scorep_strmap* comm_index)
{
    uint32_t counts[K_COUNT] = {0};
    uint64_t kind;
    const uint8_t* bytes;
    size_t n;
    set->read_pos = 0;
    while (next_record(set, &kind, &bytes, &n))
        if (kind < K_COUNT) counts[kind]++;
    u->strings = calloc(counts[K_STRING] + 1, sizeof(char*));
    u->regions = calloc(counts[K_REGION] + 1, sizeof(scorep_region_def));
    u->comms = calloc(counts[K_COMM] + 1, sizeof(scorep_comm_def));
    u->windows = calloc(counts[K_WINDOW] + 1, sizeof(scorep_window_def));
    u->parameters = calloc(counts[K_PARAMETER] + 1, sizeof(scorep_parameter_def));
    u->metrics = calloc(counts[K_METRIC] + 1, sizeof(scorep_metric_def));
    u->io_handles = calloc(counts[K_IO_HANDLE] + 1, sizeof(scorep_io_handle_def));
    u->location_rank = calloc(counts[K_LOCATION] + 1, sizeof(uint32_t));
    u->location_thread = calloc(counts[K_LOCATION] + 1, sizeof(uint32_t));
    u->location_events = calloc(counts[K_LOCATION] + 1, sizeof(uint64_t));
    u->location_creator = calloc(counts[K_LOCATION] + 1, sizeof(uint32_t));
    u->location_team_member = calloc(counts[K_LOCATION] + 1, sizeof(uint32_t));
    id_numbering ids;
    numbering_start(&ids, set);
    while (next_record(set, &kind, &bytes, &n)) {
        scorep_buffer r = {(uint8_t*)bytes, n, n, 0, false};
        uint32_t id = numbering_next(&ids, kind, bytes, n);
        switch (kind) {
        case K_STRING: u->strings[id] = dup_str(&r); break;
        case K_REGION: {
            scorep_region_def* d = &u->regions[id];
            d->name = dup_str(&r);
            d->file = dup_str(&r);
            d->group = dup_str(&r);
            d->paradigm = (scorep_paradigm)scorep_buffer_get_u64(&r);
            d->role = (scorep_region_role)scorep_buffer_get_u64(&r);
            d->filtered = (int)scorep_buffer_get_u64(&r);
            d->line = (uint32_t)scorep_buffer_get_u64(&r);
            d->end_line = (uint32_t)scorep_buffer_get_u64(&r);
            d->canonical = dup_str(&r);
            break;
        }
        case K_COMM: u->comms[id] = decode_comm(&r); break;
        case K_WINDOW: {
            scorep_window_def* w = &u->windows[id];
            w->stable_key = scorep_buffer_get_u64(&r);
            w->name = dup_str(&r);
            size_t comm_start = r.read_pos;
            uint32_t comm_id = SCOREP_INVALID_ID;
            scorep_buffer k = {0};
            key_of(&k, K_COMM, bytes + comm_start, n - comm_start);
            scorep_strmap_get(comm_index, k.data, k.size, &comm_id);
            scorep_buffer_free(&k);
            w->comm = comm_id;
            break;
        }
        case K_PARAMETER:
            u->parameters[id].name = dup_str(&r);
            u->parameters[id].type = (scorep_parameter_type)scorep_buffer_get_u64(&r);
            break;
        case K_METRIC:
            u->metrics[id].name = dup_str(&r);
            u->metrics[id].unit = dup_str(&r);
            u->metrics[id].description = dup_str(&r);
            u->metrics[id].kind = (scorep_metric_kind)scorep_buffer_get_u64(&r);
            break;
        case K_IO_HANDLE:
            u->io_handles[id].name = dup_str(&r);
            u->io_handles[id].paradigm = (scorep_io_paradigm)scorep_buffer_get_u64(&r);
            u->io_handles[id].pre_created = (int)scorep_buffer_get_u64(&r);
            u->io_handles[id].mode = (scorep_io_access)scorep_buffer_get_u64(&r);
            u->io_handles[id].duplicate = (uint32_t)scorep_buffer_get_u64(&r);
            u->io_handles[id].under_stream = (int)scorep_buffer_get_u64(&r);
            break;
        case K_LOCATION: {
            uint64_t rec[5] = {0};
            memcpy(rec, bytes, n < sizeof rec ? n : sizeof rec);
            u->location_rank[id] = (uint32_t)rec[0];
            u->location_thread[id] = (uint32_t)rec[1];
            u->location_events[id] = rec[2];
            u->location_creator[id] = (uint32_t)rec[3];
            u->location_team_member[id] = (uint32_t)rec[4];
            break;
        }
        }
    }
    scorep_unified_definitions* d = &u->pub;
    d->string_count = counts[K_STRING];
    d->strings = (const char* const*)u->strings;
    d->region_count = counts[K_REGION];
    d->regions = u->regions;
    d->comm_count = counts[K_COMM];
    d->comms = u->comms;
    d->window_count = counts[K_WINDOW];
    d->windows = u->windows;
    d->parameter_count = counts[K_PARAMETER];
    d->parameters = u->parameters;
    d->metric_count = counts[K_METRIC];
    d->metrics = u->metrics;
    d->io_handle_count = counts[K_IO_HANDLE];
    d->io_handles = u->io_handles;
    d->location_count = counts[K_LOCATION];
    d->location_rank = u->location_rank;
    d->location_thread = u->location_thread;
    d->location_event_count = u->location_events;
    d->location_creator = u->location_creator;
    d->location_team_member = u->location_team_member;
}

/* global ids (id_numbering) by record key; returns the communicators' count */
static uint32_t index_set(scorep_buffer* set, scorep_strmap* index)
{
    id_numbering ids;
    numbering_start(&ids, set);
    scorep_buffer k = {0};
    uint64_t kind;
    const uint8_t* bytes;
    size_t n;
    while (next_record(set, &kind, &bytes, &n)) {
        if (kind >= K_COUNT) break;
        uint32_t id = numbering_next(&ids, kind, bytes, n);
        if (kind == K_LOCATION) continue;
        key_of(&k, kind, bytes, n);
        scorep_strmap_put(index, k.data, k.size, id);
    }
    scorep_buffer_free(&k);
    return ids.comms;
}

static void build_maps(unified_storage* u, scorep_strmap* index)
{
    scorep_buffer enc = {0}, k = {0};
    for (int kind = 0; kind < K_LOCATION; kind++) {
        uint32_t n = local_count(kind);
        u->maps[kind] = malloc((n ? n : 1) * sizeof(uint32_t));
        for (uint32_t id = 0; id < n; id++) {
            encode(&enc, kind, id);
            key_of(&k, kind, enc.data, enc.size);
            uint32_t g = SCOREP_INVALID_ID;
            scorep_strmap_get(index, k.data, k.size, &g);
            u->maps[kind][id] = g;
        }
    }
    scorep_unified_definitions* d = &u->pub;
    d->string_map = u->maps[K_STRING];
    d->region_map = u->maps[K_REGION];
    d->comm_map = u->maps[K_COMM];
    d->window_map = u->maps[K_WINDOW];
    d->parameter_map = u->maps[K_PARAMETER];
    d->metric_map = u->maps[K_METRIC];
    d->io_handle_map = u->maps[K_IO_HANDLE];
    scorep_buffer_free(&enc);
    scorep_buffer_free(&k);
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static scorep_unified_definitions* unify(bool communicate)
{
    double begin = seconds_now();
    unified_storage* u = calloc(1, sizeof *u);
    scorep_buffer set = {0};
    local_set(&set);
    if (communicate) {
        scorep_tree_reduce(&set, merge_sets);
        /* only the definitions are needed everywhere; locations stay on rank 0 */
        scorep_buffer defs_only = {0};
        if (scorep_process_rank == 0) {
            uint64_t kind;
            const uint8_t* bytes;
            size_t n;
            set.read_pos = 0;
            while (next_record(&set, &kind, &bytes, &n))
                if (kind != K_LOCATION) put_record(&defs_only, kind, bytes, n);
        }
        scorep_bcast_buffer(&defs_only, 0);
        scorep_strmap index = {0};
        u->pub.communicator_count = index_set(&defs_only, &index);
        build_maps(u, &index);
        if (scorep_process_rank == 0) build_tables(u, &set, &index);
        scorep_strmap_free(&index);
        scorep_buffer_free(&defs_only);
    } else {
        scorep_strmap index = {0};
        u->pub.communicator_count = index_set(&set, &index);
        build_maps(u, &index);
        build_tables(u, &set, &index);
        scorep_strmap_free(&index);
    }
    scorep_buffer_free(&set);
    if (communicate && scorep_process_rank == 0)   /* bench/clock_sync reads it */
        scorep_verbose("definitions of %d ranks unified in %.3f ms (%u locations)", scorep_process_size,
                       (seconds_now() - begin) * 1e3, u->pub.location_count);
    return &u->pub;
}

scorep_unified_definitions* scorep_unify_definitions(void) { return unify(scorep_process_size > 1); }
scorep_unified_definitions* scorep_local_definitions(void) { return unify(false); }

void scorep_unified_definitions_free(scorep_unified_definitions* d)
{
    /* the tables are small and finalisation happens once: released at exit */
    (void)d;
}
