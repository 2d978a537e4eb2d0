/* Diagnostics on stderr (a measured child's: in its experiment's scorep.log),
 * prefixed so users can tell them from program output.
 *
 * One format for every message of the measurement (core and adapters), the
 * prefix Score-P's users know, with the rank where the process is one of
 * several:
 *
 *   [Score-P] Warning: ...                 a single process
 *   [Score-P] rank 3: Warning: ...         one rank of a parallel run
 *   [Score-P] Warning: ... (the same on all 4 ranks)
 *
 * The rank is the MPI layer's once it is registered, before that (config is
 * read before MPI_Init) the launcher's (Open MPI, MPICH/hydra, Slurm).
 * scorep_warning_all_ranks is for what every rank finds alike (the
 * environment, the filter file): rank 0 prints it once with the number of
 * ranks, the others keep quiet. Each message is one write() so that lines of
 * different ranks do not interleave. */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "messages.h"

static int env_int(const char* name, int* out)
{
    const char* v = getenv(name);
    if (!v || !*v) return 0;
    char* end;
    long n = strtol(v, &end, 10);
    if (*end || n < 0 || n > 1 << 30) return 0;
    *out = (int)n;
    return 1;
}

/* This process's rank and the number of ranks; 0 if it is not one of several. */
static int rank_and_size(int* rank, int* size)
{
    const scorep_multiprocess_ops* mp = scorep_multiprocess();
    if (mp && mp->size > 1) {
        *rank = mp->rank;
        *size = mp->size;
        return 1;
    }
    static const char* const launchers[][2] = {{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
                                               {"PMI_RANK", "PMI_SIZE"},
                                               {"SLURM_PROCID", "SLURM_NTASKS"}};
    for (size_t i = 0; i < sizeof launchers / sizeof *launchers; i++)
        if (env_int(launchers[i][0], rank) && env_int(launchers[i][1], size) && *size > 1) return 1;
    return 0;
}

/* Where messages go: stderr, or for a process that joined the run of the
 * measured process that started it (experiment.c) the file scorep.log in its
 * experiment, so that the program's stderr stays the program's. Until that
 * experiment exists they are kept here (a few lines at most: configuration
 * warnings). */
enum { TO_STDERR, KEPT, TO_LOG };
static int destination = TO_STDERR;
static int log_fd = -1;
static char kept[8192];
static size_t kept_bytes;

static void write_all(int fd, const char* text, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, text, n);
        if (w <= 0) break;
        text += w;
        n -= (size_t)w;
    }
}

void scorep_messages_to_log(void) { destination = KEPT; }

static char log_file[4200];

/* made at the first message: a child with nothing to say leaves no log */
static int open_log(void)
{
    if (log_fd < 0) log_fd = open(log_file, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    return log_fd >= 0 ? log_fd : STDERR_FILENO;
}

void scorep_messages_log_in(const char* dir)
{
    if (destination != KEPT) return;
    destination = TO_STDERR;
    if (dir) {
        snprintf(log_file, sizeof log_file, "%s/scorep.log", dir);
        destination = TO_LOG;
    }
    if (kept_bytes) write_all(destination == TO_LOG ? open_log() : STDERR_FILENO, kept, kept_bytes);
    kept_bytes = 0;
}

static void emit(const char* line)
{
    /* the measurement's own output: a preloaded --io=posix write wrapper
     * passes it through (a message may come from inside an event) */
    int generation_was_off = scorep_thread_event_generation_off;
    scorep_event_generation_off();
    size_t n = strlen(line);
    if (destination == KEPT) {
        if (kept_bytes + n <= sizeof kept) {
            memcpy(kept + kept_bytes, line, n);
            kept_bytes += n;
        }
    } else {
        write_all(destination == TO_LOG ? open_log() : STDERR_FILENO, line, n);
    }
    scorep_thread_event_generation_off = generation_was_off;
}

static void print_prefixed(const char* kind, int all_ranks, const char* format, va_list ap)
{
    char text[1024], line[1200];
    vsnprintf(text, sizeof text, format, ap);
    int rank, size;
    if (!rank_and_size(&rank, &size))
        snprintf(line, sizeof line, "[Score-P] %s%s\n", kind, text);
    else if (!all_ranks)
        snprintf(line, sizeof line, "[Score-P] rank %d: %s%s\n", rank, kind, text);
    else if (rank == 0)
        snprintf(line, sizeof line, "[Score-P] %s%s (the same on all %d ranks)\n", kind, text, size);
    else
        return;
    emit(line);
}

void scorep_warning(const char* format, ...)
{
    va_list ap;
    va_start(ap, format);
    print_prefixed("Warning: ", 0, format, ap);
    va_end(ap);
}

void scorep_warning_all_ranks(const char* format, ...)
{
    va_list ap;
    va_start(ap, format);
    print_prefixed("Warning: ", 1, format, ap);
    va_end(ap);
}

/* SCOREP_VERBOSE, as the configuration read it (config.c sets it): kept
 * here so that printing needs nothing above it */
static bool verbose;
void scorep_messages_set_verbose(bool on) { verbose = on; }

void scorep_verbose(const char* format, ...)
{
    if (!verbose) return;
    va_list ap;
    va_start(ap, format);
    print_prefixed("", 0, format, ap);
    va_end(ap);
}

