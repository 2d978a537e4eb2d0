/* The hand-written part of the POSIX threads adapter: the trampoline a
 * created thread starts in, and the name of its region.
 *
 * pthread_create's generated wrapper (tasks/thread_create.c.j2) hands the
 * new thread scorep_thread_trampoline and a start record. The trampoline's
 * enter of the start routine's region is the thread's first event: the core
 * makes (or reuses) its location there (runtime/core/location.c), and everything
 * the thread records nests below the routine's region, as Score-P shows a
 * thread's calls below its start function. The new location records the
 * creating thread's (profile.json: the location's "creator").
 *
 * The routine's name: the dynamic symbol table (dladdr) knows exported
 * functions only; a program's own start routines are mostly neither exported
 * nor static-free, so the object's full symbol table (.symtab, which a
 * program keeps unless stripped) is read next. A stripped object gives
 * "thread start <object>+0x<offset>" (std::thread's routine in Debian's
 * stripped libstdc++: "thread start libstdc++.so.6+0xd4490").
 *
 * Everything here runs with event generation off on the calling thread, so
 * that its own calls (open, pthread_mutex_lock) are never recorded by the
 * measurement's other adapters or this one. The start record is the C
 * library's memory taken and given back under glibc's own names
 * (__libc_malloc, __libc_free), which no wrapper interposes: the record is
 * freed on the new thread before it has a location or a ThreadBegin, and a
 * compiler may drop the flag's store around a call it knows as free's (the
 * store looks dead to it), so the flag alone cannot keep the memory
 * adapter from recording that free as the thread's first event. */
#define SCOREP_THREAD_ADAPTER_SUPPORT
#include "scorep_thread_adapter.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

extern void* __libc_malloc(size_t size);
extern void __libc_free(void* ptr);

struct scorep_thread_start {
    void* (*start)(void*);
    void* arg;
    scorep_region region;
    uint32_t creator;   /* the creating thread's location */
    uint64_t sequence;  /* the thread's number in the process (its ThreadCreate ... ThreadWait) */
};

/* the last thread number given: the trace's sequence counts of the
 * process's thread contingent (runtime/trace/trace_threads.c) */
static uint64_t last_sequence;

/* The number of each created thread that may be joined, by its pthread_t,
 * for the ThreadWait of pthread_join: a small hash table, each thread in one
 * of PROBE slots from its hash; sequence 0 is a free slot. A thread id is
 * reused only after its thread was joined (which frees its slot) or
 * detached and ended: a new thread with the id takes the old one's slot.
 * With every slot of its probe taken (more than that many threads alive
 * and not joined, or many detached ones) a thread overwrites one: its
 * joiner, or the overwritten thread's, records no ThreadWait. */
#define JOINABLE_SLOTS 4096
#define PROBE 8
static struct { pthread_t thread; uint64_t sequence; } joinable[JOINABLE_SLOTS];
static pthread_mutex_t joinable_lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned joinable_slot(pthread_t thread, unsigned probe)
{
    uint64_t h = (uint64_t)thread * 0x9e3779b97f4a7c15ull;
    return (unsigned)((h >> 40) + probe) % JOINABLE_SLOTS;
}

/* The regions of the start routines seen so far: finding a name may read
 * the object's symbol table, which a program that starts many threads with
 * one routine should pay for once. A routine beyond the table is named
 * again at each start (its region is the same: a definition with the same
 * name and file returns the same id). */
#define KNOWN_ROUTINES 256
static struct { void* (*start)(void*); scorep_region region; } known[KNOWN_ROUTINES];
static unsigned known_count;
static pthread_mutex_t known_lock = PTHREAD_MUTEX_INITIALIZER;

/* the region of the start routine this thread's trampoline entered, while
 * open, and the thread's number */
static __thread scorep_region start_region;
static __thread uint64_t start_sequence;
static __thread int start_open;

#if UINTPTR_MAX > 0xffffffffu
typedef Elf64_Ehdr elf_ehdr;
typedef Elf64_Shdr elf_shdr;
typedef Elf64_Sym elf_sym;
#define ELF_ST_TYPE ELF64_ST_TYPE
#else
typedef Elf32_Ehdr elf_ehdr;
typedef Elf32_Shdr elf_shdr;
typedef Elf32_Sym elf_sym;
#define ELF_ST_TYPE ELF32_ST_TYPE
#endif

/* The function of path's .symtab that contains value (an address relative to
 * the load base for a shared object or PIE, absolute for ET_EXEC), into out. */
