/* The experiment directory: scorep-<YYYYMMDD>_<HHMM>_<id>/ or
 * SCOREP_EXPERIMENT_DIRECTORY. Rank 0 chooses and creates it, every rank
 * learns the name.
 *
 * The measurement never deletes or empties a directory. Every directory it
 * creates gets a marker file first (MARKER, holding a fixed first line and
 * who made it), and the process that created it keeps an exclusive flock on
 * the marker for as long as it lives. With SCOREP_OVERWRITE_EXPERIMENT_DIRECTORY
 * a configured directory is replaced only when it is provably an earlier,
 * finished experiment of this measurement: a real directory (not a symlink),
 * not the working directory, one of its parents, / or $HOME, holding a marker
 * that is a regular file of this user with the fixed first line, whose lock
 * nobody holds. Even then it is kept, renamed to <name>-old-<date>_<time>_<id>
 * (Score-P also renames the previous experiment). Anything else is never
 * touched: the run measures into a fresh name and one warning says where and why.
 *
 * Concurrent runs: a configured name is claimed by renaming a directory made
 * and marked under a name of its own onto it (RENAME_NOREPLACE), so nobody
 * ever sees the configured name without a whole, locked marker; only a
 * process holding the old marker's lock may rename a directory away. A new
 * marker is locked before its first line is written, so a locked one reads
 * as "in use", and one without that line as "not ours", left alone. Where
 * the file system cannot rename without replacing, mkdir claims the name,
 * and a young directory without a marker is looked at again for a while. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "config.h"
#include "experiment.h"
#include "messages.h"
#include "multiprocess.h"
#include "process_info.h"

#define MARKER ".scorep-wrapgen-experiment"
#define MARKER_MAGIC "scorep-wrapgen experiment directory\n"

static char* directory;
static int spawned;

/* The working directory when the process started: when this library was
 * loaded (linked or preloaded: before main), else when the measurement
 * started. Every name the measurement makes (the default name, a relative
 * SCOREP_EXPERIMENT_DIRECTORY) is taken relative to it, once, and kept
 * absolute: a program that changes directory (git, make -C, shells,
 * daemons) writes its profile, trace and everything else at its end into the
 * experiment made at its start, and a preloaded one whose first measured
 * call comes after a chdir (sh -c 'cd repo && ...') where it was started.
 * "" when it could not be read (then names stay relative). */
static char start_directory[PATH_MAX];

void scorep_experiment_note_working_directory(void)
{
    if (start_directory[0]) return;
    if (!getcwd(start_directory, sizeof start_directory)) start_directory[0] = '\0';
}

__attribute__((constructor)) static void note_working_directory_at_load(void)
{
    scorep_experiment_note_working_directory();
}

/* `name` made absolute against the working directory of the start */
static void absolute(const char* name, char* out, size_t size)
{
    while (name[0] == '.' && name[1] == '/') {
        name += 2;
        while (*name == '/') name++;
    }
    int n;
    if (name[0] == '/' || !start_directory[0])
        n = snprintf(out, size, "%s", name[0] ? name : ".");
    else if (!name[0] || strcmp(name, ".") == 0)
        n = snprintf(out, size, "%s", start_directory);
    else
        n = snprintf(out, size, "%s%s%s", start_directory, strcmp(start_directory, "/") == 0 ? "" : "/", name);
    if (n < 0 || (size_t)n >= size) snprintf(out, size, "%s", name);   /* too long: as given, relative */
}

void scorep_experiment_spawned(void) { spawned = 1; }

const char* scorep_experiment_directory(void) { return directory; }

/* The lock on our own marker: held (never closed) until the process ends,
 * which proves to later runs that the experiment is still being written. */
static int own_marker_fd = -1;

static void timestamp(char* out, size_t size, const char* format)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(out, size, format, &tm);
}

static unsigned long long unique_id(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ((unsigned long long)ts.tv_nsec / 1000 + (unsigned long long)getpid() * 1000003ull) % 100000000000ull;
}

/* The experiment of a measured ancestor this process joins (a child's run;
 * scorep_experiment_find_parent): its root experiment, "" if none. */
static char parent_root[PATH_MAX];

