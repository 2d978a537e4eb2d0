/* Distributed graph communicators, reorder 0 and 1 (any number of ranks):
 * for ten graphs (complete, every other column, one self-edge, none,
 * pseudo-random ones), each made with MPI_Dist_graph_create_adjacent
 * (weighted and unweighted), with MPI_Dist_graph_create where every process
 * gives its outgoing edges, where every process gives its incoming edges,
 * where rank 0 gives the whole graph, and with an empty graph. Each weighted
 * communicator is checked against the graph (neighbour counts and weights),
 * used once (a neighbour exchange and a barrier), duplicated (the duplicate
 * keeps the topology) and freed. Rank 0 prints one line per graph, and
 * "errors N" at the end. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define GRAPHS 10

static int size, rank, errors;
static int* weight;   /* weight[i * size + j]: edge i -> j, 0 = none */

/* graph g: 0 complete, 1 every other column, 2 a self-edge of rank 0 only,
 * 3 no edges, else pseudo-random (about half the edges) */
static void make_graph(int g)
{
    unsigned seed = (unsigned)g;
    for (int i = 0; i < size; i++)
        for (int j = 0; j < size; j++) {
            seed = seed * 1103515245u + 12345u;
            int w = (int)((seed >> 16) % 7);
            weight[i * size + j] = g == 0   ? (i + 2) * (j + 1)
                                   : g == 1 ? (j % 2 ? (i + 2) * (j + 1) : 0)
                                   : g == 2 ? (i == 0 && j == 0 ? 10 : 0)
                                   : g == 3 ? 0
                                            : (w < 3 ? 0 : w);
        }
}

/* the communicator's neighbours and weights against the graph; with reorder
 * the process may have another rank in it, whose edges it then holds */