static int symtab_name(const char* path, uintptr_t address, uintptr_t base, char* out, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    struct stat st;
    void* map = MAP_FAILED;
    if (fstat(fd, &st) == 0 && (size_t)st.st_size >= sizeof(elf_ehdr))
        map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) return 0;
    const char* image = map;
    size_t length = (size_t)st.st_size;
    const elf_ehdr* eh = map;
    int found = 0;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_shoff + (size_t)eh->e_shnum * sizeof(elf_shdr) <= length) {
        uintptr_t value = eh->e_type == ET_EXEC ? address : address - base;
        const elf_shdr* sh = (const elf_shdr*)(image + eh->e_shoff);
        for (unsigned i = 0; i < eh->e_shnum && !found; i++) {
            if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum) continue;
            const elf_shdr* strs = &sh[sh[i].sh_link];
            if (sh[i].sh_offset + sh[i].sh_size > length || strs->sh_offset + strs->sh_size > length) continue;
            const elf_sym* sym = (const elf_sym*)(image + sh[i].sh_offset);
            size_t count = sh[i].sh_size / sizeof *sym;
            for (size_t k = 0; k < count; k++) {
                if (ELF_ST_TYPE(sym[k].st_info) != STT_FUNC || sym[k].st_value == 0) continue;
                if (value < sym[k].st_value || value >= sym[k].st_value + (sym[k].st_size ? sym[k].st_size : 1))
                    continue;
                if (sym[k].st_name >= strs->sh_size) continue;
                snprintf(out, size, "%s", image + strs->sh_offset + sym[k].st_name);
                found = 1;
                break;
            }
        }
    }
    munmap(map, length);
    return found;
}

/* The start routine's name and the object that defines it. */
static void start_name(void* (*start)(void*), char* name, size_t size, char* file, size_t file_size)
{
    Dl_info info;
    void* address = *(void**)&start;
    file[0] = 0;
    if (!dladdr(address, &info)) {
        snprintf(name, size, "thread start %p", address);
        return;
    }
    snprintf(file, file_size, "%s", info.dli_fname ? info.dli_fname : "");
    if (info.dli_sname && info.dli_saddr == address) {
        snprintf(name, size, "%s", info.dli_sname);
        return;
    }
    /* the main program's dli_fname may be "" (glibc): /proc/self/exe is it */
    const char* path = info.dli_fname && info.dli_fname[0] ? info.dli_fname : "/proc/self/exe";
    if (!symtab_name(path, (uintptr_t)address, (uintptr_t)info.dli_fbase, name, size)) {
        const char* base = strrchr(path, '/');
        snprintf(name, size, "thread start %s+0x%lx", base ? base + 1 : path,
                 (unsigned long)((uintptr_t)address - (uintptr_t)info.dli_fbase));
    }
}

/* The OpenMP adapter's trampoline, where that adapter is in the process
 * (preloaded beside this one, or linked into the program). */
extern void scorep_omp_trampoline(void*) __attribute__((weak));

/* One location per thread: a thread an OpenMP runtime creates while the
 * OpenMP adapter records its teams is that adapter's; this adapter would
 * give it a second location, holding only the runtime's start routine. */
static int openmp_runtime_thread(const void* caller)
{
    Dl_info info;
    if (scorep_omp_trampoline == NULL || caller == NULL || !dladdr((void*)caller, &info) || !info.dli_fname)
        return 0;
    const char* base = strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    return strncmp(base, "libgomp.so", 10) == 0 || strncmp(base, "libomp.so", 9) == 0 ||
           strncmp(base, "libiomp5.so", 11) == 0;
}

scorep_thread_start* scorep_thread_start_new(void* (*start)(void*), void* arg, const void* caller)
{
    if (openmp_runtime_thread(caller))
        return NULL;
    int was_off = scorep_thread_event_generation_off;
    scorep_event_generation_off();
    scorep_thread_start* s = __libc_malloc(sizeof *s);
    if (s != NULL) {
        s->start = start;
        s->arg = arg;
        s->region = SCOREP_INVALID_ID;
        pthread_mutex_lock(&known_lock);
        for (unsigned i = 0; i < known_count && s->region == SCOREP_INVALID_ID; i++)
            if (known[i].start == start) s->region = known[i].region;
        pthread_mutex_unlock(&known_lock);
        if (s->region == SCOREP_INVALID_ID) {
            char name[512], file[1024];
            start_name(start, name, sizeof name, file, sizeof file);
            s->region = scorep_region_define(name, file, SCOREP_PARADIGM_PTHREAD, SCOREP_ROLE_FUNCTION, "pthread");
            pthread_mutex_lock(&known_lock);
            if (known_count < KNOWN_ROUTINES) {
                known[known_count].start = start;
                known[known_count].region = s->region;
                known_count++;
            }
            pthread_mutex_unlock(&known_lock);
        }
        s->creator = scorep_thread_location_id();
        s->sequence = __atomic_add_fetch(&last_sequence, 1, __ATOMIC_RELAXED);
    }
    scorep_thread_event_generation_off = was_off;
    return s;
}

