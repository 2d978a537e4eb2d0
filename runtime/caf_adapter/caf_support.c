/* Run-time support of the Coarray Fortran adapter (see scorep_caf_adapter.h). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "scorep_caf_adapter.h"
#include "scorep_wrapgen/mpi_layer.h"

int scorep_caf_record_mpi;

#define UNLIKELY(x) __builtin_expect(!!(x), 0)

static int world_rank;
static int world_size;       /* 0 until _gfortran_caf_init returned */

/* ---- lifecycle ---- */

void scorep_caf_init_done(void)
{
    int initialized = 0;
    PMPI_Initialized(&initialized);
    if (!initialized) return;   /* a failed init: nothing to measure across images */
    scorep_mpi_layer_init();
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
    const char* record = scorep_config_value("SCOREP_CAF_RECORD_MPI");
    scorep_caf_record_mpi = record && strcasecmp(record, "true") == 0;
}

static void windows_end(void);

/* The coarrays still registered end with the program: libcaf frees their
 * windows in its finalisation, so each gets its RmaWinDestroy there, as
 * every window created gets one. */
void scorep_caf_finalize(void)
{
    windows_end();
    scorep_mpi_layer_finalize();
}

void scorep_caf_abort(void) { scorep_mpi_layer_abort(); }

/* ---- bytes ---- */

static uint64_t extent(ptrdiff_t lower, ptrdiff_t upper, ptrdiff_t stride)
{
    if (stride == 0) return 1;
    if (stride > 0) return upper >= lower ? (uint64_t)((upper - lower) / stride) + 1 : 0;
    return lower >= upper ? (uint64_t)((lower - upper) / -stride) + 1 : 0;
}

static uint64_t desc_elements(const gfc_descriptor_t* desc, const caf_vector_t* vector)
{
    uint64_t n = 1;
    int rank = GFC_DESCRIPTOR_RANK(desc);
    for (int d = 0; d < rank; d++) {
        if (vector && vector[d].nvec > 0)
            n *= vector[d].nvec;
        else if (vector)
            n *= extent(vector[d].u.triplet.lower_bound, vector[d].u.triplet.upper_bound,
                        vector[d].u.triplet.stride);
        else
            n *= extent(desc->dim[d].lower_bound, desc->dim[d]._ubound, 1);
    }
    return n;
}

uint64_t scorep_caf_desc_bytes(const gfc_descriptor_t* desc, const caf_vector_t* vector)
{
    if (!desc) return 0;
    return desc_elements(desc, vector) * (uint64_t)GFC_DESCRIPTOR_SIZE(desc);
}

/* elements of the chain's array references; *open set where one leaves the
 * extent to the remote side */
static uint64_t ref_elements(const caf_reference_t* refs, size_t* item, int* open)
{
    uint64_t n = 1;
    *open = 0;
    *item = 0;
    for (const caf_reference_t* r = refs; r; r = r->next) {
        *item = r->item_size;
        if (r->type != CAF_REF_ARRAY && r->type != CAF_REF_STATIC_ARRAY) continue;
        for (int d = 0; d < GFC_MAX_DIMENSIONS && r->u.a.mode[d] != CAF_ARR_REF_NONE; d++) {
            switch (r->u.a.mode[d]) {
            case CAF_ARR_REF_VECTOR: n *= r->u.a.dim[d].v.nvec; break;
            case CAF_ARR_REF_RANGE:
                n *= extent(r->u.a.dim[d].s.start, r->u.a.dim[d].s.end, r->u.a.dim[d].s.stride);
                break;
            case CAF_ARR_REF_SINGLE: break;
            default: *open = 1; break;   /* full, open start or end: the remote bounds decide */
            }
        }
    }
    return n;
}

uint64_t scorep_caf_ref_bytes(const caf_reference_t* refs, const gfc_descriptor_t* local)
{
    size_t item;
    int open;
    uint64_t n = ref_elements(refs, &item, &open);
    if (!open) return n * item;
    if (!local || !local->base_addr) return 0;
    return desc_elements(local, NULL) * item;
}