#define CONFIGURED_LINE "configured SCOREP_EXPERIMENT_DIRECTORY="
#define ROOT_LINE "child of the experiment "

/* SCOREP_EXPERIMENT_DIRECTORY as this process got it, "" when not set */
static const char* configured_raw(void)
{
    const char* v = getenv("SCOREP_EXPERIMENT_DIRECTORY");
    return v ? v : "";
}

/* Marks a directory this process has just created with mkdir. */
static void write_marker(const char* dir)
{
    char file[PATH_MAX + 64];
    snprintf(file, sizeof file, "%s/" MARKER, dir);
    int fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        scorep_warning("cannot write '%s': %s; a later run will not replace this experiment", file, strerror(errno));
        return;
    }
    /* locked before the first line exists: no one sees a complete, unlocked marker of a live run */
    if (flock(fd, LOCK_EX) != 0) {
        close(fd);
        return;
    }
    char host[256] = "?", stamp[32];
    gethostname(host, sizeof host - 1);
    timestamp(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ");
    /* the configured value and the root tell a measured child whether and
     * where it joins this run (scorep_experiment_find_parent) */
    char text[3 * PATH_MAX + 1024];
    const char* configured = configured_raw();
    /* a value with a newline cannot stand on a line: none, and no child joins */
    int one_line = strchr(configured, '\n') == NULL;
    int n = snprintf(text, sizeof text,
                     MARKER_MAGIC "created %s by process %ld on %s\n"
                     "A run with SCOREP_OVERWRITE_EXPERIMENT_DIRECTORY=true may rename this directory to "
                     "<name>-old-<date>_<time>_<id> (it never deletes it); directories without this file are never "
                     "touched.\n"
                     "%s%s%s%s%s%s",
                     stamp, (long)getpid(), host, one_line ? CONFIGURED_LINE : "", one_line ? configured : "",
                     one_line ? "\n" : "",
                     parent_root[0] ? ROOT_LINE : "", parent_root, parent_root[0] ? "\n" : "");
    if (n < 0 || (size_t)n >= sizeof text) n = (int)strlen(text);
    if (write(fd, text, (size_t)n) != n)
        scorep_warning("cannot write '%s': %s", file, strerror(errno));
    if (own_marker_fd >= 0) close(own_marker_fd);
    own_marker_fd = fd;
}

static int make_directory(const char* path)
{
    if (mkdir(path, 0777) != 0) return errno;
    write_marker(path);
    return 0;
}

/* Claims the configured name `wanted` with its marker already in it: made and
 * marked as <wanted>.creating-<pid>_<id> next to it, then renamed onto
 * `wanted` only if that name is free. What this run made is removed again
 * when the name is taken. Returns 0 or an errno, EEXIST when `wanted` exists.
 * SCOREP_EXPERIMENT_TEST_MARK_HOLD_US (test only) widens the moment between
 * making the directory and marking it, where runs started together race. */
static int claim_marked(const char* wanted)
{
    static long hold_us = -1;
    struct stat st;
    if (lstat(wanted, &st) == 0) return EEXIST;
    char staging[PATH_MAX + 64];
    snprintf(staging, sizeof staging, "%s.creating-%ld_%llu", wanted, (long)getpid(), unique_id());
    /* errors (a missing parent, no permission) are the configured name's own: mkdir tells them */
    if (mkdir(staging, 0777) != 0) return make_directory(wanted);
    scorep_test_hold("SCOREP_EXPERIMENT_TEST_MARK_HOLD_US", &hold_us);
    write_marker(staging);
    if (renameat2(AT_FDCWD, staging, AT_FDCWD, wanted, RENAME_NOREPLACE) == 0) return 0;
    int err = errno;
    char marker[PATH_MAX + 128];
    snprintf(marker, sizeof marker, "%s/" MARKER, staging);
    unlink(marker);
    rmdir(staging);
    if (own_marker_fd >= 0) close(own_marker_fd);
    own_marker_fd = -1;
    if (err == EINVAL || err == ENOSYS) return make_directory(wanted);   /* no RENAME_NOREPLACE here */
    return err == ENOTEMPTY ? EEXIST : err;
}

