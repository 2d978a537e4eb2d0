/* Growable byte buffers for messages between ranks (unification, profiles). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "buffer.h"

void scorep_buffer_put(scorep_buffer* b, const void* data, size_t n)
{
    if (b->size + n > b->capacity) {
        size_t c = b->capacity ? b->capacity : 256;
        while (c < b->size + n) c *= 2;
        b->data = realloc(b->data, c);
        b->capacity = c;
    }
    memcpy(b->data + b->size, data, n);
    b->size += n;
}

void scorep_buffer_put_u64(scorep_buffer* b, uint64_t v) { scorep_buffer_put(b, &v, sizeof v); }

void scorep_buffer_put_str(scorep_buffer* b, const char* s)
{
    if (!s) {
        scorep_buffer_put_u64(b, UINT64_MAX);
        return;
    }
    size_t n = strlen(s);
    scorep_buffer_put_u64(b, n);
    scorep_buffer_put(b, s, n + 1);
}

uint64_t scorep_buffer_get_u64(scorep_buffer* b)
{
    uint64_t v = 0;
    if (b->read_pos + sizeof v > b->size) {
        b->read_error = true;
        return 0;
    }
    memcpy(&v, b->data + b->read_pos, sizeof v);
    b->read_pos += sizeof v;
    return v;
}

const char* scorep_buffer_get_str(scorep_buffer* b)
{
    uint64_t n = scorep_buffer_get_u64(b);
    if (n == UINT64_MAX || b->read_error) return NULL;
    if (b->read_pos + n + 1 > b->size) {
        b->read_error = true;
        return NULL;
    }
    const char* s = (const char*)b->data + b->read_pos;
    b->read_pos += n + 1;
    return s;
}

void scorep_buffer_free(scorep_buffer* b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}
