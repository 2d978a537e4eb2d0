/* The support header of the generated system adapters (generated/io/, from
 * tasks/posix_io.json and tasks/isoc_io.json by generator/system_backend.py):
 * what their wrappers and task snippets (tasks/io_*.c.j2) need besides the
 * library wrapper API.
 *
 * The declarations are the system's own: the same headers and feature macros
 * the catalogues' header front-end scanned ("header" in tasks/posix_io.json,
 * tasks/isoc_io.json), so the types of the wrappers' parameters (__off_t,
 * mode_t, struct iovec, FILE, fpos64_t) are the ones the program was
 * compiled against.
 *
 * What the measurement itself does (starting, spilling trace buffers,
 * writing the experiment) runs with event generation off on its thread
 * (lifecycle.c, trace/trace_blocks.c): the wrappers' recording test
 * (scorep_libwrap_should_record) sends those calls straight to the C library,
 * so they neither recurse into the measurement nor show up in its data. */
#ifndef SCOREP_IO_ADAPTER_H
#define SCOREP_IO_ADAPTER_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#ifndef _LARGEFILE64_SOURCE
#define _LARGEFILE64_SOURCE
#endif
/* the wrappers define the plain symbols (open, read, fprintf, ...): no
 * fortified inline versions of them in this translation unit */
#undef _FORTIFY_SOURCE

#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>   /* strlen: the bytes of fputs, puts, fgets */
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

/* Inside an MPI-IO call (MPI_File_*) the MPI adapter leaves event generation
 * off but for the I/O adapters (SCOREP_EVENT_GENERATION_OFF_BUT_IO): their
 * wrappers record the POSIX / ISO C calls the MPI library makes for the
 * file, nested under the MPI call. Bit 0 (off for all: the measurement's
 * own work) and SCOREP_EVENT_GENERATION_OFF_BUT_AIO (inside other MPI calls)
 * still stop them; the aio wrappers open the latter for themselves
 * (scorep_io_aio_gate_open). Defined before libwrap.h (included below; the
 * generated wrappers include this header first). */
#ifdef SCOREP_WRAPGEN_LIBWRAP_H
#error "scorep_io_adapter.h must come before scorep_wrapgen/libwrap.h"
#endif
#define SCOREP_LIBWRAP_GATE_MASK (1 | SCOREP_EVENT_GENERATION_OFF_BUT_AIO)

#include <scorep_wrapgen/adapter.h>   /* scorep_io_bytes, scorep_io_handle_define, ... */
#include <scorep_wrapgen/libwrap.h>   /* scorep_libwrap_thread_depth (scorep_io_end) */
#include <scorep_wrapgen/io_async.h>  /* scorep_io_aio_begin, ... (the aio wrappers) */

/* ---- I/O handles: the trace's IoHandle per open file (docs/IO_ADAPTER.md) ----
 *
 * The handle of each open descriptor is the core's, one table per paradigm
 * (adapter.h: scorep_io_fd_handles): POSIX calls index the POSIX table with
 * their fd, ISO C calls the ISO C table with fileno(stream). A transfer
 * looks its handle up with one load, no lock and no allocation; only an open
 * defines (lock, copy of the name). stdin, stdout and stderr (descriptors
 * 0, 1, 2) get pre-created handles named so at their first transfer (unless
 * the program closed them before). Other descriptors the program did not
 * open through a wrapper (those opened before the measurement or by
 * unwrapped calls) and those beyond SCOREP_IO_MAX_FD have no handle: their
 * calls are recorded as regions with their bytes, without I/O records. */
/* matching ids, per thread; initial-exec as the core's thread-locals: no
 * __tls_get_addr call per transfer in the shared wrapper library */
static __thread uint64_t scorep_io_next_match __attribute__((tls_model("initial-exec")));

/* The handle descriptor fd has now in paradigm, or SCOREP_INVALID_ID. */
static inline scorep_io_handle scorep_io_handle_at(scorep_io_paradigm paradigm, int fd)
{
    if ((unsigned)fd >= SCOREP_IO_MAX_FD)
        return SCOREP_INVALID_ID;
    return __atomic_load_n(&scorep_io_fd_handles[paradigm][fd], __ATOMIC_RELAXED) - 1;
}

/* stdin, stdout or stderr at its first transfer: its pre-created handle
 * (a lock, once per descriptor and paradigm); a thread racing on it gets
 * the same one. */