static void check(MPI_Comm comm, const char* what)
{
    int me, in, out, weighted;
    MPI_Comm_rank(comm, &me);
    MPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
    int* sources = malloc((size_t)(in + 1) * sizeof(int));
    int* sweights = malloc((size_t)(in + 1) * sizeof(int));
    int* targets = malloc((size_t)(out + 1) * sizeof(int));
    int* tweights = malloc((size_t)(out + 1) * sizeof(int));
    MPI_Dist_graph_neighbors(comm, in, sources, sweights, out, targets, tweights);
    int expect_in = 0, expect_out = 0;
    for (int j = 0; j < size; j++) {
        expect_in += weight[j * size + me] != 0;
        expect_out += weight[me * size + j] != 0;
    }
    if (in != expect_in || out != expect_out || ((in || out) && !weighted)) {
        fprintf(stderr, "rank %d %s: degrees %d/%d, expected %d/%d\n", rank, what, in, out, expect_in, expect_out);
        errors++;
    }
    for (int k = 0; k < in && k < expect_in; k++)
        if (weight[sources[k] * size + me] != sweights[k]) {
            fprintf(stderr, "rank %d %s: in-edge from %d weight %d\n", rank, what, sources[k], sweights[k]);
            errors++;
        }
    for (int k = 0; k < out && k < expect_out; k++)
        if (weight[me * size + targets[k]] != tweights[k]) {
            fprintf(stderr, "rank %d %s: out-edge to %d weight %d\n", rank, what, targets[k], tweights[k]);
            errors++;
        }
    /* one neighbour exchange: every process gets its in-neighbours' ranks */
    int* got = malloc((size_t)(in + 1) * sizeof(int));
    int* mine = malloc((size_t)(out + 1) * sizeof(int));
    for (int k = 0; k < out; k++) mine[k] = me;
    MPI_Neighbor_alltoall(mine, 1, MPI_INT, got, 1, MPI_INT, comm);
    for (int k = 0; k < in; k++)
        if (got[k] != sources[k]) {
            fprintf(stderr, "rank %d %s: got %d from in-neighbour %d\n", rank, what, got[k], sources[k]);
            errors++;
        }
    MPI_Barrier(comm);
    int type = MPI_UNDEFINED;   /* a duplicate keeps the topology */
    MPI_Comm dup;
    MPI_Comm_dup(comm, &dup);
    MPI_Topo_test(dup, &type);
    if (type != MPI_DIST_GRAPH) {
        fprintf(stderr, "rank %d %s: the duplicate has topology %d\n", rank, what, type);
        errors++;
    }
    MPI_Comm_free(&dup);
    free(got);
    free(mine);
    free(sources);
    free(sweights);
    free(targets);
    free(tweights);
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    weight = malloc((size_t)size * size * sizeof(int));
    int n = size * size;   /* room for the whole graph */
    int* sources = malloc((size_t)n * sizeof(int));
    int* degrees = malloc((size_t)n * sizeof(int));
    int* targets = malloc((size_t)n * sizeof(int));
    int* weights = malloc((size_t)n * sizeof(int));
    int* sweights = malloc((size_t)n * sizeof(int));
    MPI_Comm comm;
    for (int g = 0; g < GRAPHS; g++) {
        make_graph(g);
        /* every rank has the same graph; rank 0's is sent as a program with
         * a random one would */
        MPI_Bcast(weight, size * size, MPI_INT, 0, MPI_COMM_WORLD);
        for (int reorder = 0; reorder <= 1; reorder++) {
            int in = 0, out = 0;
            for (int j = 0; j < size; j++) {
                if (weight[j * size + rank]) sources[in] = j, sweights[in++] = weight[j * size + rank];
                if (weight[rank * size + j]) targets[out] = j, weights[out++] = weight[rank * size + j];
            }
            MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, in, sources, sweights, out, targets, weights,
                                           MPI_INFO_NULL, reorder, &comm);
            check(comm, "adjacent");
            MPI_Comm_free(&comm);
            MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, in, sources, MPI_UNWEIGHTED, out, targets,
                                           MPI_UNWEIGHTED, MPI_INFO_NULL, reorder, &comm);
            MPI_Barrier(comm);
            MPI_Comm_free(&comm);

            /* outgoing edges */
            sources[0] = rank;
            degrees[0] = out;
            MPI_Dist_graph_create(MPI_COMM_WORLD, 1, sources, degrees, targets, weights, MPI_INFO_NULL, reorder,
                                  &comm);
            check(comm, "outgoing");
            MPI_Comm_free(&comm);

            /* incoming edges, one source each */
            in = 0;
            for (int j = 0; j < size; j++)
                if (weight[j * size + rank]) {
                    sources[in] = j;
                    sweights[in] = weight[j * size + rank];
                    degrees[in] = 1;
                    targets[in++] = rank;
                }
            MPI_Dist_graph_create(MPI_COMM_WORLD, in, sources, degrees, targets, sweights, MPI_INFO_NULL, reorder,
                                  &comm);
            check(comm, "incoming");
            MPI_Comm_free(&comm);

            /* rank 0 gives the whole graph */
            int p = 0;
            for (int i = 0; i < size; i++)
                for (int j = 0; j < size; j++)
                    if (weight[i * size + j]) {
                        sources[p] = i;
                        degrees[p] = 1;
                        targets[p] = j;
                        sweights[p++] = weight[i * size + j];
                    }
            MPI_Dist_graph_create(MPI_COMM_WORLD, rank == 0 ? p : 0, sources, degrees, targets, sweights,
                                  MPI_INFO_NULL, reorder, &comm);
            check(comm, "whole");
            MPI_Comm_free(&comm);

            /* no graph */
            MPI_Dist_graph_create(MPI_COMM_WORLD, 0, sources, degrees, targets, sweights, MPI_INFO_NULL, reorder,
                                  &comm);
            MPI_Comm_free(&comm);
        }
        if (rank == 0) printf("graph %d done\n", g);
    }
    int total = 0;
    MPI_Reduce(&errors, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("errors %d\n", total);
    free(weight);
    free(sources);
    free(degrees);
    free(targets);
    free(weights);
    free(sweights);
    MPI_Finalize();
    return total != 0;
}
