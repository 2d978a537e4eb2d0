#ifndef SCOREP_WRAPGEN_CONFIG_H
#define SCOREP_WRAPGEN_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "internal.h"

/* ---- configuration (config.c) ---- */
typedef enum scorep_timer_kind {
    SCOREP_TIMER_TSC = 0,
    SCOREP_TIMER_CLOCK_GETTIME = 1,
    SCOREP_TIMER_INJECTED = 2
} scorep_timer_kind;

typedef struct scorep_config {
    bool enable_profiling;
    bool enable_tracing;
    const char* experiment_directory;   /* "" if not set */
    bool overwrite_experiment_directory;
    uint64_t total_memory;
    uint64_t tracing_max_size;          /* SCOREP_TRACING_MAX_SIZE; 0: not set (the default,
                                           decided when the experiment directory exists) */
    scorep_timer_kind timer;
    const char* filtering_file;         /* "" if not set */
    bool verbose;
    const char* mpi_enable_groups;
    const char* libwrap_path;
    bool libwrap_nested;                /* also scorep_libwrap_record_nested (libwrap.h) */
    bool caf_record_mpi;                /* read by the CAF adapter (runtime/caf_adapter/) */
    const char* profiling_format;       /* SCOREP_PROFILING_FORMAT, one of Score-P's values */
    bool profiling_cube;                /* write profile.cubex (profile_cube.c) */
    bool tracing_handle_collectives;    /* SCOREP_TRACING_HANDLE_COLLECTIVES (trace/trace_events.c) */
    bool enable_unwinding;              /* SCOREP_ENABLE_UNWINDING (core/sampling.c) */
    const char* sampling_events;        /* SCOREP_SAMPLING_EVENTS, split at SCOREP_SAMPLING_SEP */
    const char* sampling_sep;
} scorep_config;

extern scorep_config scorep_cfg;
void scorep_config_load(void);
/* scorep.cfg: one NAME=value line per variable, the effective values */
int scorep_config_write(FILE* out);
/* name, default, description of every variable, index from 0 until NULL name */
typedef struct scorep_config_var_info {
    const char* name;
    const char* type;
    const char* default_value;
    const char* description;
} scorep_config_var_info;
const scorep_config_var_info* scorep_config_vars(void);
/* parsers, exposed for tests; return false on invalid text */
bool scorep_config_parse_bool(const char* text, bool* out);
bool scorep_config_parse_size(const char* text, uint64_t* out);
/* The entries of a list variable (Score-P's SCOREP_METRIC_RUSAGE,
 * SCOREP_SAMPLING_EVENTS, ...) split at any character of separators
 * (NULL or "": a comma), blanks around them dropped, empty ones left out;
 * entry is called for each. Nothing if list is NULL. */
void scorep_config_for_each_entry(const char* list, const char* separators, void (*entry)(const char*));

#endif