static __attribute__((noinline, cold)) scorep_io_handle scorep_io_std_handle(scorep_io_paradigm paradigm, int fd)
{
    static const char* const names[3] = {"stdin", "stdout", "stderr"};
    scorep_io_handle handle = scorep_io_handle_define_pre_created(paradigm, names[fd],
                                                                  fd == 0 ? SCOREP_IO_READ_ONLY : SCOREP_IO_WRITE_ONLY);
    uint32_t none = 0;
    __atomic_compare_exchange_n(&scorep_io_fd_handles[paradigm][fd], &none, handle + 1, 0, __ATOMIC_RELAXED,
                                __ATOMIC_RELAXED);
    return scorep_io_handle_at(paradigm, fd);
}

/* The handle of a transfer's descriptor (a standard one's made at its first use). */
static inline scorep_io_handle scorep_io_handle_in(scorep_io_paradigm paradigm, int fd)
{
    scorep_io_handle handle = scorep_io_handle_at(paradigm, fd);
    if (__builtin_expect(handle == SCOREP_INVALID_ID && (unsigned)fd <= 2, 0) &&
        !scorep_io_std_closed[paradigm][fd])
        return scorep_io_std_handle(paradigm, fd);
    return handle;
}

static inline scorep_io_handle scorep_io_handle_of(int fd)
{
    return scorep_io_handle_in(SCOREP_IO_PARADIGM_POSIX, fd);
}

static inline scorep_io_handle scorep_io_handle_of_stream(FILE* stream)
{
    return stream != NULL ? scorep_io_handle_in(SCOREP_IO_PARADIGM_ISOC, fileno(stream)) : SCOREP_INVALID_ID;
}

static inline scorep_io_access scorep_io_access_of_flags(int flags)
{
    switch (flags & O_ACCMODE) {
    case O_RDONLY: return SCOREP_IO_READ_ONLY;
    case O_WRONLY: return SCOREP_IO_WRITE_ONLY;
    default: return SCOREP_IO_READ_WRITE;
    }
}

/* fopen's mode: "r" reads, "w" and "a" write, a "+" anywhere does both */
static inline scorep_io_access scorep_io_access_of_mode(const char* mode)
{
    if (mode == NULL)
        return SCOREP_IO_READ_WRITE;
    if (strchr(mode, '+') != NULL)
        return SCOREP_IO_READ_WRITE;
    return mode[0] == 'r' ? SCOREP_IO_READ_ONLY : SCOREP_IO_WRITE_ONLY;
}

/* open's flags beyond the access mode, as scorep_io_open_flag bits */
static inline uint32_t scorep_io_open_flags_of_flags(int flags)
{
    static const struct { int os; uint32_t ours; } map[] = {
        {O_CREAT, SCOREP_IO_CREATE}, {O_TRUNC, SCOREP_IO_TRUNCATE}, {O_EXCL, SCOREP_IO_EXCLUSIVE},
        {O_DIRECTORY, SCOREP_IO_DIRECTORY}, {O_NOFOLLOW, SCOREP_IO_NO_FOLLOW},
        {O_NOCTTY, SCOREP_IO_NO_CONTROLLING_TERMINAL}, {O_APPEND, SCOREP_IO_APPEND},
        {O_CLOEXEC, SCOREP_IO_CLOSE_ON_EXEC}, {O_NONBLOCK, SCOREP_IO_NON_BLOCKING},
        {O_DSYNC, SCOREP_IO_DATA_SYNC}, {O_DIRECT, SCOREP_IO_AVOID_CACHING},
        {O_NOATIME, SCOREP_IO_NO_ACCESS_TIME}, {O_ASYNC, SCOREP_IO_ASYNC}, {O_PATH, SCOREP_IO_PATH},
    };
    uint32_t ours = 0;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if ((flags & map[i].os) == map[i].os) ours |= map[i].ours;
    /* O_SYNC includes O_DSYNC's bit; O_TMPFILE includes O_DIRECTORY's */
    if ((flags & O_SYNC) == O_SYNC) ours |= SCOREP_IO_SYNC;
    if ((flags & O_TMPFILE) == O_TMPFILE) ours = (ours & ~(uint32_t)SCOREP_IO_DIRECTORY) | SCOREP_IO_TEMPORARY_FILE;
    return ours;
}

/* fopen's mode as the flags glibc opens the file with: "w" creates and
 * truncates, "a" creates and appends, "x" excludes, "e" closes on exec */
