/* A token passed RING_ROUNDS times around all ranks; rank 0 prints it:
   RING_ROUNDS * size * (size + 1) / 2. */
#include <mpi.h>
#include <stdio.h>

#include "ringstep.h"

#ifndef RING_ROUNDS
#define RING_ROUNDS 4
#endif

/* user regions when the instrumenter is given --user; this header is
   scorep-wrapgen's, Score-P's is scorep/SCOREP_User.h (whose BEGIN and END
   bring their own semicolon, which scorep-wrapgen's leave to the caller: an
   empty statement more for Score-P) */
#ifdef SCOREP_USER_ENABLE
#if __has_include(<scorep_user.h>)
#include <scorep_user.h>
#else
#include <scorep/SCOREP_User.h>
#endif
#else
#define SCOREP_USER_REGION_DEFINE(handle)
#define SCOREP_USER_REGION_BEGIN(handle, name, type)
#define SCOREP_USER_REGION_END(handle)
#endif

int main(int argc, char** argv)
{
    int rank, size;
    long token = 0;
    SCOREP_USER_REGION_DEFINE(rounds)
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    SCOREP_USER_REGION_BEGIN(rounds, "rounds", SCOREP_USER_REGION_TYPE_COMMON);
    for (int round = 0; round < RING_ROUNDS; round++)
        token = ring_step(token, rank, size);
    SCOREP_USER_REGION_END(rounds);
    if (rank == 0)
        printf("ring: %d rounds on %d ranks, token %ld\n", RING_ROUNDS, size, token);
    MPI_Finalize();
    return 0;
}
