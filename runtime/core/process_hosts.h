/* The host name of every rank (process_hosts.c): a process fact that both
 * substrates write, the profile into profile.cubex's system tree and the
 * trace into its OTF2 system tree. */
#ifndef SCOREP_WRAPGEN_PROCESS_HOSTS_H
#define SCOREP_WRAPGEN_PROCESS_HOSTS_H
#include "internal.h"

/* bytes per host name in the table below (NUL-terminated, cut if longer) */
#define SCOREP_PROCESS_HOST_NAME_MAX 64

/* Collective over ctx->mpp (all ranks call it, in the same place): the host
 * name of every rank, SCOREP_PROCESS_HOST_NAME_MAX bytes each, in rank order; a
 * malloc'ed table on the root, NULL elsewhere. Without ctx->mpp (ranks that can
 * no longer talk) only this process's name, at its own rank's place. */
char* scorep_process_hosts(const scorep_finalize_context* ctx);
#endif