/* <base>_YYYYMMDD_HHMM_<id> or <parent/>scorep-YYYYMMDD_HHMM_<id> (parent NULL:
 * the working directory of the start), created; returns 0 on success */
static int make_unique(const char* parent, const char* base, char* out, size_t size)
{
    char stamp[32];
    timestamp(stamp, sizeof stamp, "%Y%m%d_%H%M");
    unsigned long long id = unique_id();
    if (!parent && !base && start_directory[0]) parent = strcmp(start_directory, "/") == 0 ? "" : start_directory;
    for (int attempt = 0; attempt < 1000; attempt++) {
        int n;
        if (base)
            n = snprintf(out, size, "%s_%s_%llu", base, stamp, id + (unsigned)attempt);
        else
            n = snprintf(out, size, "%s%sscorep-%s_%llu", parent ? parent : "", parent ? "/" : "", stamp,
                         id + (unsigned)attempt);
        if (n < 0 || (size_t)n >= size) return ENAMETOOLONG;
        int err = make_directory(out);
        if (err == 0) return 0;
        if (err != EEXIST) return err;
    }
    return EEXIST;
}

/* Is `path` the working directory (of the start, or now), one of its parents, / or $HOME? */
static int is_protected(const char* path)
{
    char real[PATH_MAX], cwd[PATH_MAX], home[PATH_MAX];
    if (!realpath(path, real)) return 0;
    if (strcmp(real, "/") == 0) return 1;
    const char* h = getenv("HOME");
    if (h && h[0] && realpath(h, home) && strcmp(real, home) == 0) return 1;
    size_t n = strlen(real);
    if (start_directory[0] && realpath(start_directory, cwd) && strncmp(cwd, real, n) == 0
        && (cwd[n] == '\0' || cwd[n] == '/'))
        return 1;
    if (!getcwd(cwd, sizeof cwd)) return 0;
    return strncmp(cwd, real, n) == 0 && (cwd[n] == '\0' || cwd[n] == '/');
}

enum verdict { OURS_FINISHED, GONE, NOT_A_DIRECTORY, SYMLINK, PROTECTED, NO_MARKER, IN_USE, UNLOCKABLE };

/* SCOREP_EXPERIMENT_TEST_LOCK_HOLD_US (test only): widens the moment between
 * opening an earlier experiment's marker and locking it, where runs started
 * together race (tests/runtime/test_experiment.py). */
static void test_pause_before_lock(void)
{
    static long hold_us = -1;
    scorep_test_hold("SCOREP_EXPERIMENT_TEST_LOCK_HOLD_US", &hold_us);
}

/* One look at the marker of the directory `path`. */
static enum verdict examine_marker(const char* path, int* lock_fd)
{
    char file[PATH_MAX + 64];
    snprintf(file, sizeof file, "%s/" MARKER, path);
    /* for writing: NFS emulates flock with POSIX locks, whose exclusive kind needs it;
     * never blocking: a FIFO named like the marker must not stop the program */
    int fd = open(file, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0 && errno == EACCES) fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return NO_MARKER;
    test_pause_before_lock();
    struct stat mst;
    if (fstat(fd, &mst) != 0 || !S_ISREG(mst.st_mode) || mst.st_uid != geteuid()) {
        close(fd);
        return NO_MARKER;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int err = errno;
        close(fd);
        return err == EWOULDBLOCK ? IN_USE : UNLOCKABLE;
    }
    char head[sizeof MARKER_MAGIC];
    ssize_t n = pread(fd, head, sizeof head - 1, 0);
    if (n != (ssize_t)(sizeof head - 1) || memcmp(head, MARKER_MAGIC, sizeof head - 1) != 0) {
        close(fd);
        return NO_MARKER;
    }
    /* The marker opened may have left `path` before its lock was had: a run
     * that renamed that finished experiment away, released the lock, and a
     * third run made `path` anew. Renaming `path` now would move that live
     * run's directory. With the lock held nobody renames the marker's
     * directory any more, so the marker still inside `path` proves it. */
    struct stat now;
    if (lstat(file, &now) != 0 || now.st_dev != mst.st_dev || now.st_ino != mst.st_ino) {
        close(fd);
        return IN_USE;
    }
    *lock_fd = fd;
    return OURS_FINISHED;
}

