/* usage: mpirun -n 2 mpiio_variants <directory>
 * Every MPI I/O data-access procedure once per rank, each with its own count:
 * blocking, _at, _shared, _ordered, _all, split collectives (_begin/_end) and
 * non-blocking (iread/iwrite*, completed by MPI_Wait). File "private" holds
 * each rank's own area (explicit offsets, individual pointers), file "shared"
 * the shared-pointer accesses, read back in the same sizes so that every read
 * is complete. The program checks each call's status (MPI_Get_count) and the
 * data it reads back, and prints per procedure
 *   IO <rank> <procedure> <bytes read> <bytes written>
 * and "CHECKED <rank> <calls>" when all statuses and data were right. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define AREA 4096   /* bytes of file "private" per rank */
#define MAXN 256

static int rank, failures, calls;
static int buffer[MAXN];

static void check(const char* name, MPI_Status* status, int count)
{
    int got = -1;
    MPI_Get_count(status, MPI_INT, &got);
    if (got != count) {
        printf("FAILED %d %s moved %d of %d ints\n", rank, name, got, count);
        failures++;
    }
}

static void fill(int count, int seed)
{
    for (int i = 0; i < count; i++)
        buffer[i] = seed * 1000 + i;
}

static void verify(const char* name, int count, int seed)
{
    for (int i = 0; i < count; i++)
        if (buffer[i] != seed * 1000 + i) {
            printf("FAILED %d %s read %d at %d, wanted %d\n", rank, name, buffer[i], i, seed * 1000 + i);
            failures++;
            return;
        }
}

static void report(const char* name, int count, int reads)
{
    calls++;
    printf("IO %d %s %d %d\n", rank, name, reads ? count * 4 : 0, reads ? 0 : count * 4);
}