/* ---- coarray tokens -> windows ----
 * Registration is collective (static coarrays at start-up in program order,
 * allocate/deallocate on all images), so a counter keys each window alike on
 * every image. Open addressing by token address. */

#define CAF_KEY ((uint64_t)0xCAF0u << 48)
typedef struct slot {
    caf_token_t token;       /* NULL: empty; TOMBSTONE: deleted */
    scorep_window window;
} slot;
static slot* slots;
static size_t slot_capacity, slot_used;
static uint32_t window_counter;
static scorep_window unknown_window = SCOREP_INVALID_ID;
#define TOMBSTONE ((caf_token_t)(uintptr_t)1)
/* the last token looked up (a loop of puts to one coarray hits it) */
static caf_token_t last_token;
static scorep_window last_window;


static size_t slot_hash(caf_token_t token)
{
    uintptr_t x = (uintptr_t)token;
    x ^= x >> 17;
    x *= 0x9E3779B97F4A7C15ull;
    return (size_t)(x ^ (x >> 29));
}

static slot* slot_find(caf_token_t token)
{
    if (!slot_capacity) return NULL;
    for (size_t i = slot_hash(token) & (slot_capacity - 1);; i = (i + 1) & (slot_capacity - 1)) {
        if (slots[i].token == token) return &slots[i];
        if (slots[i].token == NULL) return NULL;
    }
}

static void slot_insert(caf_token_t token, scorep_window window);

static void slots_grow(void)
{
    slot* old = slots;
    size_t old_capacity = slot_capacity;
    slot_capacity = slot_capacity ? 2 * slot_capacity : 64;
    slots = calloc(slot_capacity, sizeof *slots);
    slot_used = 0;
    for (size_t i = 0; i < old_capacity; i++)
        if (old[i].token && old[i].token != TOMBSTONE) slot_insert(old[i].token, old[i].window);
    free(old);
}

static void slot_insert(caf_token_t token, scorep_window window)
{
    if (2 * (slot_used + 1) > slot_capacity) slots_grow();
    size_t i = slot_hash(token) & (slot_capacity - 1);
    while (slots[i].token && slots[i].token != TOMBSTONE) i = (i + 1) & (slot_capacity - 1);
    slots[i] = (slot){token, window};
    slot_used++;
}

static const char* window_name(int type)
{
    switch (type) {
    case CAF_REGTYPE_LOCK_STATIC:
    case CAF_REGTYPE_LOCK_ALLOC: return "lock";
    case CAF_REGTYPE_CRITICAL: return "critical";
    case CAF_REGTYPE_EVENT_STATIC:
    case CAF_REGTYPE_EVENT_ALLOC: return "event";
    default: return "coarray";
    }
}

void scorep_caf_window_register(caf_token_t token, int type)
{
    if (!token || slot_find(token)) return;   /* allocate-only after register-only: known */
    scorep_window w = scorep_rma_window_define(CAF_KEY | ++window_counter, SCOREP_COMM_WORLD, window_name(type));
    slot_insert(token, w);
    scorep_rma_window_create(w);
}

void scorep_caf_window_deregister(caf_token_t token)
{
    slot* s = token ? slot_find(token) : NULL;
    if (!s) return;
    scorep_rma_window_free(s->window);
    s->token = TOMBSTONE;
    if (token == last_token) last_token = NULL;
}

/* the live windows, newest first (the reverse of their creation, on every
 * image alike: the slots' order is the tokens' addresses, which differ) */
static void windows_end(void)
{
    scorep_window* live = slot_used ? malloc(slot_used * sizeof *live) : NULL;
    size_t n = 0;
    for (size_t i = 0; live && i < slot_capacity; i++)
        if (slots[i].token && slots[i].token != TOMBSTONE) live[n++] = slots[i].window;
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && live[j - 1] < live[j]; j--) {
            scorep_window w = live[j];
            live[j] = live[j - 1];
            live[j - 1] = w;
        }
    for (size_t i = 0; i < n; i++) scorep_rma_window_free(live[i]);
    free(live);
    free(slots);
    slots = NULL;
    slot_capacity = slot_used = 0;
    last_token = NULL;
}