static inline uint32_t scorep_io_open_flags_of_mode(const char* mode)
{
    if (mode == NULL)
        return 0;
    uint32_t ours = mode[0] == 'w' ? SCOREP_IO_CREATE | SCOREP_IO_TRUNCATE
                  : mode[0] == 'a' ? SCOREP_IO_CREATE | SCOREP_IO_APPEND : 0;
    /* the modifiers stop at a ',' (glibc's ",ccs=") */
    for (const char* c = mode + 1; *c != '\0' && *c != ','; c++) {
        if (*c == 'x') ours |= SCOREP_IO_EXCLUSIVE;
        if (*c == 'e') ours |= SCOREP_IO_CLOSE_ON_EXEC;
    }
    return ours;
}

/* An open succeeded with descriptor fd (-1: it failed): the file's handle,
 * and its IoCreateHandle. name NULL: the name the descriptor's handle has
 * (fdopen of a descriptor opened with open), else the name the descriptor
 * has now. A stream's open (paradigm ISO C) whose descriptor has no POSIX
 * handle yet (fopen's, not fdopen's of a descriptor opened with open) gives
 * the descriptor one too, under the stream's, and records its
 * IoCreateHandle first, as Score-P does. */
static inline void scorep_io_opened(scorep_io_paradigm paradigm, int fd, const char* name, scorep_io_access mode,
                                    uint32_t open_flags)
{
    if ((unsigned)fd >= SCOREP_IO_MAX_FD)
        return;
    scorep_io_handle descriptor = scorep_io_handle_at(SCOREP_IO_PARADIGM_POSIX, fd);
    if (name == NULL && paradigm == SCOREP_IO_PARADIGM_ISOC && descriptor != SCOREP_INVALID_ID) {
        scorep_io_handle handle = scorep_io_handle_define_same_file(paradigm, descriptor);
        __atomic_store_n(&scorep_io_fd_handles[paradigm][fd], handle + 1, __ATOMIC_RELAXED);
        scorep_io_create_handle(handle, mode, open_flags);
        return;
    }
    char link[4096];
    if (name == NULL) {
        char proc[64];
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(proc, link, sizeof link - 1);
        link[n > 0 ? n : 0] = '\0';
        name = n > 0 ? link : NULL;
    }
    scorep_io_handle handle = scorep_io_handle_define(paradigm, name);
    if (paradigm == SCOREP_IO_PARADIGM_ISOC && descriptor == SCOREP_INVALID_ID) {
        scorep_io_handle under = scorep_io_handle_define_under_stream(name);
        __atomic_store_n(&scorep_io_fd_handles[SCOREP_IO_PARADIGM_POSIX][fd], under + 1, __ATOMIC_RELAXED);
        scorep_io_create_handle(under, mode, open_flags);
    }
    __atomic_store_n(&scorep_io_fd_handles[paradigm][fd], handle + 1, __ATOMIC_RELAXED);
    scorep_io_create_handle(handle, mode, open_flags);
}

/* A close of fd succeeded: the handle it had in paradigm when the close
 * began ends (unless another thread's open took the descriptor meanwhile).
 * A stream's close closes its descriptor: the descriptor's POSIX handle
 * ends first, as in Score-P. */
static inline void scorep_io_closed_in(scorep_io_paradigm paradigm, int fd, scorep_io_handle handle)
{
    if ((unsigned)fd <= 2)
        scorep_io_std_closed[paradigm][fd] = 1;
    if (handle == SCOREP_INVALID_ID)
        return;
    uint32_t expected = handle + 1;
    __atomic_compare_exchange_n(&scorep_io_fd_handles[paradigm][fd], &expected, 0, 0, __ATOMIC_RELAXED,
                                __ATOMIC_RELAXED);
    scorep_io_destroy_handle(handle);
}

static inline void scorep_io_closed(scorep_io_paradigm paradigm, int fd, scorep_io_handle handle,
                                    scorep_io_handle descriptor_handle)
{
    if (paradigm == SCOREP_IO_PARADIGM_ISOC)
        scorep_io_closed_in(SCOREP_IO_PARADIGM_POSIX, fd, descriptor_handle);
    scorep_io_closed_in(paradigm, fd, handle);
}

