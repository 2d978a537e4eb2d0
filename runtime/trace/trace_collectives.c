/*
 * OTF2's collective callbacks over the core's multi-process operations.
 *
 * The core links no MPI: the MPI layer registers byte-oriented collectives
 * (scorep_multiprocess_ops), and without it the serial ops make this process
 * rank 0 of 1. OTF2 uses the collectives to let the primary archive (rank 0)
 * create the archive directory and write the anchor file, and to agree on
 * the archive's properties at close.
 */
#include <stdlib.h>

#include "trace.h"

static size_t type_size(OTF2_Type type)
{
    switch (type) {
    case OTF2_TYPE_UINT8: case OTF2_TYPE_INT8: return 1;
    case OTF2_TYPE_UINT16: case OTF2_TYPE_INT16: return 2;
    case OTF2_TYPE_UINT32: case OTF2_TYPE_INT32: case OTF2_TYPE_FLOAT: return 4;
    case OTF2_TYPE_UINT64: case OTF2_TYPE_INT64: case OTF2_TYPE_DOUBLE: return 8;
    default: return 0;  /* OTF2 only sends integer and floating point types */
    }
}

static const scorep_multiprocess_ops* ops_of(void* user_data)
{
    return user_data;
}

static OTF2_CallbackCode get_size(void* user_data, OTF2_CollectiveContext* context,
                                  uint32_t* size)
{
    (void)context;
    *size = (uint32_t)ops_of(user_data)->size;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode get_rank(void* user_data, OTF2_CollectiveContext* context,
                                  uint32_t* rank)
{
    (void)context;
    *rank = (uint32_t)ops_of(user_data)->rank;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode barrier(void* user_data, OTF2_CollectiveContext* context)
{
    (void)context;
    ops_of(user_data)->barrier();
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode bcast(void* user_data, OTF2_CollectiveContext* context, void* data,
                               uint32_t count, OTF2_Type type, uint32_t root)
{
    (void)context;
    size_t bytes = count * type_size(type);
    if (bytes == 0 && count != 0)
        return OTF2_CALLBACK_ERROR;
    ops_of(user_data)->bcast(data, bytes, (int)root);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode gather(void* user_data, OTF2_CollectiveContext* context,
                                const void* in, void* out, uint32_t count, OTF2_Type type,
                                uint32_t root)
{
    (void)context;
    size_t bytes = count * type_size(type);
    if (bytes == 0 && count != 0)
        return OTF2_CALLBACK_ERROR;
    ops_of(user_data)->gather(in, bytes, out, (int)root);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode scatter(void* user_data, OTF2_CollectiveContext* context,
                                 const void* in, void* out, uint32_t count, OTF2_Type type,
                                 uint32_t root)
{
    (void)context;
    size_t bytes = count * type_size(type);
    if (bytes == 0 && count != 0)
        return OTF2_CALLBACK_ERROR;
    ops_of(user_data)->scatter(in, out, bytes, (int)root);
    return OTF2_CALLBACK_SUCCESS;
}

/* Byte counts and displacements for the v-collectives, significant on root. */
static int byte_layout(const scorep_multiprocess_ops* ops, const uint32_t* counts, size_t size,
                       size_t** byte_counts, size_t** displacements)
{
    *byte_counts = NULL;
    *displacements = NULL;
    if (counts == NULL)
        return 0;
    *byte_counts = malloc(ops->size * sizeof(size_t));
    *displacements = malloc(ops->size * sizeof(size_t));
    if (*byte_counts == NULL || *displacements == NULL) {
        free(*byte_counts);
        free(*displacements);
        return -1;
    }
    size_t offset = 0;
    for (int r = 0; r < ops->size; r++) {
        (*byte_counts)[r] = counts[r] * size;
        (*displacements)[r] = offset;
        offset += (*byte_counts)[r];
    }
    return 0;
}

static OTF2_CallbackCode gatherv(void* user_data, OTF2_CollectiveContext* context,
                                 const void* in, uint32_t in_count, void* out,
                                 const uint32_t* out_counts, OTF2_Type type, uint32_t root)
{
    (void)context;
    const scorep_multiprocess_ops* ops = ops_of(user_data);
    size_t size = type_size(type);
    size_t *counts, *displacements;
    int is_root = ops->rank == (int)root;
    if (size == 0 || byte_layout(ops, is_root ? out_counts : NULL, size, &counts, &displacements))
        return OTF2_CALLBACK_ERROR;
    ops->gatherv(in, in_count * size, out, counts, displacements, (int)root);
    free(counts);
    free(displacements);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode scatterv(void* user_data, OTF2_CollectiveContext* context,
                                  const void* in, const uint32_t* in_counts, void* out,
                                  uint32_t out_count, OTF2_Type type, uint32_t root)
{
    (void)context;
    const scorep_multiprocess_ops* ops = ops_of(user_data);
    size_t size = type_size(type);
    size_t *counts, *displacements;
    int is_root = ops->rank == (int)root;
    if (size == 0 || byte_layout(ops, is_root ? in_counts : NULL, size, &counts, &displacements))
        return OTF2_CALLBACK_ERROR;
    ops->scatterv(in, counts, displacements, out, out_count * size, (int)root);
    free(counts);
    free(displacements);
    return OTF2_CALLBACK_SUCCESS;
}

static const OTF2_CollectiveCallbacks collective_callbacks = {
    .otf2_get_size = get_size,
    .otf2_get_rank = get_rank,
    .otf2_barrier = barrier,
    .otf2_bcast = bcast,
    .otf2_gather = gather,
    .otf2_gatherv = gatherv,
    .otf2_scatter = scatter,
    .otf2_scatterv = scatterv,
};

OTF2_ErrorCode trace_collectives_install(OTF2_Archive* archive, const scorep_multiprocess_ops* ops)
{
    /* OTF2 keeps the user data pointer; the ops table lives as long as the core. */
    return OTF2_Archive_SetCollectiveCallbacks(archive, &collective_callbacks, (void*)ops,
                                               NULL, NULL);
}
