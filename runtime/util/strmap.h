/* A string -> uint32 hash map (open addressing) for definition lookups. */
#ifndef SCOREP_WRAPGEN_STRMAP_H
#define SCOREP_WRAPGEN_STRMAP_H
#include <stddef.h>
#include <stdint.h>

typedef struct scorep_strmap {
    char** keys;
    size_t* key_lengths;
    uint32_t* values;
    size_t capacity, count;
    /* keys and tables from the measurement's arena, never freed: the
     * definitions' indexes, which a signal handler's event may grow */
    int in_arena;
} scorep_strmap;

/* keys are byte strings of the given length (may contain NUL) */
int scorep_strmap_get(const scorep_strmap* m, const void* key, size_t len, uint32_t* value);
void scorep_strmap_put(scorep_strmap* m, const void* key, size_t len, uint32_t value);
void scorep_strmap_free(scorep_strmap* m);
#endif