/* A duplication succeeded (dup, dup2, dup3, fcntl F_DUPFD: tasks/io_handle_dup.c.j2):
 * descriptor newfd now refers to the open file descriptor fd had, whose
 * handle was `old` when the call began. newfd gets a handle of its own on
 * the same file (scorep_io_handle_define_duplicate) and the trace an
 * IoDuplicateHandle: later transfers on newfd count for that file.
 * `replaced` is the handle newfd had when the call began: dup2 and dup3
 * close it first, so it ends (IoDestroyHandle). A descriptor without a
 * handle (a pipe, one opened before the measurement) has none to duplicate:
 * newfd has none either. dup2 of a descriptor onto itself changes nothing. */
static inline void scorep_io_duplicated(int fd, scorep_io_handle old, int newfd, scorep_io_handle replaced,
                                        int close_on_exec)
{
    if (newfd == fd || (unsigned)newfd >= SCOREP_IO_MAX_FD)
        return;
    /* a standard descriptor redirected: no pre-created handle for it again */
    if ((unsigned)newfd <= 2)
        scorep_io_std_closed[SCOREP_IO_PARADIGM_POSIX][newfd] = 1;
    if (replaced != SCOREP_INVALID_ID)
        scorep_io_destroy_handle(replaced);
    scorep_io_handle handle = old != SCOREP_INVALID_ID ? scorep_io_handle_define_duplicate(old, newfd)
                                                       : SCOREP_INVALID_ID;
    __atomic_store_n(&scorep_io_fd_handles[SCOREP_IO_PARADIGM_POSIX][newfd], handle + 1, __ATOMIC_RELAXED);
    if (handle != SCOREP_INVALID_ID)
        scorep_io_duplicate_handle(old, handle, close_on_exec);
}

/* The end of a recorded transfer (tasks/io_operation.c.j2, in place of
 * scorep_libwrap_end): its bytes done, its IoOperationComplete on a handle
 * and the region's exit in one call into the core, then the thread's
 * library-call depth as scorep_libwrap_end leaves it. */
static inline void scorep_io_end(scorep_region region, scorep_io_handle handle, scorep_io_operation mode,
                                 uint64_t bytes_done, uint64_t matching_id)
{
    scorep_io_transfer_exit(region, handle, mode, bytes_done, matching_id);
    scorep_libwrap_thread_depth--;
}

/* ---- POSIX aio (tasks/io_aio.c.j2, docs/IO_ADAPTER.md "Asynchronous I/O") ----
 *
 * Inside an MPI call other than MPI-IO event generation is off but for the
 * aio wrappers (SCOREP_EVENT_GENERATION_OFF_BUT_AIO), which the gate mask
 * above closes for every wrapper of this file: an aio wrapper opens it for
 * its own call, as inside an MPI-IO call, before the skeleton's recording
 * test, and closes it again when it returns (a cleanup variable: the
 * skeleton's pass-through path returns early). What the C library does
 * inside the aio call is at library-call depth 1: not recorded. */
static inline int scorep_io_aio_gate_open(void)
{
    int was = scorep_thread_event_generation_off;
    if (was == SCOREP_EVENT_GENERATION_OFF_BUT_AIO)
        scorep_thread_event_generation_off = SCOREP_EVENT_GENERATION_OFF_BUT_IO;
    return was;
}

static inline void scorep_io_aio_gate_close(const int* was)
{
    if (*was == SCOREP_EVENT_GENERATION_OFF_BUT_AIO)
        scorep_thread_event_generation_off = *was;
}

/* aio_error inside an MPI call is the MPI library polling an operation it
 * progresses (thousands of times per request): not recorded inside any MPI
 * call. Inside other MPI calls the gate mask closes it already; inside an
 * MPI-IO call (a split collective's _end, MPI_File_close, MPI_File_sync)
 * this closes it for aio_error's own call as there, and opens it again
 * when the call returns. */
static inline int scorep_io_aio_poll_gate_close(void)
{
    int was = scorep_thread_event_generation_off;
    if (was == SCOREP_EVENT_GENERATION_OFF_BUT_IO)
        scorep_thread_event_generation_off = SCOREP_EVENT_GENERATION_OFF_BUT_AIO;
    return was;
}

static inline void scorep_io_aio_poll_gate_open(const int* was)
{
    if (*was == SCOREP_EVENT_GENERATION_OFF_BUT_IO)
        scorep_thread_event_generation_off = *was;
}

static inline uint64_t scorep_io_iov_bytes(const struct iovec* iov, int iovcnt)
{
    uint64_t bytes = 0;
    for (int i = 0; i < iovcnt; i++)
        bytes += iov[i].iov_len;
    return bytes;
}

#endif /* SCOREP_IO_ADAPTER_H */
