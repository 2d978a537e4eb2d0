/* Programs of several shapes for scorep-score's trace size estimate
 * (test_score_estimate.py): argv[1] picks one, argv[2] its size n.
 *   calls:   user functions, 3 calls per iteration (compiler instrumentation)
 *   mpi:     per iteration a non-blocking ring exchange (Irecv, Isend,
 *            Waitall), a Sendrecv, a blocking Send/Recv pair, an Allreduce;
 *            every 10th a Bcast and a Barrier (built with -DWITH_MPI)
 *   io:      POSIX writes of 1..200 bytes, every 10th a seek, a read, a seek
 *   alloc:   malloc/free of 8..1007 bytes, every 3rd a calloc and realloc
 *   threads: three threads calling user functions and allocating */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef WITH_MPI
#include <mpi.h>
#endif

static int __attribute__((noinline)) leaf(int x) { return x * 3 + 1; }
static int __attribute__((noinline)) middle(int x) { return leaf(x) + leaf(x + 1); }

static long calls(int n)
{
    long s = 0;
    for (int i = 0; i < n; i++) s += middle(i);
    return s;
}

static long io(int n, const char* path)
{
    int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
    char buf[256];
    memset(buf, 'x', sizeof buf);
    long s = 0;
    for (int i = 0; i < n; i++) {
        s += write(fd, buf, (size_t)(i % 200) + 1);
        if (i % 10 == 0) {
            lseek(fd, 0, SEEK_SET);
            s += read(fd, buf, 100);
            lseek(fd, 0, SEEK_END);
        }
    }
    close(fd);
    unlink(path);
    return s;
}

static long alloc(int n)
{
    long s = 0;
    void* keep[64] = {0};
    for (int i = 0; i < n; i++) {
        char* p = malloc((size_t)(i % 1000) + 8);
        p[0] = (char)i;
        s += p[0];
        if (i % 3 == 0) {
            char* q = calloc(4, (size_t)(i % 50) + 1);
            q = realloc(q, (size_t)(i % 500) + 64);
            free(keep[i % 64]);
            keep[i % 64] = q;
        }
        free(p);
    }
    for (int i = 0; i < 64; i++) free(keep[i]);
    return s;
}

static pthread_barrier_t all_started;

static void* worker(void* arg)
{
    int n = *(int*)arg;
    /* the three workers live at the same time, each on a location of its
     * own in every run: a thread that ended gives its location to the next,
     * so without this the profiled and the traced run could lay the threads
     * out on different numbers of locations, and the memory hint of one
     * would not be the other's */
    pthread_barrier_wait(&all_started);
    long s = calls(n);
    for (int i = 0; i < n / 10; i++) {
        void* p = malloc(100);
        free(p);
    }
    *(int*)arg = (int)s;
    return NULL;
}

static long threads(int n)
{
    pthread_t t[3];
    pthread_barrier_init(&all_started, NULL, 3);
    int args[3] = {n, n / 2, n / 3};
    for (int i = 0; i < 3; i++) pthread_create(&t[i], NULL, worker, &args[i]);
    long s = calls(n / 4);
    for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
    return s + args[0];
}

#ifdef WITH_MPI
static long mpi(int n)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double out[64] = {0}, in[64], sum = 0;
    for (int i = 0; i < n; i++) {
        MPI_Request r[2];
        MPI_Irecv(in, 64, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(out, 64, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        MPI_Sendrecv(out, i % 64 + 1, MPI_DOUBLE, right, 2, in, 64, MPI_DOUBLE, left, 2, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        if (rank % 2 == 0) {
            MPI_Send(out, 8, MPI_DOUBLE, right, 3, MPI_COMM_WORLD);
            MPI_Recv(in, 8, MPI_DOUBLE, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(in, 8, MPI_DOUBLE, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(out, 8, MPI_DOUBLE, right, 3, MPI_COMM_WORLD);
        }
        sum += leaf(i);
        MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (i % 10 == 0) {
            MPI_Bcast(out, 64, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    return (long)sum;
}
#endif

int main(int argc, char** argv)
{
#ifdef WITH_MPI
    MPI_Init(&argc, &argv);
#endif
    if (argc < 3) return 2;
    int n = atoi(argv[2]);
    long s = 0;
    if (!strcmp(argv[1], "calls")) s = calls(n);
    else if (!strcmp(argv[1], "io")) s = io(n, argc > 3 ? argv[3] : "score_shapes.tmp");
    else if (!strcmp(argv[1], "alloc")) s = alloc(n);
    else if (!strcmp(argv[1], "threads")) s = threads(n);
#ifdef WITH_MPI
    else if (!strcmp(argv[1], "mpi")) s = mpi(n);
    MPI_Finalize();
#endif
    printf("%s %d: %ld\n", argv[1], n, s);
    return 0;
}
