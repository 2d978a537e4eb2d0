/* The adapter API's definition functions as adapters call them: the first
 * definition of a region, parameter, metric or window is the measurement's
 * "first use" and starts it (scorep_measurement_init, lifecycle.c), then the
 * definition tables (definitions.c) do the work. Starting lives up here, not
 * in the tables, so that the life cycle calls the lower files and they never
 * call it back. An event needs one of these ids, so nothing is recorded
 * before the start. */
#include "internal.h"
#include "definitions.h"

scorep_region scorep_region_define_mangled_at(const char* name, const char* file, int line,
                                              scorep_paradigm paradigm, scorep_region_role role,
                                              const char* group, const char* mangled)
{
    scorep_measurement_init();
    return scorep_definitions_region(name, file, line, paradigm, role, group, mangled);
}

scorep_region scorep_region_define_lines(const char* name, const char* file, int line, int end_line,
                                        scorep_paradigm paradigm, scorep_region_role role, const char* group,
                                        const char* mangled)
{
    scorep_measurement_init();
    return scorep_definitions_region_lines(name, file, line, end_line, paradigm, role, group, mangled);
}

scorep_region scorep_region_define(const char* name, const char* file, scorep_paradigm paradigm,
                                   scorep_region_role role, const char* group)
{
    return scorep_region_define_mangled_at(name, file, 0, paradigm, role, group, NULL);
}

scorep_region scorep_region_define_at(const char* name, const char* file, int line, scorep_paradigm paradigm,
                                      scorep_region_role role, const char* group)
{
    return scorep_region_define_mangled_at(name, file, line, paradigm, role, group, NULL);
}

scorep_region scorep_region_define_mangled(const char* name, const char* file, scorep_paradigm paradigm,
                                           scorep_region_role role, const char* group, const char* mangled)
{
    return scorep_region_define_mangled_at(name, file, 0, paradigm, role, group, mangled);
}

scorep_window scorep_rma_window_define(uint64_t stable_key, scorep_comm comm, const char* name)
{
    scorep_measurement_init();
    return scorep_definitions_window(stable_key, comm, name);
}

scorep_parameter scorep_parameter_define(const char* name, scorep_parameter_type type)
{
    scorep_measurement_init();
    return scorep_definitions_parameter(name, type);
}

scorep_metric scorep_metric_define(const char* name, const char* unit)
{
    return scorep_metric_define_kind(name, unit, "", SCOREP_METRIC_SUM_SIGNED);
}

scorep_metric scorep_metric_define_kind(const char* name, const char* unit, const char* description,
                                        scorep_metric_kind kind)
{
    scorep_measurement_init();
    return scorep_definitions_metric(name, unit, description, kind);
}
