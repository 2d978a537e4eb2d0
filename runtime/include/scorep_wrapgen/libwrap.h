/*
 * scorep-wrapgen measurement core: support for generated library wrappers.
 *
 * A library wrapper measures the calls of a program into a C/C++ library
 * (zlib, FFTW, HDF5, ...). scorep-libwrap-init and the generator write one
 * wrapper per library function; each has this shape (link-time mode, where
 * the linker's --wrap=deflate sends the program's calls to __wrap_deflate
 * and __real_deflate is the library's deflate):
 *
 *     #include <scorep_wrapgen/libwrap.h>
 *
 *     static const char* const scorep_libwrap_sonames[] = {"libz.so.1", NULL};
 *     static const scorep_libwrap_library scorep_libwrap_self = {
 *         "z", "zlib", scorep_libwrap_sonames      // name, display_name, libraries
 *     };
 *
 *     int __wrap_deflate(z_streamp strm, int flush)
 *     {
 *         static scorep_region scorep_region_id = SCOREP_LIBWRAP_UNDEFINED;
 *         if (!scorep_libwrap_should_record()) return __real_deflate(strm, flush);
 *         scorep_region r = scorep_region_id;
 *         if (__builtin_expect(r == SCOREP_LIBWRAP_UNDEFINED, 0))
 *             r = scorep_region_id = scorep_libwrap_region(&scorep_libwrap_self, "deflate",
 *                                                          "/usr/include/zlib.h", "deflate");
 *         if (r == SCOREP_INVALID_ID) return __real_deflate(strm, flush);   // filtered out
 *         scorep_libwrap_begin(r);
 *         int result = __real_deflate(strm, flush);
 *         scorep_libwrap_end(r);
 *         return result;
 *     }
 *
 * Run-time mode (the wrapper library is LD_PRELOADed, or linked ahead of the
 * target library) names the wrapper deflate and calls the library through a
 * pointer resolved once:
 *
 *     static int (*scorep_real_deflate)(z_streamp, int);
 *     ...
 *     if (__builtin_expect(!scorep_real_deflate, 0))
 *         scorep_real_deflate = (int (*)(z_streamp, int))
 *             scorep_libwrap_resolve(&scorep_libwrap_self, "deflate");
 *
 * In C the library descriptor may also be written with designated
 * initialisers and a compound literal:
 *     { .name = "z", .display_name = "zlib",
 *       .libraries = (const char*[]){"libz.so.1", NULL} }
 * C++ (before C++20) has neither; use the positional form above there.
 *
 * Threading: everything here may be called from any thread at any time.
 * The record path (should_record, begin, end) takes no lock and allocates
 * nothing; scorep_libwrap_region and scorep_libwrap_resolve are called once
 * per function (the wrapper caches the result in a static) and may take
 * locks.
 */
#ifndef SCOREP_WRAPGEN_LIBWRAP_H
#define SCOREP_WRAPGEN_LIBWRAP_H

#include <dlfcn.h>
#include <stdint.h>

#include <scorep_wrapgen/adapter.h>

/* <dlfcn.h> defines RTLD_NEXT only with _GNU_SOURCE (g++ always sets it);
 * this is glibc's value */
#ifdef RTLD_NEXT
#define SCOREP_LIBWRAP_RTLD_NEXT RTLD_NEXT
#else
#define SCOREP_LIBWRAP_RTLD_NEXT ((void*)-1l)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* One per wrapper library (static, never changes). */
typedef struct scorep_libwrap_library {
    /* wrapper name (scorep-libwrap-init --name): the group of its regions and
     * the name in scorep --libwrap=N */
    const char* name;
    /* for people: messages name the wrapper by it; NULL means name */
    const char* display_name;
    /* sonames (or paths) of the target libraries, NULL-terminated; where
     * scorep_libwrap_resolve looks when the symbol is not found after the
     * wrapper. May be NULL (no library to open). */
    const char* const* libraries;
} scorep_libwrap_library;

/* Initial value of a wrapper's cached region id: not yet asked.
 * scorep_libwrap_region never returns it (distinct from SCOREP_INVALID_ID,
 * which means filtered out). */
#define SCOREP_LIBWRAP_UNDEFINED ((scorep_region)(UINT32_MAX - 1))

/* The calling thread's depth of recorded library calls: the number of
 * wrapped calls it is inside (begin without end). Maintained by
 * scorep_libwrap_begin/end; read by scorep_libwrap_should_record. */
extern __thread uint32_t scorep_libwrap_thread_depth __attribute__((tls_model("initial-exec")));

/* SCOREP_LIBWRAP_NESTED: 1 records library calls made inside a recorded
 * library call (e.g. a library function calling another wrapped function of
 * its own library) as nested regions; 0 (default) records only the
 * outermost one. Set once when the measurement starts. */
extern int scorep_libwrap_record_nested;

