// usage: test_libwrap_cxx <n>
//
// libwrap.h from C++: a link-time wrapper of the C++ function ns::twice(int)
// (linked with --wrap=_ZN2ns5twiceEi), in the generator's shape, with the
// library descriptor written the way C++ allows. The region is named
// "ns::twice(int)" and its symbol is the mangled name, which EXCLUDE MANGLED
// filter rules match. Calls it n times and prints "checksum ok".
#include <cstdio>
#include <cstdlib>

#include <scorep_wrapgen/libwrap.h>

namespace ns {
int twice(int x);
}

extern "C" int __real__ZN2ns5twiceEi(int x);

static const char* const scorep_libwrap_sonames[] = {"libtest_libwrap_cxx.so", nullptr};
static const scorep_libwrap_library scorep_libwrap_self = {"lwcxx", "C++ test library",
                                                           scorep_libwrap_sonames};

extern "C" int __wrap__ZN2ns5twiceEi(int x)
{
    static scorep_region scorep_region_id = SCOREP_LIBWRAP_UNDEFINED;
    if (!scorep_libwrap_should_record()) return __real__ZN2ns5twiceEi(x);
    scorep_region r = scorep_region_id;
    if (__builtin_expect(r == SCOREP_LIBWRAP_UNDEFINED, 0))
        r = scorep_region_id = scorep_libwrap_region(&scorep_libwrap_self, "ns::twice(int)",
                                                     "/opt/lwcxx/include/lwcxx.h", "_ZN2ns5twiceEi");
    if (r == SCOREP_INVALID_ID) return __real__ZN2ns5twiceEi(x);
    scorep_libwrap_begin(r);
    int result = __real__ZN2ns5twiceEi(x);
    scorep_libwrap_end(r);
    return result;
}

// the run-time resolution compiles as C++ too
void* (*volatile resolve_from_cxx)(const scorep_libwrap_library*, const char*) = scorep_libwrap_resolve;

int main(int argc, char** argv)
{
    long n = argc > 1 ? std::atol(argv[1]) : 10;
    long long sum = 0, want = 0;
    for (long i = 0; i < n; i++) {
        sum += ns::twice(static_cast<int>(i));
        want += 2 * i;
    }
    std::printf("checksum %s\n", sum == want ? "ok" : "wrong");
    return sum == want ? 0 : 1;
}
