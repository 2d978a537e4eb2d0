/* Code addresses as the program's source names them: function, its start
 * and end, file and line, with libdw (elfutils), opened at the first
 * question so that no library of the measurement links it; without libdw,
 * the dynamic symbol table (dladdr). The OpenMP adapter names its constructs
 * with it, the sampling its frames. Not for signal handlers: it takes a
 * lock and libdw allocates. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "scorep_wrapgen/adapter.h"   /* the declarations: scorep_code_* */

#if SCOREP_HAVE_LIBDW
#include <elfutils/libdwfl.h>

static struct {
    int tried;
    Dwfl* dwfl;
    __typeof__(dwfl_begin)* begin;
    __typeof__(dwfl_linux_proc_report)* proc_report;
    __typeof__(dwfl_report_begin)* report_begin;
    __typeof__(dwfl_report_end)* report_end;
    __typeof__(dwfl_addrmodule)* addrmodule;
    __typeof__(dwfl_module_getsrc)* getsrc;
    __typeof__(dwfl_lineinfo)* lineinfo;
    __typeof__(dwfl_module_addrinfo)* addrinfo;
    __typeof__(dwfl_module_info)* module_info;
    Dwfl_Callbacks callbacks;
} dw;

static void report_objects(void)
{
    dw.report_begin(dw.dwfl);
    dw.proc_report(dw.dwfl, getpid());
    dw.report_end(dw.dwfl, NULL, NULL);
}

static void open_libdw(void)
{
    dw.tried = 1;
    void* lib = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) return;
#define SYM(field, name) dw.field = (__typeof__(dw.field))dlsym(lib, name)
    SYM(begin, "dwfl_begin");
    SYM(proc_report, "dwfl_linux_proc_report");
    SYM(report_begin, "dwfl_report_begin");
    SYM(report_end, "dwfl_report_end");
    SYM(addrmodule, "dwfl_addrmodule");
    SYM(getsrc, "dwfl_module_getsrc");
    SYM(lineinfo, "dwfl_lineinfo");
    SYM(addrinfo, "dwfl_module_addrinfo");
    SYM(module_info, "dwfl_module_info");
#undef SYM
    dw.callbacks.find_elf = (__typeof__(dw.callbacks.find_elf))dlsym(lib, "dwfl_linux_proc_find_elf");
    dw.callbacks.find_debuginfo = (__typeof__(dw.callbacks.find_debuginfo))dlsym(lib, "dwfl_standard_find_debuginfo");
    if (!dw.begin || !dw.proc_report || !dw.report_begin || !dw.report_end || !dw.addrmodule || !dw.getsrc ||
        !dw.lineinfo || !dw.addrinfo || !dw.module_info || !dw.callbacks.find_elf || !dw.callbacks.find_debuginfo)
        return;
    dw.dwfl = dw.begin(&dw.callbacks);
    if (dw.dwfl != NULL) report_objects();
}

/* the module of address, the process's objects reported again once if it
 * was loaded after the last report */
static Dwfl_Module* module_of(uintptr_t address)
{
    if (!dw.tried) open_libdw();
    if (dw.dwfl == NULL) return NULL;
    Dwfl_Module* module = dw.addrmodule(dw.dwfl, address);
    if (module == NULL) {
        report_objects();
        module = dw.addrmodule(dw.dwfl, address);
    }
    return module;
}
#endif

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int scorep_code_symbol(uintptr_t address, char* name, size_t size, uintptr_t* start, uintptr_t* end)
{
    int found = 0;
    pthread_mutex_lock(&lock);
#if SCOREP_HAVE_LIBDW
    Dwfl_Module* module = module_of(address);
    GElf_Off offset;
    GElf_Sym sym;
    const char* symbol = module ? dw.addrinfo(module, address, &offset, &sym, NULL, NULL, NULL) : NULL;
    if (symbol != NULL) {
        snprintf(name, size, "%s", symbol);
        *start = address - offset;
        *end = sym.st_size ? address - offset + sym.st_size : 0;
        found = 1;
    }
#endif
    pthread_mutex_unlock(&lock);
    if (found) return 1;
    Dl_info info;
    if (!dladdr((void*)address, &info) || info.dli_sname == NULL) return 0;
    snprintf(name, size, "%s", info.dli_sname);
    *start = (uintptr_t)info.dli_saddr;
    *end = 0;
    return 1;
}

int scorep_code_source_line(uintptr_t address, char* file, size_t size, int* line)
{
    int found = 0;
#if SCOREP_HAVE_LIBDW
    pthread_mutex_lock(&lock);
    Dwfl_Module* module = module_of(address);
    Dwfl_Line* l = module ? dw.getsrc(module, address) : NULL;
    const char* path = l ? dw.lineinfo(l, NULL, line, NULL, NULL, NULL) : NULL;
    if (path != NULL && *line > 0) {
        snprintf(file, size, "%s", path);
        found = 1;
    }
    pthread_mutex_unlock(&lock);
#else
    (void)address; (void)file; (void)size; (void)line;
#endif
    return found;
}

const char* scorep_code_demangled(const char* symbol, char** free_this)
{
    *free_this = NULL;
    if (strncmp(symbol, "_Z", 2) != 0) return symbol;
    char* (*demangle)(const char*, char*, size_t*, int*) =
        (char* (*)(const char*, char*, size_t*, int*))dlsym(RTLD_DEFAULT, "__cxa_demangle");
    int status = -1;
    char* name = demangle ? demangle(symbol, NULL, NULL, &status) : NULL;
    if (name == NULL || status != 0) {
        free(name);
        return symbol;
    }
    *free_this = name;
    return name;
}
