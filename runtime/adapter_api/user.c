/* User regions and parameters (scorep_user.h, scorep_user.inc): what the
 * SCOREP_USER_* macros call when a program is built with `scorep --user`.
 * A handle is a static of the calling code, 0 until its first use, then the
 * core's id + 1 (regions are defined once, filtered ones record nothing). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "scorep_user.h"

static scorep_region user_region(SCOREP_User_RegionHandle* handle, const char* name, const char* file, int line)
{
    SCOREP_User_RegionHandle h = __atomic_load_n(handle, __ATOMIC_ACQUIRE);
    if (UNLIKELY(h == SCOREP_USER_INVALID_REGION)) {
        scorep_region r = scorep_region_define_at(name ? name : "<unnamed>", file, line, SCOREP_PARADIGM_USER,
                                                  SCOREP_ROLE_FUNCTION, NULL);
        h = r == SCOREP_INVALID_ID ? SCOREP_USER_INVALID_REGION : (SCOREP_User_RegionHandle)r + 1;
        __atomic_store_n(handle, h, __ATOMIC_RELEASE);
    }
    return h == SCOREP_USER_INVALID_REGION ? SCOREP_INVALID_ID : h - 1;
}

void scorep_user_region_begin(SCOREP_User_RegionHandle* handle, const char* name, int type, const char* file,
                              int line)
{
    (void)type;
    scorep_region r = user_region(handle, name, file, line);
    if (r != SCOREP_INVALID_ID && scorep_event_generation_is_on()) scorep_enter(r);
}

void scorep_user_region_end(SCOREP_User_RegionHandle* handle)
{
    SCOREP_User_RegionHandle h = __atomic_load_n(handle, __ATOMIC_ACQUIRE);
    if (h != SCOREP_USER_INVALID_REGION && scorep_event_generation_is_on()) scorep_exit(h - 1);
}

static scorep_parameter user_parameter(SCOREP_User_ParameterHandle* handle, const char* name,
                                       scorep_parameter_type type)
{
    SCOREP_User_ParameterHandle h = __atomic_load_n(handle, __ATOMIC_ACQUIRE);
    if (UNLIKELY(h == SCOREP_USER_INVALID_PARAMETER)) {
        scorep_parameter p = scorep_parameter_define(name ? name : "<unnamed>", type);
        h = p == SCOREP_INVALID_ID ? SCOREP_USER_INVALID_PARAMETER : (SCOREP_User_ParameterHandle)p + 1;
        __atomic_store_n(handle, h, __ATOMIC_RELEASE);
    }
    return h == SCOREP_USER_INVALID_PARAMETER ? SCOREP_INVALID_ID : h - 1;
}

void scorep_user_parameter_int64(SCOREP_User_ParameterHandle* handle, const char* name, int64_t value)
{
    scorep_parameter p = user_parameter(handle, name, SCOREP_PARAMETER_INT64);
    if (p != SCOREP_INVALID_ID && scorep_event_generation_is_on()) scorep_parameter_int(p, value);
}

void scorep_user_parameter_string(SCOREP_User_ParameterHandle* handle, const char* name, const char* value)
{
    scorep_parameter p = user_parameter(handle, name, SCOREP_PARAMETER_STRING);
    if (p != SCOREP_INVALID_ID && scorep_event_generation_is_on()) scorep_parameter_string(p, value ? value : "");
}

/* ---- Fortran (scorep_user.inc): gfortran's calling convention, character
 * lengths as hidden size_t arguments after the others ---- */

/* A Fortran string without its trailing blanks, NUL-terminated: in buffer
 * when it fits (pass NULL, 0 for none), else in memory the caller frees when
 * the result is not buffer. */
static char* fortran_string_in(const char* s, size_t len, char* buffer, size_t size)
{
    while (len > 0 && s[len - 1] == ' ') len--;
    char* out = len < size ? buffer : malloc(len + 1);
    memcpy(out, s, len);
    out[len] = '\0';
    return out;
}

static char* fortran_string(const char* s, size_t len) { return fortran_string_in(s, len, NULL, 0); }

void scorep_f_region_begin_(int32_t* handle, const char* name, int32_t* type, size_t name_len);
void scorep_f_region_begin_line_(int32_t* handle, const char* name, int32_t* type, int32_t* line, size_t name_len);
void scorep_f_region_end_(int32_t* handle);
void scorep_f_parameter_int64_(int32_t* handle, const char* name, int64_t* value, size_t name_len);
void scorep_f_parameter_string_(int32_t* handle, const char* name, const char* value, size_t name_len,
                                size_t value_len);

/* scorep_user.inc passes the macro's __LINE__ (not __FILE__: a long path
 * would push the line past free form's 132 columns, so Fortran user regions
 * have no file); scorep_f_region_begin_ is the same without a line, for
 * objects built with an older scorep_user.inc. */
void scorep_f_region_begin_line_(int32_t* handle, const char* name, int32_t* type, int32_t* line, size_t name_len)
{
    SCOREP_User_RegionHandle h = (SCOREP_User_RegionHandle)*handle;
    if (h == SCOREP_USER_INVALID_REGION) {
        char* n = fortran_string(name, name_len);
        user_region(&h, n, NULL, line ? *line : 0);
        free(n);
        *handle = (int32_t)h;
    }
    scorep_user_region_begin(&h, NULL, *type, NULL, 0);
}

void scorep_f_region_begin_(int32_t* handle, const char* name, int32_t* type, size_t name_len)
{
    scorep_f_region_begin_line_(handle, name, type, NULL, name_len);
}

void scorep_f_region_end_(int32_t* handle)
{
    SCOREP_User_RegionHandle h = (SCOREP_User_RegionHandle)*handle;
    scorep_user_region_end(&h);
}

void scorep_f_parameter_int64_(int32_t* handle, const char* name, int64_t* value, size_t name_len)
{
    SCOREP_User_ParameterHandle h = (SCOREP_User_ParameterHandle)*handle;
    if (h == SCOREP_USER_INVALID_PARAMETER) {
        char* n = fortran_string(name, name_len);
        user_parameter(&h, n, SCOREP_PARAMETER_INT64);
        free(n);
        *handle = (int32_t)h;
    }
    scorep_user_parameter_int64(&h, NULL, *value);
}

void scorep_f_parameter_string_(int32_t* handle, const char* name, const char* value, size_t name_len,
                                size_t value_len)
{
    SCOREP_User_ParameterHandle h = (SCOREP_User_ParameterHandle)*handle;
    if (h == SCOREP_USER_INVALID_PARAMETER) {
        char* n = fortran_string(name, name_len);
        user_parameter(&h, n, SCOREP_PARAMETER_STRING);
        free(n);
        *handle = (int32_t)h;
    }
    /* per event: no allocation for a value that fits on the stack */
    char buffer[256];
    char* v = fortran_string_in(value, value_len, buffer, sizeof buffer);
    scorep_user_parameter_string(&h, NULL, v);
    if (v != buffer) free(v);
}
