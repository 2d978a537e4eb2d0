#include "report_names.h"
#include "multiprocess.h"

#include <inttypes.h>
#include <stdio.h>

const char* scorep_paradigm_name(scorep_paradigm p)
{
    static const char* const names[] = {"user", "mpi", "libwrap", "measurement", "caf", "compiler", "io", "pthread", "memory", "openmp", "shmem"};
    return (unsigned)p < sizeof names / sizeof *names ? names[p] : "unknown";
}

/* The names Score-P gives region roles in CUBE's <role> (OTF2's role names,
 * lower case): derived metrics in Cube and Scalasca select call paths by them. */
const char* scorep_role_name(scorep_region_role r)
{
    static const char* const names[] = {
        [SCOREP_ROLE_FUNCTION] = "function",         [SCOREP_ROLE_WRAPPER] = "wrapper",
        [SCOREP_ROLE_POINT2POINT] = "point2point",   [SCOREP_ROLE_COLLECTIVE] = "other collective",
        [SCOREP_ROLE_BARRIER] = "barrier",           [SCOREP_ROLE_ONE2ALL] = "one2all",
        [SCOREP_ROLE_ALL2ONE] = "all2one",           [SCOREP_ROLE_ALL2ALL] = "all2all",
        [SCOREP_ROLE_FILE_IO] = "file io",           [SCOREP_ROLE_RMA] = "rma",
        [SCOREP_ROLE_ARTIFICIAL] = "artificial",     [SCOREP_ROLE_ALLOCATE] = "allocate",
        [SCOREP_ROLE_DEALLOCATE] = "deallocate",     [SCOREP_ROLE_REALLOCATE] = "reallocate",
        [SCOREP_ROLE_FILE_IO_METADATA] = "file io metadata", [SCOREP_ROLE_ATOMIC] = "atomic",
        [SCOREP_ROLE_PARALLEL] = "parallel",         [SCOREP_ROLE_LOOP] = "loop",
        [SCOREP_ROLE_IMPLICIT_BARRIER] = "implicit barrier", [SCOREP_ROLE_SINGLE] = "single",
        [SCOREP_ROLE_SINGLE_SBLOCK] = "single sblock", [SCOREP_ROLE_CRITICAL] = "critical",
        [SCOREP_ROLE_CRITICAL_SBLOCK] = "critical sblock", [SCOREP_ROLE_SECTIONS] = "sections",
        [SCOREP_ROLE_SECTION] = "section",           [SCOREP_ROLE_ORDERED] = "ordered",
        [SCOREP_ROLE_ORDERED_SBLOCK] = "ordered sblock", [SCOREP_ROLE_TASK] = "task",
        [SCOREP_ROLE_TASK_CREATE] = "task create",   [SCOREP_ROLE_TASK_WAIT] = "taskwait",
        [SCOREP_ROLE_MASTER] = "master",             [SCOREP_ROLE_WORKSHARE] = "workshare"};
    return (unsigned)r < sizeof names / sizeof *names && names[r] ? names[r] : "unknown";
}

const char* scorep_metric_kind_name(scorep_metric_kind k)
{
    static const char* const names[] = {"sum", "sum_unsigned", "maximum", "strict_rusage", "strict_perf"};
    return (unsigned)k < sizeof names / sizeof *names ? names[k] : "unknown";
}

void scorep_location_group_name(char* out, size_t size, uint32_t rank)
{
    /* Score-P's names, which Cube and Vampir show: a process is an MPI rank
     * only where MPI (or a paradigm over it) took part */
    if (scorep_multiprocess_is_registered()) snprintf(out, size, "MPI Rank %" PRIu32, rank);
    else snprintf(out, size, "Process");
}

/* Score-P's names: a member of an OpenMP team by its number in the team
 * that made its location */
void scorep_location_name(char* out, size_t size, uint32_t thread, uint32_t team_member)
{
    if (thread == 0) snprintf(out, size, "Master thread");
    else if (team_member > 0) snprintf(out, size, "OMP thread %" PRIu32, team_member);
    else snprintf(out, size, "Pthread thread %" PRIu32, thread);
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
