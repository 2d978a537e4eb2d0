/* Support for generated library wrappers (include/scorep_wrapgen/libwrap.h):
 * the per-thread depth of recorded library calls, region definitions with
 * the function's linker symbol for the filter, and the run-time resolution
 * of the wrapped functions. */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "definitions.h"
#include "scorep_wrapgen/libwrap.h"

__thread uint32_t scorep_libwrap_thread_depth TLS_FAST;

scorep_region scorep_libwrap_region_as(const scorep_libwrap_library* lib, const char* region_name,
                                       const char* file, const char* symbol, scorep_paradigm paradigm,
                                       scorep_region_role role)
{
    const char* group = lib && lib->name && lib->name[0] ? lib->name : NULL;
    /* scorep_region_define_mangled starts the measurement first, so the
     * filter is loaded; it returns the same id to every thread */
    scorep_region r = scorep_region_define_mangled(region_name, file, paradigm, role, group, symbol);
    if (r == SCOREP_INVALID_ID || scorep_region_is_filtered(r)) return SCOREP_INVALID_ID;
    return r;
}

typedef struct text {
    char data[4096];
    size_t used;
} text;

/* Appends to the fixed buffer, truncating what does not fit. */
static __attribute__((format(printf, 2, 3))) void append(text* t, const char* format, ...)
{
    size_t room = sizeof t->data - t->used;
    if (room <= 1) return;
    va_list ap;
    va_start(ap, format);
    int n = vsnprintf(t->data + t->used, room, format, ap);
    va_end(ap);
    if (n > 0) t->used += (size_t)n < room ? (size_t)n : room - 1;
}

/* scorep_libwrap_resolve found nothing: say why, library by library. A
 * library the wrapper could open is loaded now (RTLD_NOLOAD finds it by its
 * soname whatever path the wrapper's search took); one it could not open is
 * searched for again from here for dlerror's reason. */
void scorep_libwrap_resolve_failed(const scorep_libwrap_library* lib, const char* symbol)
{
    text message = {.used = 0};
    const char* name = lib && lib->name ? lib->name : "?";
    const char* display = lib && lib->display_name && lib->display_name[0] ? lib->display_name : name;
    append(&message, "[Score-P] Error: library wrapper '%s' (%s): cannot find the function '%s' to call: "
                     "no library loaded after the wrapper defines it",
           display, name, symbol ? symbol : "(null)");
    int tried = 0;
    for (const char* const* soname = lib && symbol ? lib->libraries : NULL; soname && *soname; soname++) {
        tried++;
        void* handle = dlopen(*soname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
        if (!handle) handle = dlopen(*soname, RTLD_NOW | RTLD_GLOBAL);
        if (!handle) {
            const char* why = dlerror();
            append(&message, "; cannot open %s (%s)", *soname, why ? why : "unknown reason");
            continue;
        }
        dlerror();
        const char* why = dlsym(handle, symbol) ? "its address is NULL" : dlerror();
        append(&message, "; not in %s (%s)", *soname, why ? why : "not found");
    }
    if (!tried) append(&message, "; the wrapper names no target library to open");
    fprintf(stderr, "%s\n", message.data);
    fflush(stderr);
    abort();
}

scorep_region scorep_libwrap_region(const scorep_libwrap_library* lib, const char* region_name,
                                    const char* file, const char* symbol)
{
    return scorep_libwrap_region_as(lib, region_name, file, symbol, SCOREP_PARADIGM_LIBWRAP, SCOREP_ROLE_FUNCTION);
}
