/* The calls the compiler instrumentation plugin
 * (runtime/compiler/scorep_instrument_plugin.cc, plugin argument openmp)
 * puts around a program's OpenMP constructs, and their kinds: shared by
 * the plugin, which cannot include the adapter's header (omp.h is not in
 * a plugin's include path), and runtime/omp_adapter/omp_sites.c.
 *
 *   __scorep_omp_site(kind, file, line, end_line)
 *       before a construct that calls libgomp: the next call of that
 *       construct on the thread names its regions after the pragma's line
 *       (its implicit barrier after end_line, the construct's last line, as
 *       Score-P names it) instead of the call's debug line
 *   __scorep_omp_site_named(kind, file, line, name)
 *       the same for a named critical section, whose construct region
 *       Score-P names "!$omp critical (name) @file:line"
 *   __scorep_omp_begin(kind, file, line) / __scorep_omp_end(kind)
 *       around a construct that makes no runtime call (a loop with a static
 *       schedule, master, flush, an inline atomic)
 *
 * Each region is defined at its site's first use and found by the file's
 * string and the line later, without a lock.
 *
 * The kinds are an ABI between compiled programs and the library: new
 * ones go at the end. */
#ifndef SCOREP_OMP_SITES_H
#define SCOREP_OMP_SITES_H

enum scorep_omp_site_kind {
    SCOREP_OMP_SITE_NONE,
    SCOREP_OMP_SITE_PARALLEL,           /* line: the region's, end_line: its implicit barrier's */
    SCOREP_OMP_SITE_PARALLEL_FOR,       /* a combined parallel loop computed inline */
    SCOREP_OMP_SITE_FOR,
    SCOREP_OMP_SITE_SECTIONS,
    SCOREP_OMP_SITE_SINGLE,
    SCOREP_OMP_SITE_CRITICAL,
    SCOREP_OMP_SITE_ORDERED,
    SCOREP_OMP_SITE_ATOMIC,
    SCOREP_OMP_SITE_BARRIER,
    SCOREP_OMP_SITE_IMPLICIT_BARRIER,   /* end_line: the barrier's */
    SCOREP_OMP_SITE_TASK,
    SCOREP_OMP_SITE_TASKWAIT,
    SCOREP_OMP_SITE_TASKGROUP,
    SCOREP_OMP_SITE_MASTER,
    SCOREP_OMP_SITE_FLUSH,
    /* the loop of a combined parallel loop that starts with its own call
     * (GCC does not combine one with a reduction): open until the team ends */
    SCOREP_OMP_SITE_COMBINED_FOR,
    SCOREP_OMP_SITE_KIND_COUNT
};

#endif /* SCOREP_OMP_SITES_H */
