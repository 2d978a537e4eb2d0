#ifndef SCOREP_WRAPGEN_DEFINITIONS_H
#define SCOREP_WRAPGEN_DEFINITIONS_H

#include "filter.h"
#include "internal.h"

/* ---- definitions (definitions.c) ---- */
/* idempotent; every definition function calls it */
void scorep_definitions_init(void);
/* The tables' own definition functions: they do not start the measurement
 * (the adapter API's scorep_*_define in entry.c start it, then call these). */
scorep_region scorep_definitions_region(const char* name, const char* file, int line, scorep_paradigm paradigm,
                                        scorep_region_role role, const char* group, const char* mangled);
/* with the line the region ends at (0: unknown); mangled is also the
 * canonical name the reports write */
scorep_region scorep_definitions_region_lines(const char* name, const char* file, int line, int end_line,
                                              scorep_paradigm paradigm, scorep_region_role role, const char* group,
                                              const char* mangled);
scorep_window scorep_definitions_window(uint64_t stable_key, scorep_comm comm, const char* name);
scorep_parameter scorep_definitions_parameter(const char* name, scorep_parameter_type type);
scorep_metric scorep_definitions_metric(const char* name, const char* unit, const char* description,
                                        scorep_metric_kind kind);
void scorep_definitions_set_filter(scorep_filter* filter);
/* scorep_region_define for a region with a linker symbol of its own (a
 * library function; for C++ the mangled name): the symbol is what MANGLED
 * filter rules match and is part of the region's identity. NULL, "" or the
 * name itself: no separate symbol (the same as scorep_region_define). */
scorep_region scorep_region_define_mangled(const char* name, const char* file, scorep_paradigm paradigm,
                                           scorep_region_role role, const char* group, const char* mangled);
/* Both: symbol and source line (scorep_region_define_at; line <= 0: unknown). */
scorep_region scorep_region_define_mangled_at(const char* name, const char* file, int line,
                                              scorep_paradigm paradigm, scorep_region_role role,
                                              const char* group, const char* mangled);
/* The same with the line the region ends at (compiler regions). */
scorep_region scorep_region_define_lines(const char* name, const char* file, int line, int end_line,
                                        scorep_paradigm paradigm, scorep_region_role role, const char* group,
                                        const char* mangled);
/* indexed by region id; an array in the library's own data, hidden: the
 * event path reads a flag with one load, no GOT entry and pointer before it */
extern uint8_t scorep_region_filtered_flags[] __attribute__((visibility("hidden")));
#define SCOREP_MAX_REGIONS (1u << 20)

/* the measurement's own region of a trace buffer's flush (definitions.c;
 * defined at the start, lifecycle.c) */
extern scorep_region scorep_flush_region;

#endif
