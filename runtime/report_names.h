/* Names used by the reports for enum values and call paths. */
#ifndef SCOREP_WRAPGEN_REPORT_NAMES_H
#define SCOREP_WRAPGEN_REPORT_NAMES_H
#include <stddef.h>
#include "internal.h"

const char* scorep_paradigm_name(scorep_paradigm p);
const char* scorep_role_name(scorep_region_role r);
/* "name" of one call-path frame: the region name or "param=value" */
void scorep_report_frame_name(const scorep_report* r, uint32_t callpath, char* out, size_t size);
#endif
