/*
 * User instrumentation (Score-P's macros): regions and parameters in C and C++.
 *
 *     #include <scorep_user.h>
 *     void solve(int n) {
 *         SCOREP_USER_FUNC_BEGIN();
 *         SCOREP_USER_REGION_DEFINE(loop)
 *         SCOREP_USER_REGION_BEGIN(loop, "solve:loop", SCOREP_USER_REGION_TYPE_LOOP);
 *         SCOREP_USER_PARAMETER_INT64("n", n);
 *         ...
 *         SCOREP_USER_REGION_END(loop);
 *         SCOREP_USER_FUNC_END();
 *     }
 *
 * The macros are active when the program is compiled with `scorep --user`
 * (which defines SCOREP_USER_ENABLE), and empty otherwise, so the sources
 * build unchanged without the measurement. A region is a static handle:
 * defined once at its first BEGIN, filtered by SCOREP_FILTERING_FILE like any
 * other region. A parameter is recorded for the current region visit (a
 * child "name=value" of its call path in the profile).
 * In C++, SCOREP_USER_REGION(name, type) measures the enclosing scope.
 */
#ifndef SCOREP_USER_H
#define SCOREP_USER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint32_t SCOREP_User_RegionHandle;      /* 0: not yet defined */
typedef uint32_t SCOREP_User_ParameterHandle;
#define SCOREP_USER_INVALID_REGION ((SCOREP_User_RegionHandle)0)
#define SCOREP_USER_INVALID_PARAMETER ((SCOREP_User_ParameterHandle)0)

/* region types (Score-P's values; recorded regions do not depend on them) */
#define SCOREP_USER_REGION_TYPE_COMMON 0
#define SCOREP_USER_REGION_TYPE_FUNCTION 1
#define SCOREP_USER_REGION_TYPE_LOOP 2
#define SCOREP_USER_REGION_TYPE_DYNAMIC 4
#define SCOREP_USER_REGION_TYPE_PHASE 8

void scorep_user_region_begin(SCOREP_User_RegionHandle* handle, const char* name, int type, const char* file,
                              int line);
void scorep_user_region_end(SCOREP_User_RegionHandle* handle);
void scorep_user_parameter_int64(SCOREP_User_ParameterHandle* handle, const char* name, int64_t value);
void scorep_user_parameter_string(SCOREP_User_ParameterHandle* handle, const char* name, const char* value);

#ifdef __cplusplus
}
#endif

#ifdef SCOREP_USER_ENABLE

#define SCOREP_USER_REGION_DEFINE(handle) static SCOREP_User_RegionHandle handle = SCOREP_USER_INVALID_REGION;
/* Each macro is a statement of its own, semicolon included, as Score-P's are:
 * sources written for Score-P put none after them (an extra one is an empty
 * statement). */
#define SCOREP_USER_REGION_BEGIN(handle, name, type) \
    scorep_user_region_begin(&(handle), (name), (type), __FILE__, __LINE__);
#define SCOREP_USER_REGION_END(handle) scorep_user_region_end(&(handle));
#define SCOREP_USER_FUNC_BEGIN()                                                    \
    static SCOREP_User_RegionHandle scorep_user_func_handle = SCOREP_USER_INVALID_REGION; \
    scorep_user_region_begin(&scorep_user_func_handle, __func__, SCOREP_USER_REGION_TYPE_FUNCTION, __FILE__, \
                             __LINE__);
#define SCOREP_USER_FUNC_END() scorep_user_region_end(&scorep_user_func_handle);
#define SCOREP_USER_PARAMETER_INT64(name, value)                                          \
    {                                                                                     \
        static SCOREP_User_ParameterHandle scorep_user_parameter_ = SCOREP_USER_INVALID_PARAMETER; \
        scorep_user_parameter_int64(&scorep_user_parameter_, (name), (int64_t)(value));   \
    }
#define SCOREP_USER_PARAMETER_STRING(name, value)                                         \
    {                                                                                     \
        static SCOREP_User_ParameterHandle scorep_user_parameter_ = SCOREP_USER_INVALID_PARAMETER; \
        scorep_user_parameter_string(&scorep_user_parameter_, (name), (value));           \
    }

#ifdef __cplusplus
/* the enclosing scope as a region */
class SCOREP_User_Region {
public:
    SCOREP_User_Region(SCOREP_User_RegionHandle* handle, const char* name, int type, const char* file, int line)
        : handle_(handle) { scorep_user_region_begin(handle_, name, type, file, line); }
    ~SCOREP_User_Region() { scorep_user_region_end(handle_); }
    SCOREP_User_Region(const SCOREP_User_Region&) = delete;
    SCOREP_User_Region& operator=(const SCOREP_User_Region&) = delete;
private:
    SCOREP_User_RegionHandle* handle_;
};
#define SCOREP_USER_REGION_CONCAT_(a, b) a##b
#define SCOREP_USER_REGION_NAME_(a, b) SCOREP_USER_REGION_CONCAT_(a, b)
#define SCOREP_USER_REGION(name, type)                                                               \
    static SCOREP_User_RegionHandle SCOREP_USER_REGION_NAME_(scorep_user_scope_handle_, __LINE__) =   \
        SCOREP_USER_INVALID_REGION;                                                                  \
    SCOREP_User_Region SCOREP_USER_REGION_NAME_(scorep_user_scope_, __LINE__)(                       \
        &SCOREP_USER_REGION_NAME_(scorep_user_scope_handle_, __LINE__), (name), (type), __FILE__, __LINE__);
#endif

#else /* !SCOREP_USER_ENABLE: no measurement, no cost */

#define SCOREP_USER_REGION_DEFINE(handle)
#define SCOREP_USER_REGION_BEGIN(handle, name, type)
#define SCOREP_USER_REGION_END(handle)
#define SCOREP_USER_FUNC_BEGIN()
#define SCOREP_USER_FUNC_END()
#define SCOREP_USER_PARAMETER_INT64(name, value)
#define SCOREP_USER_PARAMETER_STRING(name, value)
#ifdef __cplusplus
#define SCOREP_USER_REGION(name, type)
#endif

#endif /* SCOREP_USER_ENABLE */

#endif /* SCOREP_USER_H */
