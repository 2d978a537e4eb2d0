/*
 * The trace substrate's table and lifecycle: archive, writers, directory.
 *
 * The OTF2 archive is opened at init, before MPI_Init, because events start
 * at once; the experiment directory is created later (after MPI_Init, when
 * rank 0 has chosen its name). So the archive lives at a private path,
 * $TMPDIR/scorep-wrapgen-trace-XXXXXX/archive, which becomes a symlink to the
 * experiment directory as soon as that exists: every file OTF2 writes lands
 * in the experiment directory, with no copy at the end. Nothing but that
 * symlink and a small lock file is ever in $TMPDIR (often a tmpfs, i.e.
 * memory); what a killed run left there the next run removes.
 *
 * Spilled raw blocks (trace_blocks.c) go to an unnamed file on the file
 * system of the experiment directory, the one the user chose for the trace;
 * before that exists (MPI: before MPI_Init), on the file system of the
 * directory it will be created in (SCOREP_EXPERIMENT_DIRECTORY's parent, or
 * the working directory, as at initialisation). So the process's memory stays
 * SCOREP_TOTAL_MEMORY whenever the experiment directory is created. Where
 * that file system is in memory itself (tmpfs, ramfs), a spill would only
 * move the trace from the process's memory to the file system's: spilling
 * there is refused unless SCOREP_TRACING_MAX_SIZE is set, and a full pool
 * stops the trace instead (trace_memory.c).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE  /* mkdtemp, realpath, symlink, O_TMPFILE, mkostemp with -std=c11 */
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <unistd.h>

#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif
#ifndef RAMFS_MAGIC
#define RAMFS_MAGIC 0x858458f6
#endif

#include <otf2/OTF2_Pthread_Locks.h>

#include "trace.h"

trace_state trace;

/* Events of a location whose state could not be allocated go nowhere, with
 * one warning (trace_blocks_discard). */
static trace_location unusable_location;

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
static void choose_spill_place_before_directory(void)
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

/* The private directory's owner file: locked (flock) by the run that made
 * the directory for as long as it lives, its first line written only once
 * it is locked. A run killed with SIGKILL cannot remove its directory; the
 * next run that traces removes it, and only it: a directory of this user
 * named PRIVATE_PREFIX* holding an owner file of this user with that line
 * whose lock nobody holds (a live run holds it; one still being made has no
 * line yet), and in it nothing but that file and the archive symlink. */
#define PRIVATE_PREFIX "scorep-wrapgen-trace-"
#define OWNER_FILE ".owner"
#define OWNER_MAGIC "scorep-wrapgen trace scratch directory, locked by its run\n"

static int owner_fd = -1;

