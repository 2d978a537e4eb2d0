#ifndef SCOREP_WRAPGEN_FILTER_H
#define SCOREP_WRAPGEN_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include "internal.h"

/* ---- filter (filter.c) ---- */
typedef struct scorep_filter scorep_filter;
/* On error returns NULL and writes "line N: message" into error. */
scorep_filter* scorep_filter_parse(const char* text, char* error, size_t error_size);
scorep_filter* scorep_filter_load(const char* path, char* error, size_t error_size);
/* region_name and file_name may be NULL (file: also ""); mangled_name is what
 * MANGLED rules match, NULL or "" for regions without one (then the region
 * name) */
bool scorep_filter_excludes(const scorep_filter* filter, const char* region_name,
                            const char* file_name, const char* mangled_name);
void scorep_filter_free(scorep_filter* filter);
/* Edit distance, letters compared case-blind, a transposition counts one;
 * 99 for words over 63 bytes. For "did you mean" hints (filter keywords,
 * SCOREP_* variable names). */
int scorep_edit_distance(const char* a, const char* b);

#endif
