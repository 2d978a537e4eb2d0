/* Compiler instrumentation: the functions the GCC plugin
 * (compiler/scorep_instrument_plugin.cc) calls at entry and exit of every
 * instrumented function. The region is Score-P's: the function's name, its
 * symbol as the canonical name, the absolute source file and the lines
 * where the function begins and ends, all known at compile time.
 *
 * Each instrumented function owns a static unsigned handle, zero at start:
 *   0            not yet seen: the first enter defines the region
 *   id + 1       the region's id
 *   FILTERED     the region is filtered (SCOREP_FILTERING_FILE): the
 *                instrumented code tests this itself and calls nothing
 * Defining is idempotent (the same name, file, line, paradigm, role, group
 * and symbol give the same id), so threads racing at a first call agree. */
#include "internal.h"
#include "definitions.h"

#define COMPILER_FILTERED 0xFFFFFFFFu

void __scorep_compiler_region_enter(unsigned* handle, const char* name, const char* symbol, const char* file,
                                    int line, int end_line);
void __scorep_compiler_enter(unsigned* handle, const char* name, const char* symbol, const char* file,
                             int line);
void __scorep_compiler_exit(unsigned* handle);

static __attribute__((noinline)) unsigned define_region(unsigned* handle, const char* name, const char* symbol,
                                                        const char* file, int line, int end_line)
{
    scorep_region region = scorep_region_define_lines(name, file, line, end_line, SCOREP_PARADIGM_COMPILER,
                                                      SCOREP_ROLE_FUNCTION, NULL, symbol);
    unsigned h = region == SCOREP_INVALID_ID || scorep_region_is_filtered(region) ? COMPILER_FILTERED : region + 1;
    __atomic_store_n(handle, h, __ATOMIC_RELEASE);
    return h;
}

void __scorep_compiler_region_enter(unsigned* handle, const char* name, const char* symbol, const char* file,
                                    int line, int end_line)
{
    /* inside a measured MPI or library call (a callback), or a signal
     * handler that interrupted the measurement (substrate.h): not recorded,
     * and the matching exit sees the same flag. Tested before the first
     * enter defines the region: such a handler's definition would wait for
     * the definitions lock its own thread holds. */
    if (UNLIKELY(!scorep_event_generation_is_on())) return;
    unsigned h = __atomic_load_n(handle, __ATOMIC_ACQUIRE);
    if (UNLIKELY(h == 0)) {
        h = define_region(handle, name, symbol, file, line, end_line);
        if (h == COMPILER_FILTERED) return;
    }
    scorep_enter(h - 1);
}

/* what objects instrumented by an earlier plugin call: no end line */
void __scorep_compiler_enter(unsigned* handle, const char* name, const char* symbol, const char* file, int line)
{
    __scorep_compiler_region_enter(handle, name, symbol, file, line, 0);
}

void __scorep_compiler_exit(unsigned* handle)
{
    unsigned h = __atomic_load_n(handle, __ATOMIC_RELAXED);
    if (UNLIKELY(h == 0 || h == COMPILER_FILTERED || !scorep_event_generation_is_on())) return;
    scorep_exit(h - 1);
}