/* Decides whether `path` (which exists) may be renamed away; on OURS_FINISHED
 * *lock_fd holds the old marker's lock, to be kept until the rename is done. */
static enum verdict examine(const char* path, int* lock_fd)
{
    *lock_fd = -1;
    struct stat st;
    if (lstat(path, &st) != 0) return errno == ENOENT ? GONE : NO_MARKER;
    if (S_ISLNK(st.st_mode)) return SYMLINK;
    if (!S_ISDIR(st.st_mode)) return NOT_A_DIRECTORY;
    if (is_protected(path)) return PROTECTED;
    enum verdict v = examine_marker(path, lock_fd);
    /* Where mkdir claims names (no RENAME_NOREPLACE), a run started at the
     * same moment may have made the directory an instant ago and not yet
     * locked its marker: a young directory without a complete marker is looked
     * at again for up to 0.2 s, so that it reads "in use" (longer would delay
     * every run into a directory the user has just made, a batch script's
     * mkdir before the launch). */
    for (int i = 0; i < 40 && v == NO_MARKER && time(NULL) - st.st_ctime <= 2; i++) {
        struct timespec pause = {0, 5000000};
        nanosleep(&pause, NULL);
        v = examine_marker(path, lock_fd);
    }
    return v;
}

static const char* why(enum verdict v)
{
    switch (v) {
    case NOT_A_DIRECTORY: return "is not a directory";
    case SYMLINK: return "is a symbolic link";
    case PROTECTED: return "is the working directory, one of its parents, / or $HOME";
    case NO_MARKER: return "is not an experiment directory of this measurement (no " MARKER " marker of this user)";
    case IN_USE: return "is the experiment of a measurement that is still running";
    case UNLOCKABLE: return "could not be proven finished (its " MARKER " cannot be locked here)";
    default: return "";
    }
}

/* <old>-old-YYYYMMDD_HHMMSS_<id>, never over an existing name */
static int keep_previous(const char* old, char* kept, size_t size)
{
    char stamp[32];
    timestamp(stamp, sizeof stamp, "%Y%m%d_%H%M%S");
    unsigned long long id = unique_id();
    for (int attempt = 0; attempt < 100; attempt++) {
        snprintf(kept, size, "%s-old-%s_%llu", old, stamp, id + (unsigned)attempt);
        if (renameat2(AT_FDCWD, old, AT_FDCWD, kept, RENAME_NOREPLACE) == 0) return 0;
        if (errno == EINVAL || errno == ENOSYS) {
            /* file system without RENAME_NOREPLACE: the name holds pid and time, check then rename */
            struct stat st;
            if (lstat(kept, &st) == 0) continue;
            if (rename(old, kept) == 0) return 0;
        }
        if (errno != EEXIST && errno != ENOTEMPTY) return errno;
    }
    return EEXIST;
}

/* SCOREP_EXPERIMENT_DIRECTORY as the user wrote it (trailing slashes aside), for messages */
static char configured_name[PATH_MAX];

/* Where the configured `wanted` exists and cannot be used: a fresh name, and the warning. */
static int fresh_instead(const char* wanted, const char* reason, int is_place_of_user, char* path, size_t size)
{
    /* for '.', '..', '/' or $HOME a sibling like "._<date>" would be hidden or misplaced:
     * the default name in the working directory is where Score-P's users look */
    int err = is_place_of_user ? make_unique(NULL, NULL, path, size) : make_unique(NULL, wanted, path, size);
    if (err == 0)
        scorep_warning("SCOREP_EXPERIMENT_DIRECTORY '%s' %s; nothing in it was changed; the experiment is written "
                       "to '%s' instead",
                       configured_name, reason, path);
    return err;
}

