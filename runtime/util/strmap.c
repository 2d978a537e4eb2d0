#include "strmap.h"

#include <stdlib.h>
#include <string.h>

#include "internal.h"

static uint64_t hash_bytes(const void* key, size_t len)
{
    const unsigned char* p = key;
    uint64_t h = 1469598103934665603ull;  /* FNV-1a */
    for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

int scorep_strmap_get(const scorep_strmap* m, const void* key, size_t len, uint32_t* value)
{
    if (!m->capacity) return 0;
    size_t mask = m->capacity - 1;
    for (size_t i = hash_bytes(key, len) & mask;; i = (i + 1) & mask) {
        if (!m->keys[i]) return 0;
        if (m->key_lengths[i] == len && memcmp(m->keys[i], key, len) == 0) {
            *value = m->values[i];
            return 1;
        }
    }
}

static void* table_alloc(const scorep_strmap* m, size_t count, size_t size)
{
    return m->in_arena ? scorep_arena_alloc(count * size) : calloc(count, size);
}

static void table_release(const scorep_strmap* m, void* table, size_t bytes)
{
    if (m->in_arena) scorep_arena_release(table, bytes);
    else free(table);
}

static void insert(scorep_strmap* m, char* owned_key, size_t len, uint32_t value)
{
    size_t mask = m->capacity - 1;
    size_t i = hash_bytes(owned_key, len) & mask;
    while (m->keys[i]) {
        if (m->key_lengths[i] == len && memcmp(m->keys[i], owned_key, len) == 0) {
            m->values[i] = value;
            table_release(m, owned_key, len + 1);
            return;
        }
        i = (i + 1) & mask;
    }
    m->keys[i] = owned_key;
    m->key_lengths[i] = len;
    m->values[i] = value;
    m->count++;
}

void scorep_strmap_put(scorep_strmap* m, const void* key, size_t len, uint32_t value)
{
    if (2 * (m->count + 1) > m->capacity) {
        scorep_strmap old = *m;
        m->capacity = old.capacity ? 2 * old.capacity : 64;
        m->keys = table_alloc(m, m->capacity, sizeof *m->keys);
        m->key_lengths = table_alloc(m, m->capacity, sizeof *m->key_lengths);
        m->values = table_alloc(m, m->capacity, sizeof *m->values);
        m->count = 0;
        for (size_t i = 0; i < old.capacity; i++)
            if (old.keys[i]) insert(m, old.keys[i], old.key_lengths[i], old.values[i]);
        table_release(m, old.keys, old.capacity * sizeof *old.keys);
        table_release(m, old.key_lengths, old.capacity * sizeof *old.key_lengths);
        table_release(m, old.values, old.capacity * sizeof *old.values);
    }
    char* copy = m->in_arena ? scorep_arena_alloc(len + 1) : malloc(len + 1);
    memcpy(copy, key, len);
    copy[len] = '\0';
    insert(m, copy, len, value);
}

void scorep_strmap_free(scorep_strmap* m)
{
    for (size_t i = 0; i < m->capacity; i++)
        if (m->keys[i]) table_release(m, m->keys[i], m->key_lengths[i] + 1);
    table_release(m, m->keys, m->capacity * sizeof *m->keys);
    table_release(m, m->key_lengths, m->capacity * sizeof *m->key_lengths);
    table_release(m, m->values, m->capacity * sizeof *m->values);
    memset(m, 0, sizeof *m);
}
