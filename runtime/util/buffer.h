#ifndef SCOREP_WRAPGEN_BUFFER_H
#define SCOREP_WRAPGEN_BUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "internal.h"

/* ---- byte buffers (buffer.c) ---- */
typedef struct scorep_buffer {
    uint8_t* data;
    size_t size, capacity;
    size_t read_pos;
    bool read_error;
} scorep_buffer;
void scorep_buffer_put(scorep_buffer* b, const void* data, size_t n);
void scorep_buffer_put_u64(scorep_buffer* b, uint64_t v);
void scorep_buffer_put_str(scorep_buffer* b, const char* s); /* NULL allowed */
uint64_t scorep_buffer_get_u64(scorep_buffer* b);
/* returns a pointer into the buffer (NUL-terminated) or NULL for a NULL string */
const char* scorep_buffer_get_str(scorep_buffer* b);
void scorep_buffer_free(scorep_buffer* b);

#endif
