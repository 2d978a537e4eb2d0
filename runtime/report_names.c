#include "report_names.h"

#include <inttypes.h>
#include <stdio.h>

const char* scorep_paradigm_name(scorep_paradigm p)
{
    static const char* const names[] = {"user", "mpi", "libwrap", "measurement", "caf", "compiler", "io", "pthread", "memory"};
    return (unsigned)p < sizeof names / sizeof *names ? names[p] : "unknown";
}

const char* scorep_role_name(scorep_region_role r)
{
    static const char* const names[] = {"function", "wrapper", "point2point", "collective",
                                        "barrier", "one2all", "all2one", "all2all",
                                        "file_io", "rma", "artificial", "allocate",
                                        "deallocate", "reallocate"};
    return (unsigned)r < sizeof names / sizeof *names ? names[r] : "unknown";
}

void scorep_report_frame_name(const scorep_report* r, uint32_t callpath, char* out, size_t size)
{
    const scorep_report_callpath* cp = &r->callpaths[callpath];
    const scorep_unified_definitions* d = r->defs;
    if (cp->parameter != SCOREP_INVALID_ID && cp->parameter < d->parameter_count) {
        const scorep_parameter_def* p = &d->parameters[cp->parameter];
        if (p->type == SCOREP_PARAMETER_STRING)
            snprintf(out, size, "%s=%s", p->name,
                     (uint64_t)cp->parameter_value < d->string_count ? d->strings[cp->parameter_value] : "?");
        else
            snprintf(out, size, "%s=%" PRId64, p->name, cp->parameter_value);
        return;
    }
    snprintf(out, size, "%s", cp->region < d->region_count ? d->regions[cp->region].name : "<unknown>");
}
