/*
 * Where spilled raw blocks go (trace_blocks.c): an unnamed file on the file
 * system of the experiment directory, the one the user chose for the trace;
 * before that exists (MPI: before MPI_Init), on the file system of the
 * directory it will be created in (SCOREP_EXPERIMENT_DIRECTORY's parent, or
 * the working directory, as at initialisation). So the process's memory stays
 * SCOREP_TOTAL_MEMORY whenever the experiment directory is created. Where
 * that file system is in memory itself (tmpfs, ramfs), a spill would only
 * move the trace from the process's memory to the file system's: spilling
 * there is refused unless SCOREP_TRACING_MAX_SIZE is set, and a full pool
 * stops the trace instead (trace_memory.c). Never in $TMPDIR: /tmp is often
 * a tmpfs.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE  /* realpath, O_TMPFILE, mkostemp with -std=c11 */
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif
#ifndef RAMFS_MAGIC
#define RAMFS_MAGIC 0x858458f6
#endif

#include "trace.h"

/* Where spilled raw blocks go: before the experiment directory exists, then
 * in it. Published by an atomic pointer: locations' threads read it while
 * the experiment directory becomes known. */
typedef struct spill_place {
    char directory[PATH_MAX];
    char refusal[PATH_MAX + 320];   /* why not, or "" */
} spill_place;
static spill_place before_directory, in_experiment;
static _Atomic(spill_place*) spill_at;

static int in_memory(const char* directory)
{
    struct statfs fs;
    return statfs(directory, &fs) == 0
           && ((unsigned long)fs.f_type == TMPFS_MAGIC || (unsigned long)fs.f_type == RAMFS_MAGIC);
}

/* 0 if directory can take spill files; then published as the place */
static int set_spill_place(spill_place* place, const char* directory, const char* what)
{
    if (access(directory, W_OK | X_OK) != 0 || realpath(directory, place->directory) == NULL)
        return -1;
    place->refusal[0] = '\0';
    if (in_memory(place->directory))
        snprintf(place->refusal, sizeof place->refusal,
                 "%s '%s' is in memory (tmpfs), where spilling them would take as much memory; "
                 "set SCOREP_TRACING_MAX_SIZE (e.g. 1G, or unlimited) to spill there all the same, "
                 "or put the experiment directory on a disk",
                 what, place->directory);
    atomic_store(&spill_at, place);
    return 0;
}

/* At initialisation: the directory the experiment directory will be created
 * in (experiment.c: SCOREP_EXPERIMENT_DIRECTORY, or a new name in the
 * working directory, which is also its fallback). */
void trace_spill_place_before_directory(void)
{
    const char* what = "the file system of the experiment directory's parent";
    const char* wanted = scorep_config_value("SCOREP_EXPERIMENT_DIRECTORY");
    char parent[PATH_MAX] = ".";
    if (wanted != NULL && wanted[0] != '\0' && strlen(wanted) < sizeof parent) {
        strcpy(parent, wanted);
        size_t n = strlen(parent);
        while (n > 1 && parent[n - 1] == '/')
            parent[--n] = '\0';
        char* slash = strrchr(parent, '/');
        if (slash == NULL)
            strcpy(parent, ".");
        else if (slash == parent)
            parent[1] = '\0';
        else
            *slash = '\0';
    }
    if (set_spill_place(&before_directory, parent, what) != 0)
        (void)set_spill_place(&before_directory, ".", what);
}

void trace_spill_place_in_experiment(const char* directory)
{
    (void)set_spill_place(&in_experiment, directory, "the experiment directory");
}

int trace_spill_open(void)
{
    spill_place* place = atomic_load(&spill_at);
    if (place == NULL) {
        errno = ENOENT;
        return -1;
    }
    /* no name at all where the file system allows it: nothing to remove,
     * even after a kill -9 */
    int fd = open(place->directory, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0)
        return fd;
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/.scorep-wrapgen-spill-XXXXXX", place->directory);
    fd = mkostemp(path, O_CLOEXEC);
    if (fd >= 0)
        unlink(path);   /* read back through the descriptor; nothing stays behind */
    return fd;
}

const char* trace_spill_refused(void)
{
    spill_place* place = atomic_load(&spill_at);
    if (place == NULL)
        return "there is no writable directory to spill them to (the working directory and the "
               "experiment directory's parent are not writable)";
    if (place->refusal[0] != '\0' && scorep_config_tracing_max_size() == 0)
        return place->refusal;
    return NULL;
}
