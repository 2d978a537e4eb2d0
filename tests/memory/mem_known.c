/* A program of known allocations (tests/memory/test_memory.py): per call
 * path the bytes it allocates and frees, its high-water mark and one leak.
 * stdout has a buffer of its own, so that the C library allocates none for
 * it (that would be a second, the library's, leak). */
#include <stdio.h>
#include <stdlib.h>
#include <malloc.h>
#include <string.h>

static char out[4096];

/* keeps the compiler from dropping an allocation it can see unused */
static __attribute__((noinline)) unsigned touch(unsigned char* p, size_t n)
{
    memset(p, 1, n);
    unsigned sum = 0;
    for (size_t i = 0; i < n; i += 64) sum += p[i];
    return sum;
}

/* 1000 malloc, 40 calloc, realloc 1000 -> 3000, 512 posix_memalign, 256
 * aligned_alloc, 128 memalign, 4096 valloc: live at most 1040 + 3000 + 512 +
 * 256 + 128 + 4096 = 8032 bytes (after valloc), all freed */
static __attribute__((noinline)) unsigned work(void)
{
    unsigned sum = 0;
    unsigned char* a = malloc(1000);
    int* b = calloc(10, sizeof(int));
    sum += touch(a, 1000) + (unsigned)b[3];
    a = realloc(a, 3000);
    sum += touch(a, 3000);
    void* c = NULL;
    if (posix_memalign(&c, 64, 512) != 0) return 0;
    unsigned char* d = aligned_alloc(64, 256);
    unsigned char* e = memalign(64, 128);
    unsigned char* f = valloc(4096);
    sum += touch(c, 512) + touch(d, 256) + touch(e, 128) + touch(f, 4096);
    free(b);
    free(a);
    free(c);
    free(d);
    free(e);
    free(f);
    free(NULL);
    return sum;
}

/* the one leak: 777 bytes, never freed */
static __attribute__((noinline)) unsigned leak(void)
{
    unsigned char* l = malloc(777);
    return touch(l, 777);
}

int main(void)
{
    setvbuf(stdout, out, _IOFBF, sizeof out);
    unsigned w = work();
    unsigned l = leak();
    printf("work %u leak %u\n", w, l);
    return 0;
}
