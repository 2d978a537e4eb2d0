/* The host name of every rank, gathered at finalisation for the system
 * trees of the profile and of the trace (one node per host name). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "process_hosts.h"

char* scorep_process_hosts(const scorep_finalize_context* ctx)
{
    char mine[SCOREP_PROCESS_HOST_NAME_MAX] = {0};
    if (gethostname(mine, sizeof mine - 1) != 0) snprintf(mine, sizeof mine, "localhost");
    int size = ctx->size > 0 ? ctx->size : 1;
    char* all = NULL;
    if (!ctx->mpp || ctx->rank == 0) all = calloc((size_t)size, SCOREP_PROCESS_HOST_NAME_MAX);
    if (ctx->mpp && !ctx->emergency && size > 1)
        ctx->mpp->gather(mine, sizeof mine, all, 0);
    else if (all && ctx->rank >= 0 && ctx->rank < size)
        memcpy(all + (size_t)ctx->rank * SCOREP_PROCESS_HOST_NAME_MAX, mine, sizeof mine);
    return all;
}