scorep_window scorep_caf_window(caf_token_t token)
{
    if (token && token == last_token) return last_window;
    slot* s = token ? slot_find(token) : NULL;
    if (s) {
        last_token = token;
        last_window = s->window;
        return s->window;
    }
    /* a token registered without the adapter seeing it: one shared window,
     * keyed alike on every image */
    if (unknown_window == SCOREP_INVALID_ID)
        unknown_window = scorep_rma_window_define(CAF_KEY | 0xFFFFFFFFull, SCOREP_COMM_WORLD, "coarray (unregistered)");
    return unknown_window;
}

/* the current team, where it is not the initial one: world rank of each
 * team image (index: image - 1), its communicator in the core, this image's
 * index - 1 in it */
static int* team_ranks;
static int team_size, team_me;
static scorep_comm team_comm = SCOREP_COMM_WORLD;
/* the enclosing teams' mappings (nested change team) */
typedef struct team_frame {
    int* ranks;
    int size, me;
    scorep_comm comm;
} team_frame;
static team_frame* team_stack;
static size_t team_depth, team_capacity;

int scorep_caf_rank(int image)
{
    if (image == 0) return world_rank;                 /* this image */
    if (team_ranks) return image >= 1 && image <= team_size ? team_ranks[image - 1] : -1;
    if (image < 0 || (world_size && image > world_size)) return -1;
    return image - 1;                                  /* initial team: rank = image - 1 */
}


/* A communicator key every member computes alike: FNV-1a of the member list,
 * the top 16 bits a tag of the kind of set (teams, sync images sets). */
static uint64_t members_key(const int* ranks, uint32_t n, uint16_t tag)
{
    uint64_t key = 0xCBF29CE484222325ull;
    for (uint32_t i = 0; i < n; i++) {
        key ^= (uint64_t)(uint32_t)ranks[i];
        key *= 0x100000001B3ull;
    }
    return (key & ~((uint64_t)0xFFFFu << 48)) | ((uint64_t)tag << 48);
}
void scorep_caf_team_changed(MPI_Fint handle)
{
    MPI_Comm comm = MPI_Comm_f2c(handle);
    int n = 0;
    if (comm == MPI_COMM_NULL || PMPI_Comm_size(comm, &n) != MPI_SUCCESS || n <= 0) return;
    int* in = malloc((size_t)n * sizeof(int));
    int* out = malloc((size_t)n * sizeof(int));
    MPI_Group group, world;
    PMPI_Comm_group(comm, &group);
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    for (int i = 0; i < n; i++) in[i] = i;
    PMPI_Group_translate_ranks(group, n, in, world, out);
    PMPI_Group_free(&group);
    PMPI_Group_free(&world);
    free(in);
    int identity = n == world_size;
    for (int i = 0; identity && i < n; i++) identity = out[i] == i;
    if (team_depth == team_capacity) {
        size_t capacity = team_capacity ? 2 * team_capacity : 8;
        team_frame* grown = realloc(team_stack, capacity * sizeof *grown);
        if (!grown) {
            free(out);
            return;
        }
        team_stack = grown;
        team_capacity = capacity;
    }
    team_stack[team_depth++] = (team_frame){team_ranks, team_size, team_me, team_comm};
    team_ranks = NULL;
    team_comm = SCOREP_COMM_WORLD;
    team_me = world_rank;
    if (identity) {                                    /* back in the initial team */
        free(out);
        return;
    }
    team_ranks = out;
    team_size = n;
    for (int i = 0; i < n; i++)
        if (out[i] == world_rank) team_me = i;
    /* the team's communicator in the core: keyed by its member list (in
     * team image order), so the team's images define the same one */
    team_comm = scorep_comm_define(members_key(out, (uint32_t)n, 0xCAF2u), 0, (uint32_t)n, out, "team");
}

void scorep_caf_team_ended(void)
{
    if (!team_depth) return;
    free(team_ranks);
    team_frame f = team_stack[--team_depth];
    team_ranks = f.ranks;
    team_size = f.size;
    team_me = f.me;
    team_comm = f.comm;
}