/* Returns 0 when `path` holds a directory created for this run, else an errno. */
static int use_configured(const char* wanted, char* path, size_t size)
{
    for (int round = 0; round < 2; round++) {
        int err = claim_marked(wanted);
        if (err == 0) {
            snprintf(path, size, "%s", wanted);
            return 0;
        }
        if (err != EEXIST) {
            scorep_warning("cannot create the experiment directory '%s' (SCOREP_EXPERIMENT_DIRECTORY): %s", wanted,
                           strerror(err));   /* absolute: where it was tried */
            return err;
        }
        int lock_fd;
        enum verdict v = examine(wanted, &lock_fd);
        if (v == GONE) continue;   /* renamed away by another run since: the name is free again */
        if (spawned && (v == IN_USE || v == OURS_FINISHED)) {
            /* the parent's experiment: never replaced, the children's goes inside */
            if (lock_fd >= 0) close(lock_fd);
            char base[PATH_MAX];
            snprintf(base, sizeof base, "%s/spawned", wanted);
            if (make_unique(NULL, base, path, size) == 0) {
                scorep_warning("SCOREP_EXPERIMENT_DIRECTORY: processes started by MPI_Comm_spawn write their "
                               "experiment inside the parent's '%s', to '%s'",
                               wanted, path);
                return 0;
            }
            return fresh_instead(wanted, "cannot hold the experiment of the spawned processes", 0, path, size);
        }
        if (spawned) return fresh_instead(wanted, why(v), v == PROTECTED, path, size);
        if (!scorep_cfg.overwrite_experiment_directory) {
            if (lock_fd >= 0) close(lock_fd);
            return fresh_instead(wanted, "exists and SCOREP_OVERWRITE_EXPERIMENT_DIRECTORY is false", v == PROTECTED,
                                 path, size);
        }
        if (v != OURS_FINISHED) return fresh_instead(wanted, why(v), v == PROTECTED, path, size);
        char kept[PATH_MAX];
        err = keep_previous(wanted, kept, sizeof kept);
        close(lock_fd);
        if (err != 0) {
            char reason[PATH_MAX + 64];
            snprintf(reason, sizeof reason, "is an earlier experiment that could not be renamed (%s)", strerror(err));
            return fresh_instead(wanted, reason, 0, path, size);
        }
        scorep_warning("SCOREP_OVERWRITE_EXPERIMENT_DIRECTORY: the previous experiment '%s' is kept as '%s'", wanted,
                       kept);
        /* another run may have taken the name in between: examined again, it is in use */
    }
    return fresh_instead(wanted, why(IN_USE), 0, path, size);
}

/* "e/" -> "e": a trailing slash would follow a symlink and put siblings inside */
static void strip_trailing_slashes(char* s)
{
    size_t n = strlen(s);
    while (n > 1 && s[n - 1] == '/') s[--n] = '\0';
}

/* ---- children of a measured process ----
 * A measured process that a measured process (or its descendants) started
 * joins that run instead of starting one of its own: its experiment is
 * <root>/children/<N>_<program>/, numbered in the order the children
 * started, and <root>/children.txt names each with its pid, its parent's
 * and its command line. Its messages go to scorep.log in its own
 * experiment, never onto the program's stderr (a program relays its
 * children's stderr: git prints it as "remote: ..."). It joins when an
 * ancestor holds the lock on an experiment's marker (the ancestor is found
 * through /proc/<pid>/fd, so nothing is added to the program's environment
 * or written elsewhere) and both got the same SCOREP_EXPERIMENT_DIRECTORY
 * (a child told to measure elsewhere is a run of its own). Not for MPI
 * processes: their ranks make one experiment together. */

static pid_t parent_of(pid_t pid)
{
    char file[64], text[1024];
    snprintf(file, sizeof file, "/proc/%ld/stat", (long)pid);
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0) return 0;
    text[n] = '\0';
    const char* after = strrchr(text, ')');   /* the command name may hold anything */
    long ppid = 0;
    if (!after || sscanf(after + 1, " %*c %ld", &ppid) != 1) return 0;
    return (pid_t)ppid;
}

