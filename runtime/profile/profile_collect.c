/* Collects the call-path profiles of all locations of all ranks on rank 0:
 * each rank encodes its trees with global ids and times in nanoseconds, the
 * blobs travel up a binomial tree, rank 0 merges equal call paths. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "buffer.h"
#include "multiprocess.h"
#include "profile.h"
#include "report.h"
#include "strmap.h"

static uint64_t to_ns(uint64_t ticks, uint64_t tps)
{
    if (tps == 1000000000ull) return ticks;
    return (uint64_t)((unsigned __int128)ticks * 1000000000u / (tps ? tps : 1));
}

static uint32_t mapped(const uint32_t* map, uint32_t id, uint32_t count)
{
    return id < count ? map[id] : SCOREP_INVALID_ID;
}

static void encode_location(scorep_buffer* b, scorep_location* loc, const scorep_unified_definitions* defs,
                            uint64_t tps)
{
    scorep_profile_node* root = scorep_profile_root(loc);
    /* count nodes first so the reader knows how many follow */
    uint64_t count = 0;
    size_t stack_cap = 64, depth = 0;
    scorep_profile_node** stack = malloc(stack_cap * sizeof *stack);
    for (scorep_profile_node* c = root->first_child; c; c = c->next_sibling) {
        if (depth == stack_cap) stack = realloc(stack, (stack_cap *= 2) * sizeof *stack);
        stack[depth++] = c;
    }
    /* preorder with explicit stack; parent index via a side table in enter_ticks */
    scorep_buffer body = {0};
    uint32_t nregions = scorep_region_count(), nparams = scorep_parameter_count();
    uint32_t nstrings = scorep_string_count(), nmetrics = scorep_metric_count();
    /* reverse so the first child is handled first */
    for (size_t i = 0; i < depth / 2; i++) {
        scorep_profile_node* tmp = stack[i];
        stack[i] = stack[depth - 1 - i];
        stack[depth - 1 - i] = tmp;
    }
    root->enter_ticks = UINT64_MAX;
    while (depth) {
        scorep_profile_node* n = stack[--depth];
        uint64_t index = count++;
        uint64_t parent_index = n->parent == root ? UINT64_MAX : n->parent->enter_ticks;
        n->enter_ticks = index; /* finalisation: the field is free now */
        scorep_buffer_put_u64(&body, parent_index);
        scorep_buffer_put_u64(&body, mapped(defs->region_map, n->region, nregions));
        uint32_t gp = n->parameter == SCOREP_INVALID_ID ? SCOREP_INVALID_ID
                                                         : mapped(defs->parameter_map, n->parameter, nparams);
        int64_t value = n->parameter_value;
        if (n->parameter != SCOREP_INVALID_ID) {
            const scorep_parameter_def* pd = scorep_parameter_get(n->parameter);
            if (pd && pd->type == SCOREP_PARAMETER_STRING)
                value = mapped(defs->string_map, (uint32_t)value, nstrings);
        }
        scorep_buffer_put_u64(&body, gp);
        scorep_buffer_put_u64(&body, (uint64_t)value);
        const scorep_profile_numbers* x = &n->n;
        uint64_t numbers[14] = {x->visits, to_ns(x->time_incl, tps),
                                x->visits ? to_ns(x->time_min, tps) : 0, to_ns(x->time_max, tps),
                                x->bytes_sent, x->bytes_received, x->messages_sent, x->messages_received,
                                x->bytes_read, x->bytes_written, x->collectives, x->bytes_put, x->bytes_get,
                                x->hits};
        scorep_buffer_put(&body, numbers, sizeof numbers);
        uint64_t nm = 0;
        for (uint32_t m = 0; m < nmetrics && m < SCOREP_PROFILE_MAX_METRICS; m++) nm += n->metrics[m] != 0;
        scorep_buffer_put_u64(&body, nm);
        for (uint32_t m = 0; m < nmetrics && m < SCOREP_PROFILE_MAX_METRICS; m++)
            if (n->metrics[m]) {
                scorep_buffer_put_u64(&body, mapped(defs->metric_map, m, nmetrics));
                scorep_buffer_put_u64(&body, (uint64_t)n->metrics[m]);
            }
        size_t first = depth;
        for (scorep_profile_node* c = n->first_child; c; c = c->next_sibling) {
            if (depth == stack_cap) stack = realloc(stack, (stack_cap *= 2) * sizeof *stack);
            stack[depth++] = c;
        }
        for (size_t i = 0; i < (depth - first) / 2; i++) {
            scorep_profile_node* tmp = stack[first + i];
            stack[first + i] = stack[depth - 1 - i];
            stack[depth - 1 - i] = tmp;
        }
    }
    free(stack);
    scorep_buffer_put_u64(b, loc->local_id);
    scorep_buffer_put_u64(b, count);
    scorep_buffer_put(b, body.data, body.size);
    scorep_buffer_free(&body);
}

