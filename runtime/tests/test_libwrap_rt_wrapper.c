/* A run-time library wrapper (libtest_libwrap_rt_wrapper.so) written by hand
 * in the shape the generator emits: it defines the library's functions
 * itself and calls the library's definitions through pointers that
 * scorep_libwrap_resolve finds (dlsym(RTLD_NEXT), else the target library
 * opened by its soname).
 *   lwrt_add, lwrt_sub: functions of libtest_libwrap_rt_lib.so
 *   lwrt_mul: the same, but its wrapper names no library to open: only
 *     RTLD_NEXT can find it
 *   lwrt_missing: a function no library defines (the error path); its
 *     wrapper also names a library that does not exist */
#include <stddef.h>

#include <scorep_wrapgen/libwrap.h>

static const char* const scorep_libwrap_sonames[] = {"libtest_libwrap_rt_lib.so", NULL};
static const scorep_libwrap_library scorep_libwrap_self = {"lwrt", "run-time test library",
                                                           scorep_libwrap_sonames};

static const scorep_libwrap_library next_only_library = {"lwrt", "run-time test library", NULL};

static const char* const broken_sonames[] = {"libtest_libwrap_rt_lib.so", "libscorep_no_such_library.so.7",
                                             NULL};
static const scorep_libwrap_library broken_library = {"lwrt", "run-time test library", broken_sonames};

#define LWRT_H "/opt/lwrt/include/lwrt.h"

typedef int (*binary_fn)(int, int);

int lwrt_add(int a, int b)
{
    static binary_fn scorep_real_lwrt_add;
    if (__builtin_expect(!scorep_real_lwrt_add, 0))
        scorep_real_lwrt_add = (binary_fn)scorep_libwrap_resolve(&scorep_libwrap_self, "lwrt_add");
    static scorep_region scorep_region_id = SCOREP_LIBWRAP_UNDEFINED;
    if (!scorep_libwrap_should_record()) return scorep_real_lwrt_add(a, b);
    scorep_region r = scorep_region_id;
    if (__builtin_expect(r == SCOREP_LIBWRAP_UNDEFINED, 0))
        r = scorep_region_id = scorep_libwrap_region(&scorep_libwrap_self, "lwrt_add", LWRT_H, "lwrt_add");
    if (r == SCOREP_INVALID_ID) return scorep_real_lwrt_add(a, b);
    scorep_libwrap_begin(r);
    int result = scorep_real_lwrt_add(a, b);
    scorep_libwrap_end(r);
    return result;
}

int lwrt_sub(int a, int b)
{
    static binary_fn scorep_real_lwrt_sub;
    if (__builtin_expect(!scorep_real_lwrt_sub, 0))
        scorep_real_lwrt_sub = (binary_fn)scorep_libwrap_resolve(&scorep_libwrap_self, "lwrt_sub");
    static scorep_region scorep_region_id = SCOREP_LIBWRAP_UNDEFINED;
    if (!scorep_libwrap_should_record()) return scorep_real_lwrt_sub(a, b);
    scorep_region r = scorep_region_id;
    if (__builtin_expect(r == SCOREP_LIBWRAP_UNDEFINED, 0))
        r = scorep_region_id = scorep_libwrap_region(&scorep_libwrap_self, "lwrt_sub", LWRT_H, "lwrt_sub");
    if (r == SCOREP_INVALID_ID) return scorep_real_lwrt_sub(a, b);
    scorep_libwrap_begin(r);
    int result = scorep_real_lwrt_sub(a, b);
    scorep_libwrap_end(r);
    return result;
}

int lwrt_mul(int a, int b)
{
    static binary_fn scorep_real_lwrt_mul;
    if (__builtin_expect(!scorep_real_lwrt_mul, 0))
        scorep_real_lwrt_mul = (binary_fn)scorep_libwrap_resolve(&next_only_library, "lwrt_mul");
    static scorep_region scorep_region_id = SCOREP_LIBWRAP_UNDEFINED;
    if (!scorep_libwrap_should_record()) return scorep_real_lwrt_mul(a, b);
    scorep_region r = scorep_region_id;
    if (__builtin_expect(r == SCOREP_LIBWRAP_UNDEFINED, 0))
        r = scorep_region_id = scorep_libwrap_region(&next_only_library, "lwrt_mul", LWRT_H, "lwrt_mul");
    if (r == SCOREP_INVALID_ID) return scorep_real_lwrt_mul(a, b);
    scorep_libwrap_begin(r);
    int result = scorep_real_lwrt_mul(a, b);
    scorep_libwrap_end(r);
    return result;
}

int lwrt_missing(int a, int b)
{
    static binary_fn scorep_real_lwrt_missing;
    if (__builtin_expect(!scorep_real_lwrt_missing, 0))
        scorep_real_lwrt_missing = (binary_fn)scorep_libwrap_resolve(&broken_library, "lwrt_missing");
    return scorep_real_lwrt_missing(a, b);
}