/* The experiment whose marker `pid` holds open, into `dir`; 0 if none. */
static int held_experiment(pid_t pid, char* dir, size_t size)
{
    char fds[64];
    snprintf(fds, sizeof fds, "/proc/%ld/fd", (long)pid);
    DIR* d = opendir(fds);
    if (!d) return 0;
    int found = 0;
    struct dirent* e;
    while (!found && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char link[64 + sizeof e->d_name], target[PATH_MAX];
        snprintf(link, sizeof link, "%s/%s", fds, e->d_name);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n <= 0) continue;
        target[n] = '\0';
        size_t suffix = sizeof "/" MARKER - 1;
        if ((size_t)n > suffix && target[0] == '/' && strcmp(target + n - suffix, "/" MARKER) == 0) {
            target[n - suffix] = '\0';
            snprintf(dir, size, "%s", target);
            found = 1;
        }
    }
    closedir(d);
    return found;
}

/* A marker's line starting with `key`, the rest into out; 0 if none. */
static int marker_line(const char* text, const char* key, char* out, size_t size)
{
    size_t k = strlen(key);
    for (const char* line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, key, k) != 0) continue;
        const char* end = strchr(line + k, '\n');
        size_t n = end ? (size_t)(end - line - k) : strlen(line + k);
        if (n >= size) return 0;
        memcpy(out, line + k, n);
        out[n] = '\0';
        return 1;
    }
    return 0;
}

int scorep_experiment_find_parent(void)
{
    parent_root[0] = '\0';
    if (scorep_multiprocess_is_expected()) return 0;
    char dir[PATH_MAX];
    pid_t pid = getppid();
    for (int depth = 0; depth < 64 && pid > 1; depth++, pid = parent_of(pid)) {
        if (!held_experiment(pid, dir, sizeof dir)) continue;
        char file[PATH_MAX + 64], text[4 * PATH_MAX];
        snprintf(file, sizeof file, "%s/" MARKER, dir);
        int fd = open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        struct stat st;
        if (fd < 0) return 0;
        ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid()
                        ? read(fd, text, sizeof text - 1)
                        : -1;
        close(fd);
        if (n < (ssize_t)(sizeof MARKER_MAGIC - 1) || memcmp(text, MARKER_MAGIC, sizeof MARKER_MAGIC - 1) != 0)
            return 0;
        text[n] = '\0';
        char configured[PATH_MAX];
        /* the nearest measured ancestor decides: told the same, it joins; else a run of its own */
        if (!marker_line(text, CONFIGURED_LINE, configured, sizeof configured)
            || strcmp(configured, configured_raw()) != 0)
            return 0;
        if (!marker_line(text, ROOT_LINE, parent_root, sizeof parent_root))
            snprintf(parent_root, sizeof parent_root, "%s", dir);
        return 1;
    }
    return 0;
}

/* <root>/children/<N>_<program>, created and marked, listed in
 * <root>/children.txt; returns 0 on success */
static int join_parent(char* path, size_t size)
{
    char children[PATH_MAX + 16], file[PATH_MAX + 32];
    snprintf(children, sizeof children, "%s/children", parent_root);
    struct stat st;
    if (mkdir(children, 0777) != 0 && errno != EEXIST) return errno;
    /* the root is the measurement's; what is there under that name must be its directory */
    if (lstat(children, &st) != 0 || !S_ISDIR(st.st_mode)) return ENOTDIR;
    /* the number: one byte appended per child, the offset after it (O_APPEND
     * makes finding the end and writing one step) */
    snprintf(file, sizeof file, "%s/.count", children);
    int fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    long number = -1;
    if (fd >= 0) {
        if (write(fd, "x", 1) == 1) number = (long)lseek(fd, 0, SEEK_CUR);
        close(fd);
    }
    const char* program = scorep_process_executable_base_name();
    int err = EEXIST;
    for (int attempt = 0; attempt < 100 && err == EEXIST; attempt++) {
        int n;
        if (number > 0 && attempt == 0)
            n = snprintf(path, size, "%s/%ld_%s", children, number, program);
        else
            n = snprintf(path, size, "%s/%ld_%s_%ld_%d", children, number > 0 ? number : 0L, program,
                         (long)getpid(), attempt);
        if (n < 0 || (size_t)n >= size) return ENAMETOOLONG;
        err = make_directory(path);
    }
    if (err != 0) return err;
    /* one write per line: lines of children ending together do not mix */
    char line[4096];
    const char* slash = strrchr(path, '/');
    int n = snprintf(line, sizeof line, "children/%s\tpid %ld\tparent %ld\t%s", slash + 1, (long)getpid(),
                     (long)getppid(), scorep_process_command_line());
    if (n < 0 || (size_t)n >= sizeof line - 1) n = (int)sizeof line - 2;
    for (int i = 0; i < n; i++)
        if (line[i] == '\n') line[i] = ' ';
    line[n++] = '\n';
    snprintf(file, sizeof file, "%s/children.txt", parent_root);
    fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 || write(fd, line, (size_t)n) != n)
        scorep_warning("cannot list this experiment in '%s': %s", file, strerror(errno));
    if (fd >= 0) close(fd);
    return 0;
}