static void remove_if_abandoned(int tmp_fd, const char* name)
{
    int dir = openat(tmp_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dir < 0)
        return;
    struct stat st;
    int owner = -1;
    if (fstat(dir, &st) != 0 || st.st_uid != geteuid())
        goto done;
    owner = openat(dir, OWNER_FILE, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (owner < 0 || fstat(owner, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()
        || flock(owner, LOCK_EX | LOCK_NB) != 0)
        goto done;
    char head[sizeof OWNER_MAGIC];
    if (pread(owner, head, sizeof head - 1, 0) != (ssize_t)(sizeof head - 1)
        || memcmp(head, OWNER_MAGIC, sizeof head - 1) != 0)
        goto done;
    if (fstatat(dir, "archive", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        unlinkat(dir, "archive", 0);
    unlinkat(dir, OWNER_FILE, 0);
    unlinkat(tmp_fd, name, AT_REMOVEDIR);   /* fails, and keeps it, if anything else is inside */
done:
    if (owner >= 0)
        close(owner);
    close(dir);
}

static void remove_abandoned_private_directories(const char* tmp)
{
    DIR* d = opendir(tmp);
    if (d == NULL)
        return;
    struct dirent* e;
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, PRIVATE_PREFIX, sizeof PRIVATE_PREFIX - 1) == 0
            && (e->d_type == DT_DIR || e->d_type == DT_UNKNOWN))
            remove_if_abandoned(dirfd(d), e->d_name);
    closedir(d);
}

/* The owner file of a directory just made, locked before its line exists. */
static int own_private_directory(void)
{
    char path[sizeof trace.private_dir + sizeof OWNER_FILE + 1];
    snprintf(path, sizeof path, "%s/" OWNER_FILE, trace.private_dir);
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    if (flock(fd, LOCK_EX) != 0 || write(fd, OWNER_MAGIC, sizeof OWNER_MAGIC - 1) != (ssize_t)(sizeof OWNER_MAGIC - 1)) {
        close(fd);
        unlink(path);
        return -1;
    }
    owner_fd = fd;
    return 0;
}

void trace_private_directory_released(void)
{
    if (owner_fd < 0)
        return;
    char path[sizeof trace.private_dir + sizeof OWNER_FILE + 1];
    snprintf(path, sizeof path, "%s/" OWNER_FILE, trace.private_dir);
    unlink(path);
    close(owner_fd);
    owner_fd = -1;
}

static int open_archive(void)
{
    const char* tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    remove_abandoned_private_directories(tmp);
    int n = snprintf(trace.private_dir, sizeof trace.private_dir, "%s/" PRIVATE_PREFIX "XXXXXX", tmp);
    if (n <= 0 || (size_t)n >= sizeof trace.private_dir || mkdtemp(trace.private_dir) == NULL) {
        scorep_warning("trace: cannot create a private directory in %s: tracing is disabled", tmp);
        trace.private_dir[0] = '\0';
        return -1;
    }
    if (own_private_directory() != 0)
        scorep_warning("trace: cannot lock %s/" OWNER_FILE " (%s): if this run is killed, %s stays behind",
                       trace.private_dir, strerror(errno), trace.private_dir);
    snprintf(trace.archive_path, sizeof trace.archive_path, "%s/archive", trace.private_dir);

    uint64_t total_memory = scorep_config_total_memory();
    uint64_t chunk_size = trace_memory_chunk_size(total_memory);
    trace.archive = OTF2_Archive_Open(trace.archive_path, "traces", OTF2_FILEMODE_WRITE,
                                      chunk_size, 4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX,
                                      OTF2_COMPRESSION_NONE);
    if (trace.archive == NULL) {
        scorep_warning("trace: OTF2 cannot open an archive: tracing is disabled");
        trace_private_directory_released();
        rmdir(trace.private_dir);
        trace.private_dir[0] = '\0';
        return -1;
    }
    /* Locks guard only archive-wide state (writer creation, file opening),
     * never the per-location event path. */
    OTF2_Pthread_Archive_SetLockingCallbacks(trace.archive, NULL);
    trace_flush_install(trace.archive);
    trace_memory_install(trace.archive, total_memory, chunk_size);
    OTF2_Archive_SetCreator(trace.archive, "scorep-wrapgen");
    scorep_verbose("trace: OTF2 chunks of %llu bytes, SCOREP_TOTAL_MEMORY=%llu",
                   (unsigned long long)chunk_size, (unsigned long long)total_memory);
    return 0;
}

static int trace_init(int slot)
{
    trace.slot = slot;
    trace_program_strings_define();
    trace_handle_collectives = scorep_config_tracing_handle_collectives();
    int failed = open_archive();
    if (!failed) {  /* set explicitly: counts from the first event on */
        trace_budget_set(scorep_config_tracing_max_size());
        choose_spill_place_before_directory();
    }
    return failed;
}

/* The default SCOREP_TRACING_MAX_SIZE: half the free space of the file system
 * holding the experiment directory, for all processes of the node together
 * (they share it: trace_budget.c; runtime/README.md). Unknown: unlimited. */
static uint64_t default_max_size(const char* directory)
{
    struct statvfs fs;
    if (statvfs(directory, &fs) != 0)
        return UINT64_MAX;
    uint64_t half = (uint64_t)fs.f_bavail * (uint64_t)fs.f_frsize / 2;
    return half > 0 ? half : 1;
}

static void trace_experiment_dir_ready(const char* directory, int rank, int size)
{
    if (trace.archive == NULL)
        return;
    trace.rank = rank;
    char target[PATH_MAX];
    if (realpath(directory, target) == NULL || symlink(target, trace.archive_path) != 0) {
        scorep_warning("trace: cannot link the trace archive into %s: the trace is discarded "
                       "at the end", directory);
        return;
    }
    (void)set_spill_place(&in_experiment, target, "the experiment directory");
    const scorep_multiprocess_ops* mpp = scorep_multiprocess();
    if (mpp->size != size || mpp->rank != rank)
        scorep_warning("trace: the multi-process layer says rank %d of %d, the experiment "
                       "directory rank %d of %d", mpp->rank, mpp->size, rank, size);
    if (trace_collectives_install(trace.archive, mpp) != OTF2_SUCCESS
        || OTF2_Archive_OpenEvtFiles(trace.archive) != OTF2_SUCCESS) {
        scorep_warning("trace: OTF2 cannot open the event files in %s", directory);
        return;
    }
    if (trace_budget_share(target) != 0)
        scorep_warning("trace: cannot share the SCOREP_TRACING_MAX_SIZE budget with the other processes "
                       "of this node in %s (%s): this process counts its own events only", target,
                       strerror(errno));
    if (scorep_config_tracing_max_size() == 0)
        trace_budget_set(default_max_size(target));
    scorep_verbose("trace: at most %llu bytes of events on this node (SCOREP_TRACING_MAX_SIZE, 0: unlimited)",
                   (unsigned long long)trace_budget_bytes());
    atomic_store(&trace.directory_ready, 1);
}

static void trace_location_created(scorep_location* loc)
{
    trace_location* tl = scorep_arena_alloc(sizeof *tl);
    if (tl != NULL)
        tl->location = loc;
    if (tl == NULL || trace_blocks_init(tl) != 0) {
        scorep_warning("trace: out of memory for location %u: its events are not traced",
                       loc->local_id);
        unusable_location.location = loc;
        unusable_location.stopped = 1;
        trace_blocks_discard(&unusable_location);
        loc->substrate_data[trace.slot] = &unusable_location;
        return;
    }
    tl->next = atomic_load(&trace.locations);
    while (!atomic_compare_exchange_weak(&trace.locations, &tl->next, tl))
        ;
    loc->substrate_data[trace.slot] = tl;
}

static int trace_write_callback(const scorep_finalize_context* ctx)
{
    /* every process of the node mapped the budget before (unification comes first) */
    trace_budget_unshare();
    if (!atomic_load(&trace.directory_ready)) {
        trace_discard();
        return -1;
    }
    return trace_write(ctx);
}

static void trace_finalize(void)
{
    trace_discard();  /* only does something if write never ran */
    trace_budget_unshare();
    trace_location* tl = atomic_exchange(&trace.locations, NULL);
    while (tl != NULL) {
        trace_location* next = tl->next;
        tl->location->substrate_data[trace.slot] = NULL;
        trace_blocks_free(tl);   /* tl itself is the arena's, kept */
        tl = next;
    }
    trace_memory_release_pool();
}

const scorep_substrate* scorep_trace_substrate(void)
{
    static scorep_substrate table;
    if (table.name == NULL) {
        trace_events_fill_table(&table);
        table.init = trace_init;
        table.experiment_dir_ready = trace_experiment_dir_ready;
        table.location_created = trace_location_created;
        table.write = trace_write_callback;
        table.finalize = trace_finalize;
        table.name = "tracing";
        table.needs_event_times = 1;
        table.rma_events_carry_target = 1;
    }
    return &table;
}