/* the count of variant k on this rank: distinct per variant and rank */
static int count_of(int k) { return 4 * (k + 1) + rank; }

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char path[4096];
    MPI_File fh;
    MPI_Status status;
    MPI_Request request;

    /* file "private": rank r's area starts at r * AREA; variant k at offsets[k] */
    snprintf(path, sizeof path, "%s/private", argv[1]);
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_Offset base = (MPI_Offset)rank * AREA, offsets[16];
    offsets[0] = base;
    for (int k = 1; k < 16; k++)
        offsets[k] = offsets[k - 1] + 4 * count_of(k - 1);
    for (int pass = 0; pass < 2; pass++) {
        int r = pass == 1;   /* pass 0 writes, pass 1 reads back what it wrote */
        int k = 0, n;
#define DATA(k) do { n = count_of(k); if (!r) fill(n, k); else memset(buffer, 0xff, sizeof buffer); } while (0)
#define DONE(name, k) do { check(name, &status, n); if (r) verify(name, n, k); report(name, n, r); } while (0)
        DATA(k);
        MPI_File_seek(fh, offsets[k], MPI_SEEK_SET);
        if (r) MPI_File_read(fh, buffer, n, MPI_INT, &status); else MPI_File_write(fh, buffer, n, MPI_INT, &status);
        DONE(r ? "MPI_File_read" : "MPI_File_write", k);
        k++; DATA(k);
        if (r) MPI_File_read_at(fh, offsets[k], buffer, n, MPI_INT, &status);
        else MPI_File_write_at(fh, offsets[k], buffer, n, MPI_INT, &status);
        DONE(r ? "MPI_File_read_at" : "MPI_File_write_at", k);
        k++; DATA(k);
        MPI_File_seek(fh, offsets[k], MPI_SEEK_SET);
        if (r) MPI_File_read_all(fh, buffer, n, MPI_INT, &status); else MPI_File_write_all(fh, buffer, n, MPI_INT, &status);
        DONE(r ? "MPI_File_read_all" : "MPI_File_write_all", k);
        k++; DATA(k);
        if (r) MPI_File_read_at_all(fh, offsets[k], buffer, n, MPI_INT, &status);
        else MPI_File_write_at_all(fh, offsets[k], buffer, n, MPI_INT, &status);
        DONE(r ? "MPI_File_read_at_all" : "MPI_File_write_at_all", k);
        k++; DATA(k);
        MPI_File_seek(fh, offsets[k], MPI_SEEK_SET);
        if (r) { MPI_File_read_all_begin(fh, buffer, n, MPI_INT); MPI_File_read_all_end(fh, buffer, &status); }
        else { MPI_File_write_all_begin(fh, buffer, n, MPI_INT); MPI_File_write_all_end(fh, buffer, &status); }
        DONE(r ? "MPI_File_read_all_begin" : "MPI_File_write_all_begin", k);
        k++; DATA(k);
        if (r) { MPI_File_read_at_all_begin(fh, offsets[k], buffer, n, MPI_INT); MPI_File_read_at_all_end(fh, buffer, &status); }
        else { MPI_File_write_at_all_begin(fh, offsets[k], buffer, n, MPI_INT); MPI_File_write_at_all_end(fh, buffer, &status); }
        DONE(r ? "MPI_File_read_at_all_begin" : "MPI_File_write_at_all_begin", k);
        k++; DATA(k);
        MPI_File_seek(fh, offsets[k], MPI_SEEK_SET);
        if (r) MPI_File_iread(fh, buffer, n, MPI_INT, &request); else MPI_File_iwrite(fh, buffer, n, MPI_INT, &request);
        MPI_Wait(&request, &status);
        DONE(r ? "MPI_File_iread" : "MPI_File_iwrite", k);
        k++; DATA(k);
        if (r) MPI_File_iread_at(fh, offsets[k], buffer, n, MPI_INT, &request);
        else MPI_File_iwrite_at(fh, offsets[k], buffer, n, MPI_INT, &request);
        MPI_Wait(&request, &status);
        DONE(r ? "MPI_File_iread_at" : "MPI_File_iwrite_at", k);
        k++; DATA(k);
        MPI_File_seek(fh, offsets[k], MPI_SEEK_SET);
        if (r) MPI_File_iread_all(fh, buffer, n, MPI_INT, &request); else MPI_File_iwrite_all(fh, buffer, n, MPI_INT, &request);
        MPI_Wait(&request, &status);
        DONE(r ? "MPI_File_iread_all" : "MPI_File_iwrite_all", k);
        k++; DATA(k);
        if (r) MPI_File_iread_at_all(fh, offsets[k], buffer, n, MPI_INT, &request);
        else MPI_File_iwrite_at_all(fh, offsets[k], buffer, n, MPI_INT, &request);
        MPI_Wait(&request, &status);
        DONE(r ? "MPI_File_iread_at_all" : "MPI_File_iwrite_at_all", k);
        MPI_File_sync(fh);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_File_sync(fh);
    }
    MPI_File_close(&fh);

    /* file "shared": the shared file pointer, written then read in the same sizes */
    snprintf(path, sizeof path, "%s/shared", argv[1]);
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    for (int pass = 0; pass < 2; pass++) {
        int r = pass == 1;
        int k = 20, n;
        /* shared accesses of the ranks interleave in any order: the data is
           checked for the ordered ones only */
#undef DONE
#define DONE(name, k, ordered) do { check(name, &status, n); if (r && (ordered)) verify(name, n, k); report(name, n, r); } while (0)
        DATA(k);
        if (r) MPI_File_read_ordered(fh, buffer, n, MPI_INT, &status); else MPI_File_write_ordered(fh, buffer, n, MPI_INT, &status);
        DONE(r ? "MPI_File_read_ordered" : "MPI_File_write_ordered", k, 1);
        k++; DATA(k);
        if (r) { MPI_File_read_ordered_begin(fh, buffer, n, MPI_INT); MPI_File_read_ordered_end(fh, buffer, &status); }
        else { MPI_File_write_ordered_begin(fh, buffer, n, MPI_INT); MPI_File_write_ordered_end(fh, buffer, &status); }
        DONE(r ? "MPI_File_read_ordered_begin" : "MPI_File_write_ordered_begin", k, 1);
        MPI_Barrier(MPI_COMM_WORLD);   /* the non-ordered accesses of all ranks after the ordered ones */
        k++; DATA(k);
        if (r) MPI_File_read_shared(fh, buffer, n, MPI_INT, &status); else MPI_File_write_shared(fh, buffer, n, MPI_INT, &status);
        DONE(r ? "MPI_File_read_shared" : "MPI_File_write_shared", k, 0);
        MPI_Barrier(MPI_COMM_WORLD);
        k++; DATA(k);
        if (r) MPI_File_iread_shared(fh, buffer, n, MPI_INT, &request);
        else MPI_File_iwrite_shared(fh, buffer, n, MPI_INT, &request);
        MPI_Wait(&request, &status);
        DONE(r ? "MPI_File_iread_shared" : "MPI_File_iwrite_shared", k, 0);
        MPI_File_sync(fh);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_File_sync(fh);
        MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
    }
    MPI_File_close(&fh);
    if (failures == 0)
        printf("CHECKED %d %d\n", rank, calls);
    MPI_Finalize();
    return 0;
}