static void choose_and_create(char* path, size_t size)
{
    path[0] = '\0';
    if (parent_root[0]) {
        int err = join_parent(path, size);
        if (err == 0) {
            scorep_messages_log_in(path);
            return;
        }
        scorep_messages_log_in(NULL);
        scorep_warning("cannot join the experiment '%s' of the measured process that started this one: %s; "
                       "measuring into an experiment of its own",
                       parent_root, strerror(err));
        parent_root[0] = '\0';
    }
    char wanted[PATH_MAX] = "";
    if (scorep_cfg.experiment_directory && scorep_cfg.experiment_directory[0])
        absolute(scorep_cfg.experiment_directory, wanted, sizeof wanted);
    strip_trailing_slashes(wanted);
    snprintf(configured_name, sizeof configured_name, "%s",
             scorep_cfg.experiment_directory ? scorep_cfg.experiment_directory : "");
    strip_trailing_slashes(configured_name);
    int err = 0;
    if (wanted[0]) {
        err = use_configured(wanted, path, size);
        if (err == 0) return;
    }
    if (err != EEXIST) {
        err = make_unique(NULL, NULL, path, size);
        if (err == 0) {
            if (wanted[0]) scorep_warning("writing the experiment to '%s' instead", path);
            return;
        }
    }
    const char* tmp = getenv("TMPDIR");
    if (!tmp || !tmp[0]) tmp = "/tmp";
    char cwd[PATH_MAX];
    absolute(".", cwd, sizeof cwd);
    scorep_warning("cannot create an experiment directory in '%s': %s; trying '%s'", cwd, strerror(err), tmp);
    if (make_unique(tmp, NULL, path, size) == 0) {
        scorep_warning("writing the experiment to '%s'", path);
        return;
    }
    scorep_warning("no experiment directory could be created: the measurement data cannot be written");
    path[0] = '\0';
}

static void write_config_file(const char* dir)
{
    char file[PATH_MAX + 32];
    snprintf(file, sizeof file, "%s/scorep.cfg", dir);
    FILE* f = fopen(file, "w");
    if (!f) {
        scorep_warning("cannot write '%s': %s", file, strerror(errno));
        return;
    }
    fprintf(f, "# effective configuration of this measurement\n");
    scorep_config_write(f);
    fclose(f);
}

const char* scorep_experiment_create(void)
{
    if (directory) return directory;
    const scorep_multiprocess_ops* mp = scorep_multiprocess();
    char path[PATH_MAX];
    if (mp->rank == 0) {
        choose_and_create(path, sizeof path);
        if (path[0]) write_config_file(path);
    }
    mp->bcast(path, sizeof path, 0);
    if (path[0]) {
        directory = strdup(path);
        scorep_verbose("experiment directory: %s", directory);
        /* the other ranks hold the marker open too (without its lock, which
         * is rank 0's): a measured program a rank starts finds the
         * experiment through them and joins it (scorep_experiment_find_parent) */
        if (mp->rank != 0 && own_marker_fd < 0) {
            char file[PATH_MAX + 64];
            snprintf(file, sizeof file, "%s/" MARKER, directory);
            own_marker_fd = open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        }
    }
    return directory;
}

/* After an abnormal end on a process whose ranks never agreed on a directory. */
const char* scorep_experiment_create_local(void)
{
    if (directory) return directory;
    char path[PATH_MAX];
    choose_and_create(path, sizeof path);
    if (path[0]) {
        write_config_file(path);
        directory = strdup(path);
    }
    return directory;
}