/* ---- one-sided operations ----
 * A put, get or atomic is the whole call: issued right after its enter (the
 * enter's time, with the target image parameter, in one call into the core)
 * and complete right before its exit (which takes the completion's time):
 * a traced put reads the clock twice, like the call's enter and exit alone
 * (docs/PERFORMANCE.md). */

static uint64_t next_id;
static scorep_parameter image_parameter = SCOREP_INVALID_ID;

/* the target as the image index of the initial team (rank + 1), whatever
 * team the program is in; SCOREP_INVALID_ID without */
static inline scorep_parameter target_parameter(int parameter)
{
    if (!parameter) return SCOREP_INVALID_ID;
    if (UNLIKELY(image_parameter == SCOREP_INVALID_ID))
        image_parameter = scorep_parameter_define("image", SCOREP_PARAMETER_INT64);
    return image_parameter;
}

/* the window and rank of an operation on image, its matching id; 0 if the
 * image has no rank or is this image (nothing is recorded): a transfer
 * within the calling image is no remote communication. gfortran makes one
 * of an image's own coarray (`x(:) = y(:)[k]` into an allocatable coarray
 * is a sendget with this image as destination, `c = b[this_image()]` a get
 * from it); recording it would count bytes put or got that never left. */
static inline int issue(caf_token_t token, int image, scorep_caf_op* op, int* rank)
{
    *rank = scorep_caf_rank(image);
    op->deferred = 0;
    if (UNLIKELY(*rank < 0 || *rank == world_rank)) {
        op->id = 0;
        op->window = SCOREP_INVALID_ID;
        return 0;
    }
    op->window = scorep_caf_window(token);
    op->id = ++next_id;
    return 1;
}

void scorep_caf_put(caf_token_t token, int image, uint64_t bytes, scorep_caf_op* op, int parameter)
{
    int rank;
    if (!issue(token, image, op, &rank)) return;
    scorep_rma_put_at_call_start(op->window, rank, bytes, op->id, target_parameter(parameter), rank + 1);
}

void scorep_caf_get(caf_token_t token, int image, uint64_t bytes, scorep_caf_op* op, int parameter)
{
    int rank;
    if (!issue(token, image, op, &rank)) return;
    scorep_rma_get_at_call_start(op->window, rank, bytes, op->id, target_parameter(parameter), rank + 1);
}

/* a get by reference counted after its call (scorep_caf_complete_get_ref):
 * recorded when it is known, at its own time */
static void get_after_call(caf_token_t token, int image, uint64_t bytes, scorep_caf_op* op, int parameter)
{
    int rank;
    if (!issue(token, image, op, &rank)) return;
    if (parameter) scorep_parameter_int(target_parameter(parameter), rank + 1);
    scorep_rma_get(op->window, rank, bytes, op->id);
}

void scorep_caf_get_ref(caf_token_t token, int image, const caf_reference_t* refs, scorep_caf_op* op,
                        int parameter)
{
    size_t item;
    int open;
    uint64_t n = ref_elements(refs, &item, &open);
    op->token = token;
    op->image = image;
    op->parameter = parameter;
    int rank = scorep_caf_rank(image);
    op->deferred = open && rank >= 0 && rank != world_rank;   /* else nothing to record */
    if (open) {
        op->id = 0;
        return;
    }
    scorep_caf_get(token, image, n * item, op, parameter);
}

void scorep_caf_complete_get_ref(scorep_caf_op* op, const caf_reference_t* refs, const gfc_descriptor_t* local)
{
    if (op->deferred) {
        uint64_t bytes = scorep_caf_ref_bytes(refs, local);
        get_after_call(op->token, op->image, bytes, op, op->parameter);
    }
    scorep_caf_complete(op);
}

void scorep_caf_atomic(caf_token_t token, int image, scorep_rma_atomic_kind kind, uint64_t sent,
                       uint64_t received, scorep_caf_op* op)
{
    int rank;
    if (!issue(token, image, op, &rank)) return;
    scorep_rma_atomic_at_call_start(op->window, rank, kind, sent, received, op->id, target_parameter(1), rank + 1);
}

void scorep_caf_complete(const scorep_caf_op* op)
{
    if (op->id) scorep_rma_op_complete_at_call_end(op->window, op->id, 1);
}

/* ---- synchronisation and collectives ---- */

