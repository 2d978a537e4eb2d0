/* An allocation-heavy program for bench/memory_heavy: the shape of a
 * scientific code that allocates small temporaries in its inner loops
 * (CP2K-like): per step it builds a tree of nodes of mixed sizes, walks it
 * with a little arithmetic per node, grows a buffer with realloc and frees
 * everything. Prints a checksum, which the measurement must not change.
 * Usage: memory_heavy [steps] [nodes per step] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct node {
    struct node* left;
    struct node* right;
    size_t size;
    double* values;
} node;

static node* insert(node* root, node* fresh, unsigned key)
{
    node** at = &root;
    while (*at != NULL)
        at = (key & 1) ? &(*at)->left : &(*at)->right, key >>= 1;
    *at = fresh;
    return root;
}

static double walk(const node* n)
{
    if (n == NULL) return 0.0;
    double s = 0.0;
    for (size_t i = 0; i < n->size; i++) s += n->values[i] * 0.5;
    return s + walk(n->left) + walk(n->right);
}

static void release(node* n)
{
    if (n == NULL) return;
    release(n->left);
    release(n->right);
    free(n->values);
    free(n);
}

int main(int argc, char** argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 40;
    int nodes = argc > 2 ? atoi(argv[2]) : 20000;
    unsigned seed = 12345;
    double checksum = 0.0;
    for (int step = 0; step < steps; step++) {
        node* root = NULL;
        size_t length = 0;
        double* grown = NULL;
        for (int i = 0; i < nodes; i++) {
            seed = seed * 1103515245u + 12345u;
            node* n = calloc(1, sizeof *n);
            n->size = 1 + (seed >> 16) % 24;
            n->values = malloc(n->size * sizeof *n->values);
            for (size_t k = 0; k < n->size; k++) n->values[k] = (double)(k + (size_t)i);
            root = insert(root, n, seed >> 8);
            if (i % 64 == 0) {
                grown = realloc(grown, (length + 64) * sizeof *grown);
                for (size_t k = 0; k < 64; k++) grown[length + k] = (double)k;
                length += 64;
            }
        }
        checksum += walk(root) + (double)length;
        release(root);
        free(grown);
    }
    printf("checksum %.1f\n", checksum);
    return 0;
}