static void encode_rank(scorep_buffer* b, const scorep_unified_definitions* defs)
{
    uint64_t tps = scorep_timer_ticks_per_second();
    uint64_t nloc = 0;
    for (scorep_location* l = scorep_location_list(); l; l = l->next)
        if (scorep_profile_root(l)) nloc++;
    scorep_buffer_put_u64(b, (uint64_t)scorep_process_rank);
    scorep_buffer_put_u64(b, nloc);
    for (scorep_location* l = scorep_location_list(); l; l = l->next)
        if (scorep_profile_root(l)) encode_location(b, l, defs, tps);
}

typedef struct report_builder {
    scorep_report* r;
    size_t row_capacity, callpath_capacity;
    scorep_strmap callpath_index, location_index;
} report_builder;

static uint32_t callpath_id(report_builder* rb, uint32_t parent, uint32_t region, uint32_t parameter, int64_t value)
{
    uint64_t key[4] = {parent, region, parameter, (uint64_t)value};
    uint32_t id;
    if (scorep_strmap_get(&rb->callpath_index, key, sizeof key, &id)) return id;
    scorep_report* r = rb->r;
    if (r->callpath_count == rb->callpath_capacity) {
        rb->callpath_capacity = rb->callpath_capacity ? 2 * rb->callpath_capacity : 64;
        r->callpaths = realloc(r->callpaths, rb->callpath_capacity * sizeof *r->callpaths);
    }
    id = r->callpath_count++;
    r->callpaths[id] = (scorep_report_callpath){region, parent, parameter, value};
    scorep_strmap_put(&rb->callpath_index, key, sizeof key, id);
    return id;
}

static void decode_ranks(report_builder* rb, scorep_buffer* all)
{
    scorep_report* r = rb->r;
    all->read_pos = 0;
    uint32_t* local_to_cp = NULL;
    size_t local_cap = 0;
    while (all->read_pos < all->size && !all->read_error) {
        uint64_t rank = scorep_buffer_get_u64(all);
        uint64_t nloc = scorep_buffer_get_u64(all);
        for (uint64_t l = 0; l < nloc && !all->read_error; l++) {
            uint64_t thread = scorep_buffer_get_u64(all);
            uint64_t nnodes = scorep_buffer_get_u64(all);
            uint64_t lkey[2] = {rank, thread};
            uint32_t location = SCOREP_INVALID_ID;
            scorep_strmap_get(&rb->location_index, lkey, sizeof lkey, &location);
            if (nnodes > local_cap) {
                local_cap = nnodes;
                local_to_cp = realloc(local_to_cp, local_cap * sizeof *local_to_cp);
            }
            for (uint64_t i = 0; i < nnodes && !all->read_error; i++) {
                uint64_t parent_index = scorep_buffer_get_u64(all);
                uint32_t region = (uint32_t)scorep_buffer_get_u64(all);
                uint32_t parameter = (uint32_t)scorep_buffer_get_u64(all);
                int64_t value = (int64_t)scorep_buffer_get_u64(all);
                uint64_t numbers[14];
                for (int k = 0; k < 14; k++) numbers[k] = scorep_buffer_get_u64(all);
                uint32_t parent = parent_index == UINT64_MAX || parent_index >= i ? SCOREP_INVALID_ID
                                                                                  : local_to_cp[parent_index];
                uint32_t cp = callpath_id(rb, parent, region, parameter, value);
                local_to_cp[i] = cp;
                if (r->row_count == rb->row_capacity) {
                    rb->row_capacity = rb->row_capacity ? 2 * rb->row_capacity : 256;
                    r->rows = realloc(r->rows, rb->row_capacity * sizeof *r->rows);
                }
                scorep_report_row* row = &r->rows[r->row_count++];
                memset(row, 0, sizeof *row);
                row->location = location;
                row->callpath = cp;
                row->n = (scorep_profile_numbers){numbers[0], numbers[1], numbers[2], numbers[3], numbers[4],
                                                  numbers[5], numbers[6], numbers[7], numbers[8], numbers[9],
                                                  numbers[10], numbers[11], numbers[12], numbers[13]};
                uint64_t nm = scorep_buffer_get_u64(all);
                for (uint64_t m = 0; m < nm; m++) {
                    uint64_t gid = scorep_buffer_get_u64(all);
                    int64_t v = (int64_t)scorep_buffer_get_u64(all);
                    if (gid < SCOREP_PROFILE_MAX_METRICS) row->metrics[gid] = v;
                }
            }
        }
    }
    free(local_to_cp);
}

