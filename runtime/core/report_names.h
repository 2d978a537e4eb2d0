/* Names used by the reports for enum values and call paths. */
#ifndef SCOREP_WRAPGEN_REPORT_NAMES_H
#define SCOREP_WRAPGEN_REPORT_NAMES_H
#include <stddef.h>
#include "internal.h"
#include "report.h"

const char* scorep_paradigm_name(scorep_paradigm p);
const char* scorep_role_name(scorep_region_role r);
const char* scorep_metric_kind_name(scorep_metric_kind k);
/* The names of a process and of its thread's location in Cube and OTF2 */
void scorep_location_group_name(char* out, size_t size, uint32_t rank);
/* location i of the unified definitions (rank 0's tables) */
void scorep_location_name(const scorep_unified_definitions* d, uint32_t i, char* out, size_t size);
/* "name" of one call-path frame: the region name or "param=value" */
void scorep_report_frame_name(const scorep_report* r, uint32_t callpath, char* out, size_t size);
/* a call path's frames from the root, joined by sep ("a > b", "a;b") */
void scorep_report_path_name(const scorep_report* r, uint32_t callpath, const char* sep, char* out, size_t size);
#endif
