/* Every PE puts PUTS longs to PE 0, all meet at a barrier, then the last PE
 * ends the job with shmem_global_exit while the others wait at a barrier
 * that never completes. */
#include <shmem.h>
#include <stdio.h>

#define PUTS 3

static long box[PUTS];

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long v = me;
    for (int i = 0; i < PUTS; i++) shmem_long_put(&box[i], &v, 1, 0);
    shmem_barrier_all();
    if (me == npes - 1) {
        printf("pe %d exits\n", me);
        fflush(stdout);
        shmem_global_exit(3);
    }
    shmem_barrier_all();
    printf("not reached\n");
    shmem_finalize();
    return 0;
}
