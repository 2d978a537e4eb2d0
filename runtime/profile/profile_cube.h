/* profile.cubex: the profile in CUBE4, the format Score-P writes (profile_cube.c). */
#ifndef SCOREP_WRAPGEN_PROFILE_CUBE_H
#define SCOREP_WRAPGEN_PROFILE_CUBE_H
#include "internal.h"
#include "report.h"
#include "process_hosts.h"

/* the host table's bytes per name (r->hosts: scorep_process_hosts) */
#define SCOREP_CUBE_HOST_NAME_MAX SCOREP_PROCESS_HOST_NAME_MAX

/* Writes the report as a CUBE4 archive (tar: anchor.xml, <metric>.index,
 * <metric>.data) to path; 0 on success, -1 with errno set. */
int scorep_report_write_cube(const scorep_report* r, const char* path);
#endif
