/* profile.cubex: the profile in CUBE4, the format Score-P writes (profile_cube.c). */
#ifndef SCOREP_WRAPGEN_PROFILE_CUBE_H
#define SCOREP_WRAPGEN_PROFILE_CUBE_H
#include "internal.h"

/* bytes per host name in the table below (NUL-terminated, cut if longer) */
#define SCOREP_CUBE_HOST_NAME_MAX 64

/* Collective over ctx->mpp (all ranks call it, in the same place): the host
 * name of every rank, SCOREP_CUBE_HOST_NAME_MAX bytes each, in rank order; a
 * malloc'ed table on the root, NULL elsewhere. Without ctx->mpp (ranks that can
 * no longer talk) only this process's name, at its own rank's place. */
char* scorep_profile_cube_hosts(const scorep_finalize_context* ctx);

/* Writes the report as a CUBE4 archive (tar: anchor.xml, <metric>.index,
 * <metric>.data) to path; 0 on success, -1 with errno set. */
int scorep_report_write_cube(const scorep_report* r, const char* path);
#endif
