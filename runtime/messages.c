/* Diagnostics on stderr, prefixed so users can tell them from program output. */
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"

static void print_prefixed(const char* kind, const char* format, va_list ap)
{
    char line[1024];
    vsnprintf(line, sizeof line, format, ap);
    fprintf(stderr, "[Score-P] %s%s\n", kind, line);
}

void scorep_warning(const char* format, ...)
{
    va_list ap;
    va_start(ap, format);
    print_prefixed("Warning: ", format, ap);
    va_end(ap);
}

void scorep_verbose(const char* format, ...)
{
    if (!scorep_cfg.verbose) return;
    va_list ap;
    va_start(ap, format);
    print_prefixed("", format, ap);
    va_end(ap);
}

int scorep_config_verbose(void) { return scorep_cfg.verbose; }
uint64_t scorep_config_total_memory(void) { return scorep_cfg.total_memory; }
uint64_t scorep_config_tracing_max_size(void) { return scorep_cfg.tracing_max_size; }
