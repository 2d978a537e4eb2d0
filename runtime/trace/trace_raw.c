/*
 * The raw records' sizes: the words stored after the head, per kind
 * (trace_events.c fills them; trace_encode.c and trace_clock_condition.c
 * step from record to record with them).
 */
#include "trace_raw.h"

const uint8_t raw_words_of[RAW_KIND_COUNT_] = {
    [RAW_ENTER] = 0,
    [RAW_LEAVE] = 0,
    [RAW_MPI_SEND] = 2,
    [RAW_MPI_RECV] = 2,
    [RAW_MPI_ISEND] = 3,
    [RAW_MPI_ISEND_COMPLETE] = 1,
    [RAW_MPI_IRECV_REQUEST] = 1,
    [RAW_MPI_IRECV] = 3,
    [RAW_MPI_REQUEST_TEST] = 1,
    [RAW_MPI_REQUEST_CANCELLED] = 1,
    [RAW_MPI_COLLECTIVE_BEGIN] = 0,
    [RAW_MPI_COLLECTIVE_END] = 3,
    [RAW_RMA_WIN_CREATE] = 0,
    [RAW_RMA_WIN_DESTROY] = 0,
    [RAW_RMA_PUT] = 3,
    [RAW_RMA_GET] = 3,
    [RAW_RMA_ATOMIC] = 4,
    [RAW_RMA_OP_COMPLETE_BLOCKING] = 1,
    [RAW_RMA_OP_COMPLETE_NON_BLOCKING] = 1,
    [RAW_RMA_COLLECTIVE_BEGIN] = 0,
    [RAW_RMA_COLLECTIVE_END] = 4,
    [RAW_RMA_GROUP_SYNC] = 1,
    [RAW_RMA_ACQUIRE_LOCK] = 1,
    [RAW_RMA_RELEASE_LOCK] = 1,
    [RAW_RMA_SYNC] = 1,
    [RAW_PARAMETER_INT] = 1,
    [RAW_PARAMETER_STRING] = 1,
    [RAW_MEASUREMENT_OFF] = 0,
    [RAW_IO_CREATE_HANDLE] = 1,
    [RAW_IO_DESTROY_HANDLE] = 0,
    [RAW_IO_OPERATION_BEGIN] = 3,
    [RAW_IO_OPERATION_COMPLETE] = 2,
    [RAW_IO_SEEK] = 3,
    [RAW_IO_DUPLICATE_HANDLE] = 2,
    [RAW_IO_OPERATION_ASYNC] = 3,
    [RAW_THREAD] = 1,
    [RAW_METRIC] = 1,
    [RAW_COMM_CREATE] = 0,
    [RAW_COMM_DESTROY] = 0,
    [RAW_ATTRIBUTE] = 1,
};