/* The bits of the event generation flag that stop a wrapper of this
 * translation unit: all of them by default. The I/O adapters
 * (scorep_io_adapter.h) define it as 1 before including this header: they
 * record inside MPI-IO calls too (flag SCOREP_EVENT_GENERATION_OFF_BUT_IO),
 * the file I/O the MPI library does for them. */
#ifndef SCOREP_LIBWRAP_GATE_MASK
#define SCOREP_LIBWRAP_GATE_MASK (~0)
#endif

/* Whether the wrapper records this call: event generation is on on this
 * thread (it is off inside an MPI call: whatever MPI calls records nothing,
 * but for SCOREP_LIBWRAP_GATE_MASK) and the thread is not inside a recorded
 * library call already (unless SCOREP_LIBWRAP_NESTED=true). At depth 0 this
 * costs two thread-local loads. */
static inline int scorep_libwrap_should_record(void)
{
    return __builtin_expect((scorep_thread_event_generation_off & SCOREP_LIBWRAP_GATE_MASK) == 0, 1) &&
           __builtin_expect(scorep_libwrap_thread_depth == 0 || scorep_libwrap_record_nested, 1);
}

/* The region of a wrapped function, defined on the first call (later calls
 * with the same arguments return the same id; thread-safe: threads racing on
 * the first call get the same id). Paradigm SCOREP_PARADIGM_LIBWRAP, role
 * SCOREP_ROLE_FUNCTION, group lib->name, file the header that declares the
 * function.
 *   region_name  the function's name as people read it (C++: demangled,
 *                e.g. "ns::foo(int)")
 *   file         the declaring header; NULL or "" if unknown
 *   symbol       the linker symbol (C++: mangled, e.g. "_ZN2ns3fooEi"; C:
 *                the name); NULL or "" means the region name
 * Returns SCOREP_INVALID_ID if the filter (SCOREP_FILTERING_FILE) excludes
 * the function: by region name, by file, or by symbol (EXCLUDE MANGLED);
 * the wrapper then calls the library directly. Starts the measurement if it
 * has not started yet. */
scorep_region scorep_libwrap_region(const scorep_libwrap_library* lib, const char* region_name,
                                    const char* file, const char* symbol);

/* The same with the region's paradigm and role given: for wrappers generated
 * from a catalogue that names a paradigm (the CAF adapter, tasks/caf.json:
 * paradigm caf, roles barrier, rma, one2all, ...). */
scorep_region scorep_libwrap_region_as(const scorep_libwrap_library* lib, const char* region_name,
                                       const char* file, const char* symbol, scorep_paradigm paradigm,
                                       scorep_region_role role);

/* Enter / exit of a recorded call: between them the thread counts as inside
 * a library call. r is what scorep_libwrap_region returned (not
 * SCOREP_INVALID_ID); every begin needs its end on the same thread. */
static inline void scorep_libwrap_begin(scorep_region r)
{
    scorep_libwrap_thread_depth++;
    scorep_enter(r);
}

static inline void scorep_libwrap_end(scorep_region r)
{
    scorep_exit(r);
    scorep_libwrap_thread_depth--;
}

/* For run-time wrappers: the address of the library's definition of symbol.
 * First the next definition after the calling object (dlsym(RTLD_NEXT), so
 * the wrapper never finds itself and several preloaded tools chain), then
 * the target libraries lib->libraries in order (dlopen with RTLD_NOLOAD if
 * already loaded, else loaded now with RTLD_NOW | RTLD_GLOBAL). If neither
 * has it, prints one error naming the wrapper, the symbol and every library
 * tried (with dlerror's reason) to stderr and calls abort(): calling NULL
 * would crash anyway, without saying why. Safe to call concurrently; cache
 * the result in a static.
 *
 * Inline on purpose: RTLD_NEXT means "after the object that calls dlsym",
 * and dlopen searches the calling object's RUNPATH; both must be the
 * wrapper library's, not the measurement core's. */
void scorep_libwrap_resolve_failed(const scorep_libwrap_library* lib, const char* symbol)
    __attribute__((noreturn));

static inline void* scorep_libwrap_resolve(const scorep_libwrap_library* lib, const char* symbol)
{
    void* address = dlsym(SCOREP_LIBWRAP_RTLD_NEXT, symbol);
    for (const char* const* soname = lib->libraries; !address && soname && *soname; soname++) {
        void* handle = dlopen(*soname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
        if (!handle) handle = dlopen(*soname, RTLD_NOW | RTLD_GLOBAL);
        if (handle) address = dlsym(handle, symbol);
    }
    if (__builtin_expect(address == NULL, 0)) scorep_libwrap_resolve_failed(lib, symbol);
    return address;
}

#ifdef __cplusplus
}
#endif

#endif /* SCOREP_WRAPGEN_LIBWRAP_H */