/* exclusive time = inclusive minus the children's inclusive, per location;
 * the strict metrics' alike */
static void compute_exclusive(scorep_report* r)
{
    scorep_strmap row_of = {0};
    const scorep_unified_definitions* d = r->defs;
    uint32_t nmetrics = d->metric_count < SCOREP_PROFILE_MAX_METRICS ? d->metric_count : SCOREP_PROFILE_MAX_METRICS;
    for (size_t i = 0; i < r->row_count; i++) {
        r->rows[i].time_excl = r->rows[i].n.time_incl;
        memcpy(r->rows[i].metrics_excl, r->rows[i].metrics, sizeof r->rows[i].metrics);
        uint64_t key[2] = {r->rows[i].location, r->rows[i].callpath};
        scorep_strmap_put(&row_of, key, sizeof key, (uint32_t)i);
    }
    for (size_t i = 0; i < r->row_count; i++) {
        uint32_t parent = r->callpaths[r->rows[i].callpath].parent;
        if (parent == SCOREP_INVALID_ID) continue;
        uint64_t key[2] = {r->rows[i].location, parent};
        uint32_t p;
        if (scorep_strmap_get(&row_of, key, sizeof key, &p)) {
            scorep_report_row* pr = &r->rows[p];
            pr->time_excl = pr->time_excl > r->rows[i].n.time_incl ? pr->time_excl - r->rows[i].n.time_incl : 0;
            for (uint32_t m = 0; m < nmetrics; m++)
                if (scorep_report_metric_is_strict(&d->metrics[m])) pr->metrics_excl[m] -= r->rows[i].metrics[m];
        }
    }
    scorep_strmap_free(&row_of);
}

scorep_report* scorep_profile_collect(const scorep_unified_definitions* defs, bool emergency)
{
    scorep_buffer mine = {0}, all = {0};
    encode_rank(&mine, defs);
    bool root;
    if (emergency || scorep_process_size == 1) {
        scorep_buffer_put(&all, mine.data, mine.size);
        root = true;
    } else
        root = scorep_tree_gather(&mine, &all);
    scorep_buffer_free(&mine);
    if (!root) {
        scorep_buffer_free(&all);
        return NULL;
    }
    report_builder rb = {0};
    rb.r = calloc(1, sizeof *rb.r);
    rb.r->defs = defs;
    for (uint32_t i = 0; i < defs->location_count; i++) {
        uint64_t key[2] = {defs->location_rank[i], defs->location_thread[i]};
        scorep_strmap_put(&rb.location_index, key, sizeof key, i);
    }
    decode_ranks(&rb, &all);
    if (all.read_error) scorep_warning("profile data of some ranks could not be decoded; the profile is incomplete");
    scorep_buffer_free(&all);
    compute_exclusive(rb.r);
    scorep_strmap_free(&rb.callpath_index);
    scorep_strmap_free(&rb.location_index);
    return rb.r;
}

void scorep_report_free(scorep_report* r)
{
    if (!r) return;
    free(r->callpaths);
    free(r->rows);
    free(r->io_files);
    free(r);
}