void scorep_caf_sync_all_end(void)
{
    scorep_mpi_collective_end(SCOREP_COLL_BARRIER, team_comm, SCOREP_NO_ROOT, 0, 0);
}

/* The images of one `sync images` (this one and the listed ones) as a
 * communicator of the core: keyed by its member list, so that images naming
 * the same set define the same one. A few recent lists are cached. */
#define SYNC_CACHE 8
typedef struct sync_set {
    int* ranks;
    uint32_t size;
    scorep_comm comm;
} sync_set;
static sync_set sync_cache[SYNC_CACHE];
static unsigned sync_next;

static int compare_int(const void* a, const void* b)
{
    int x = *(const int*)a, y = *(const int*)b;
    return (x > y) - (x < y);
}

/* Called at every sync images: a list of up to SYNC_STACK images is sorted
 * on the stack, and memory is taken only for a set not seen recently. */
#define SYNC_STACK 64
static scorep_comm sync_comm(int count, const int* images)
{
    int stack[SYNC_STACK];
    int* ranks = count + 1 <= SYNC_STACK ? stack : malloc((size_t)(count + 1) * sizeof(int));
    uint32_t n = 0;
    ranks[n++] = world_rank;
    for (int i = 0; i < count; i++) {
        int r = scorep_caf_rank(images[i]);
        if (r >= 0) ranks[n++] = r;
    }
    qsort(ranks, n, sizeof(int), compare_int);
    uint32_t unique = 0;
    for (uint32_t i = 0; i < n; i++)
        if (unique == 0 || ranks[unique - 1] != ranks[i]) ranks[unique++] = ranks[i];
    scorep_comm comm = SCOREP_INVALID_ID;
    for (int i = 0; i < SYNC_CACHE && comm == SCOREP_INVALID_ID; i++)
        if (sync_cache[i].ranks && sync_cache[i].size == unique &&
            memcmp(sync_cache[i].ranks, ranks, unique * sizeof(int)) == 0)
            comm = sync_cache[i].comm;
    if (comm == SCOREP_INVALID_ID) {
        comm = scorep_comm_define(members_key(ranks, unique, 0xCAF1u), 0, unique, ranks, "sync images");
        int* kept = malloc(unique * sizeof(int));
        memcpy(kept, ranks, unique * sizeof(int));
        sync_set* s = &sync_cache[sync_next++ % SYNC_CACHE];
        free(s->ranks);
        *s = (sync_set){kept, unique, comm};
    }
    if (ranks != stack) free(ranks);
    return comm;
}

void scorep_caf_sync_images_end(int count, const int* images)
{
    scorep_comm comm = count < 0 ? team_comm : sync_comm(count, images);
    scorep_mpi_collective_end(SCOREP_COLL_BARRIER, comm, SCOREP_NO_ROOT, 0, 0);
}

void scorep_caf_collective_end(scorep_collective_kind kind, int root_image, const gfc_descriptor_t* a)
{
    uint64_t bytes = scorep_caf_desc_bytes(a, NULL);
    /* the root as a rank of the current team's communicator: image - 1 */
    int root = root_image > 0 ? root_image - 1 : SCOREP_NO_ROOT;
    int me = team_ranks ? team_me : world_rank;
    uint64_t sent = bytes, received = bytes;
    if (kind == SCOREP_COLL_ALLREDUCE && root != SCOREP_NO_ROOT) kind = SCOREP_COLL_REDUCE;
    if (kind == SCOREP_COLL_REDUCE && root != me) received = 0;
    if (kind == SCOREP_COLL_BCAST) {
        if (root == me) received = 0;
        else sent = 0;
    }
    scorep_mpi_collective_end(kind, team_comm, root, sent, received);
}

void scorep_caf_lock(caf_token_t token, int image)
{
    int rank = scorep_caf_rank(image);
    if (rank >= 0) scorep_rma_lock(scorep_caf_window(token), rank, 1);
}

void scorep_caf_unlock(caf_token_t token, int image)
{
    int rank = scorep_caf_rank(image);
    if (rank >= 0) scorep_rma_unlock(scorep_caf_window(token), rank);
}