void scorep_thread_start_free(scorep_thread_start* start)
{
    __libc_free(start);
}

uint64_t scorep_thread_created(const scorep_thread_start* start)
{
    if (start == NULL || start->region == SCOREP_INVALID_ID)   /* the thread runs unmeasured */
        return 0;
    scorep_thread_event(SCOREP_THREAD_CREATE, start->sequence);
    return start->sequence;
}

void scorep_thread_started(pthread_t thread, uint64_t sequence)
{
    if (sequence == 0) return;
    int was_off = scorep_thread_event_generation_off;
    scorep_event_generation_off();
    pthread_mutex_lock(&joinable_lock);
    unsigned slot = joinable_slot(thread, 0), free_slot = JOINABLE_SLOTS;
    for (unsigned p = 0; p < PROBE; p++) {
        unsigned i = joinable_slot(thread, p);
        if (joinable[i].sequence != 0 && pthread_equal(joinable[i].thread, thread)) {
            free_slot = i;   /* an ended thread's id, reused */
            break;
        }
        if (joinable[i].sequence == 0 && free_slot == JOINABLE_SLOTS)
            free_slot = i;
    }
    if (free_slot != JOINABLE_SLOTS)
        slot = free_slot;
    joinable[slot].thread = thread;
    joinable[slot].sequence = sequence;
    pthread_mutex_unlock(&joinable_lock);
    scorep_thread_event_generation_off = was_off;
}

void scorep_thread_joined(pthread_t thread)
{
    int was_off = scorep_thread_event_generation_off;
    scorep_event_generation_off();
    uint64_t sequence = 0;
    pthread_mutex_lock(&joinable_lock);
    for (unsigned p = 0; p < PROBE && sequence == 0; p++) {
        unsigned i = joinable_slot(thread, p);
        if (joinable[i].sequence != 0 && pthread_equal(joinable[i].thread, thread)) {
            sequence = joinable[i].sequence;
            joinable[i].sequence = 0;
        }
    }
    pthread_mutex_unlock(&joinable_lock);
    scorep_thread_event_generation_off = was_off;
    if (sequence != 0)
        scorep_thread_event(SCOREP_THREAD_WAIT, sequence);
}

void* scorep_thread_trampoline(void* p)
{
    scorep_thread_start s = *(scorep_thread_start*)p;
    scorep_thread_start_free(p);
    if (s.region == SCOREP_INVALID_ID)   /* no region (the definitions are full): unmeasured */
        return s.start(s.arg);
    /* the first event makes the thread's location: core work, not the program's */
    scorep_event_generation_off();
    start_region = s.region;
    start_sequence = s.sequence;
    start_open = 1;
    scorep_thread_event(SCOREP_THREAD_BEGIN, s.sequence);
    scorep_thread_set_creator(s.creator);
    scorep_enter_thread_start(s.region);
    scorep_event_generation_on();
    void* result = s.start(s.arg);
    scorep_thread_leave_start();
    return result;
}

void scorep_thread_leave_start(void)
{
    if (!start_open) return;
    int was_off = scorep_thread_event_generation_off;
    scorep_event_generation_off();
    start_open = 0;
    scorep_exit_thread_start(start_region);
    scorep_thread_event(SCOREP_THREAD_END, start_sequence);
    scorep_thread_event_generation_off = was_off;
}

/* The trace's lock events of a mutex (the core numbers the locks:
 * runtime/core/locks.c): recorded after the call took the mutex and
 * before the unlock gives it up, so that the lock's numbers are written
 * only by the thread that holds it. */
void scorep_thread_mutex_acquired(const pthread_mutex_t* mutex)
{
    scorep_lock_event(SCOREP_THREAD_ACQUIRE_LOCK, mutex);
}

void scorep_thread_mutex_releasing(const pthread_mutex_t* mutex)
{
    scorep_lock_event(SCOREP_THREAD_RELEASE_LOCK, mutex);
}

scorep_region scorep_thread_region_as(const scorep_libwrap_library* lib, const char* region_name,
                                      const char* file, const char* symbol, scorep_paradigm paradigm,
                                      scorep_region_role role)
{
    int was_off = scorep_thread_event_generation_off;
    scorep_event_generation_off();
    scorep_region r = scorep_libwrap_region_as(lib, region_name, file, symbol, paradigm, role);
    scorep_thread_event_generation_off = was_off;
    return r;
}
