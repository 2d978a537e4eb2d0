/*
 * The archive's private directory, $TMPDIR/scorep-wrapgen-trace-XXXXXX.
 *
 * The OTF2 archive is opened at init, before MPI_Init, because events start
 * at once; the experiment directory is created later (after MPI_Init, when
 * rank 0 has chosen its name). So the archive lives at a private path,
 * trace.archive_path = <this directory>/archive, which becomes a symlink to
 * the experiment directory as soon as that exists (trace_substrate.c): every
 * file OTF2 writes lands in the experiment directory, with no copy at the
 * end. Nothing but that symlink and a small lock file is ever in $TMPDIR
 * (often a tmpfs, i.e. memory); what a killed run left there the next run
 * removes.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE  /* mkdtemp with -std=c11 */
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace.h"

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

/* the lock file removed and released, before the directory itself is */
static void release_private_directory(void)
{
    if (owner_fd < 0)
        return;
    char path[sizeof trace.private_dir + sizeof OWNER_FILE + 1];
    snprintf(path, sizeof path, "%s/" OWNER_FILE, trace.private_dir);
    unlink(path);
    close(owner_fd);
    owner_fd = -1;
}

int trace_private_directory_create(void)
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
    return 0;
}

void trace_private_directory_remove(void)
{
    if (trace.private_dir[0] == '\0')
        return;
    unlink(trace.archive_path);
    release_private_directory();
    rmdir(trace.private_dir);
    trace.private_dir[0] = '\0';
}
