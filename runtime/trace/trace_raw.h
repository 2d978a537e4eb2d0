/*
 * Raw event records: what the event path stores, encoded to OTF2 at the end.
 *
 * An event is copied into its location's current raw block as a fixed layout
 * (a 16-byte head and 0 to 4 words): a few stores and a pointer bump, where an
 * OTF2 record write costs 100 to 190 instructions. The blocks stay in memory
 * or are spilled to a file of the location (trace_blocks.c); at finalisation
 * they are encoded with OTF2 in their order and with their values
 * (trace_encode.c), so OTF2 receives exactly the calls it received when it
 * was written to on the event path.
 */
#ifndef SCOREP_WRAPGEN_TRACE_RAW_H
#define SCOREP_WRAPGEN_TRACE_RAW_H

#include <stdint.h>

typedef enum raw_kind {
    RAW_ENTER,
    RAW_LEAVE,
    RAW_MPI_SEND,
    RAW_MPI_RECV,
    RAW_MPI_ISEND,
    RAW_MPI_ISEND_COMPLETE,
    RAW_MPI_IRECV_REQUEST,
    RAW_MPI_IRECV,
    RAW_MPI_REQUEST_TEST,
    RAW_MPI_REQUEST_CANCELLED,
    RAW_MPI_COLLECTIVE_BEGIN,
    RAW_MPI_COLLECTIVE_END,
    RAW_RMA_WIN_CREATE,
    RAW_RMA_WIN_DESTROY,
    RAW_RMA_PUT,
    RAW_RMA_GET,
    RAW_RMA_ATOMIC,
    RAW_RMA_OP_COMPLETE_BLOCKING,
    RAW_RMA_OP_COMPLETE_NON_BLOCKING,
    RAW_RMA_COLLECTIVE_BEGIN,
    RAW_RMA_COLLECTIVE_END,
    RAW_RMA_GROUP_SYNC,
    RAW_RMA_ACQUIRE_LOCK,
    RAW_RMA_RELEASE_LOCK,
    RAW_RMA_SYNC,
    RAW_PARAMETER_INT,
    RAW_PARAMETER_STRING,
    RAW_MEASUREMENT_OFF,
    RAW_IO_CREATE_HANDLE,
    RAW_IO_DESTROY_HANDLE,
    RAW_IO_OPERATION_BEGIN,
    RAW_IO_OPERATION_COMPLETE,
    RAW_IO_SEEK,
    RAW_IO_DUPLICATE_HANDLE,
    RAW_IO_OPERATION_ASYNC,   /* id: the I/O handle; words: event | mode << 32, bytes, matching id (trace_io.c) */
    RAW_THREAD,   /* id: the scorep_thread_event_kind; word: the sequence */
    RAW_METRIC,   /* id: the (local) user metric; word: the value added */
    RAW_COMM_CREATE,    /* id: the communicator */
    RAW_COMM_DESTROY,   /* id: the communicator */
    RAW_ATTRIBUTE,      /* id: the scorep_attribute_kind; word: the value; belongs to the next record */
    RAW_THREAD_TASK,    /* id: the scorep_thread_event_kind; words: the team's word, creator << 32 | generation */
    /* id: the place of words[0] among the strict metrics' values (a
     * multiple of 4); words: four values; the records of one Enter or
     * Leave's values come before it, in order */
    RAW_STRICT_METRICS,
    RAW_KIND_COUNT_
} raw_kind;

/* Field use per kind: trace_events.c writes, trace_encode.c reads. */
typedef struct raw_record {
    uint64_t time;
    uint32_t kind;
    uint32_t id;        /* region, communicator, window, parameter or I/O handle */
    uint64_t word[4];   /* only the kind's words are stored */
} raw_record;

#define RAW_HEAD_BYTES 16
#define RAW_MAX_BYTES ((uint32_t)sizeof(raw_record))
_Static_assert(RAW_HEAD_BYTES == __builtin_offsetof(raw_record, word), "raw head layout");

static inline uint32_t raw_bytes(uint32_t words)
{
    return RAW_HEAD_BYTES + 8 * words;
}

/* trace_raw.c: words stored after the head, per kind; hidden: read per
 * record at finalisation without a GOT load */
extern const uint8_t raw_words_of[RAW_KIND_COUNT_] __attribute__((visibility("hidden")));

/* head and words of r's kind */
static inline uint32_t raw_record_bytes(const raw_record* r)
{
    return raw_bytes(raw_words_of[r->kind]);
}

static inline uint64_t raw_pack(uint32_t low, uint32_t high)
{
    return (uint64_t)low | (uint64_t)high << 32;
}

/* Blocks of records: records never straddle two blocks. */
typedef struct raw_block {
    struct raw_block* next;
    uint64_t used;      /* bytes of records in data (set when the block is full) */
    char data[];
} raw_block;

static inline uint32_t raw_low(uint64_t word) { return (uint32_t)word; }
static inline uint32_t raw_high(uint64_t word) { return (uint32_t)(word >> 32); }

#endif /* SCOREP_WRAPGEN_TRACE_RAW_H */
