/* The allocation attributes' program (test_memory_attributes.py): N blocks of
 * SIZE bytes from malloc, one calloc(10, 4), the first block realloc'ed to
 * twice its size, every block freed; it prints each address it got and gave,
 * before any other output (its own stdout buffer is allocated at the first
 * printf, after them). */
#include <stdio.h>
#include <stdlib.h>

#define N 5
#define SIZE 100

int main(void)
{
    char* blocks[N];
    for (int i = 0; i < N; i++)
        blocks[i] = malloc(SIZE);
    int* zeros = calloc(10, sizeof *zeros);
    char* first = blocks[0];
    blocks[0] = realloc(blocks[0], 2 * SIZE);
    for (int i = 0; i < N; i++)
        free(blocks[i]);
    free(zeros);
    for (int i = 1; i < N; i++)
        printf("malloc %d %lu\n", SIZE, (unsigned long)(size_t)blocks[i]);
    printf("malloc %d %lu\n", SIZE, (unsigned long)(size_t)first);
    printf("calloc %zu %lu\n", 10 * sizeof *zeros, (unsigned long)(size_t)zeros);
    printf("realloc %d %lu %lu\n", 2 * SIZE, (unsigned long)(size_t)first, (unsigned long)(size_t)blocks[0]);
    return 0;
}
