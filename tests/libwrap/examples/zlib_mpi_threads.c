/* zlib called from an MPI program with threads: every rank runs THREADS
 * threads, each calling crc32 CALLS times, then the ranks add their
 * checksums with MPI_Allreduce. The threads wait for each other before they
 * end, so all are alive at once and each has a location of its own. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <zlib.h>

#define THREADS 4
#define CALLS 1000

static unsigned long sums[THREADS];
static pthread_barrier_t all_alive;

static void* work(void* arg)
{
    long id = (long)arg;
    unsigned char data[64];
    for (int i = 0; i < 64; i++) data[i] = (unsigned char)(i + id);
    uLong crc = 0;
    for (int i = 0; i < CALLS; i++) crc = crc32(crc, data, sizeof data);
    sums[id] = crc;
    pthread_barrier_wait(&all_alive);
    return NULL;
}

int main(int argc, char** argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    pthread_t threads[THREADS];
    pthread_barrier_init(&all_alive, NULL, THREADS);
    for (long t = 0; t < THREADS; t++) pthread_create(&threads[t], NULL, work, (void*)t);
    for (long t = 0; t < THREADS; t++) pthread_join(threads[t], NULL);
    unsigned long local = 0, total = 0;
    for (int t = 0; t < THREADS; t++) local ^= sums[t];
    MPI_Allreduce(&local, &total, 1, MPI_UNSIGNED_LONG, MPI_BXOR, MPI_COMM_WORLD);
    if (rank == 0) printf("total %lu\n", total);
    MPI_Finalize();
    return 0;
}
