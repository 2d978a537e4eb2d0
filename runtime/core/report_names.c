#include "report_names.h"
#include "multiprocess.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

const char* scorep_paradigm_name(scorep_paradigm p)
{
    static const char* const names[] = {"user", "mpi", "libwrap", "measurement", "caf", "compiler", "io", "pthread", "memory", "openmp", "shmem", "sampling"};
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
    static const char* const names[] = {"sum", "sum_unsigned", "maximum", "strict_rusage", "strict_perf", "strict_papi"};
    return (unsigned)k < sizeof names / sizeof *names ? names[k] : "unknown";
}

void scorep_location_group_name(char* out, size_t size, uint32_t rank)
{
    /* Score-P's names, which Cube and Vampir show: a process is an MPI rank
     * only where MPI (or a paradigm over it) took part */
    if (scorep_multiprocess_is_registered()) snprintf(out, size, "MPI Rank %" PRIu32, rank);
    else snprintf(out, size, "Process");
}

/* the location of (rank, thread) near index i (a rank's locations are
 * contiguous in the unified tables), or location_count */
static uint32_t location_near(const scorep_unified_definitions* d, uint32_t i, uint32_t thread)
{
    uint32_t rank = d->location_rank[i];
    for (uint32_t j = i; j-- > 0 && d->location_rank[j] == rank;)
        if (d->location_thread[j] == thread) return j;
    for (uint32_t j = i + 1; j < d->location_count && d->location_rank[j] == rank; j++)
        if (d->location_thread[j] == thread) return j;
    return d->location_count;
}

/* An OpenMP team member's part of its name, as Score-P names members of
 * nested teams: "m" in the master's outermost team; in a team the master
 * forks inside its own, "0" and ":0" for each further level, then ":m"; in
 * a team another member forks, that member's part, ":0" for each of its
 * own teams the team is nested in, then ":m". */
static void team_member_part(const scorep_unified_definitions* d, uint32_t i, char* out, size_t size, int depth)
{
    uint32_t member = d->location_team_member[i];
    uint32_t level = d->location_team_level ? d->location_team_level[i] : 0;
    uint32_t creator = d->location_creator ? d->location_creator[i] : SCOREP_INVALID_ID;
    uint32_t forker = creator == SCOREP_INVALID_ID ? d->location_count : location_near(d, i, creator);
    size_t used = 0;
    out[0] = '\0';
    if (forker < d->location_count && d->location_thread[forker] == 0) {
        if (level > 0) used = (size_t)snprintf(out, size, "0");
        for (uint32_t l = 1; l < level && used < size; l++) used += (size_t)snprintf(out + used, size - used, ":0");
    } else if (forker < d->location_count && d->location_team_member[forker] > 0 && depth < 64) {
        team_member_part(d, forker, out, size, depth + 1);
        used = strlen(out);
        for (uint32_t l = 0; l < level && used < size; l++) used += (size_t)snprintf(out + used, size - used, ":0");
    }
    if (used < size) snprintf(out + used, size - used, used ? ":%" PRIu32 : "%" PRIu32, member);
}

/* Score-P's names: the master thread, an OpenMP team member by its numbers
 * in the teams that lead to it (team_member_part), another thread by its
 * number in the process */
void scorep_location_name(const scorep_unified_definitions* d, uint32_t i, char* out, size_t size)
{
    uint32_t thread = d->location_thread[i];
    if (thread == 0) {
        snprintf(out, size, "Master thread");
    } else if (d->location_team_member && d->location_team_member[i] > 0) {
        char part[96];
        team_member_part(d, i, part, sizeof part, 0);
        snprintf(out, size, "OMP thread %s", part);
    } else {
        snprintf(out, size, "Pthread thread %" PRIu32, thread);
    }
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

void scorep_report_path_name(const scorep_report* r, uint32_t cp, const char* sep, char* out, size_t size)
{
    uint32_t chain[256];
    int n = 0;
    for (uint32_t c = cp; c != SCOREP_INVALID_ID && n < 256; c = r->callpaths[c].parent) chain[n++] = c;
    size_t pos = 0;
    out[0] = '\0';
    for (int i = n - 1; i >= 0 && pos + 1 < size; i--) {
        char frame[512];
        scorep_report_frame_name(r, chain[i], frame, sizeof frame);
        pos += (size_t)snprintf(out + pos, size - pos, "%s%s", i == n - 1 ? "" : sep, frame);
        if (pos >= size) pos = size - 1;
    }
}
