/* The experiment directory: scorep-<YYYYMMDD>_<HHMM>_<id>/ or
 * SCOREP_EXPERIMENT_DIRECTORY. Rank 0 chooses and creates it, every rank
 * learns the name. An existing directory is only replaced when
 * SCOREP_OVERWRITE_EXPERIMENT_DIRECTORY is true; otherwise, and when the
 * wanted place is not writable, a fresh name is used so that no data is
 * lost, with a warning saying where the data goes. */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

static char* directory;
static int spawned;

void scorep_experiment_spawned(void) { spawned = 1; }

const char* scorep_experiment_directory(void) { return directory; }

static int remove_entry(const char* path, const struct stat* st, int flag, struct FTW* ftw)
{
    (void)st; (void)flag; (void)ftw;
    return remove(path);
}

static int make_directory(const char* path) { return mkdir(path, 0777) == 0 ? 0 : errno; }

/* <prefix>scorep-YYYYMMDD_HHMM_<id>, created; returns 0 on success */
static int make_unique(const char* parent, const char* base, char* out, size_t size)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d_%H%M", &tm);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned long long id = ((unsigned long long)ts.tv_nsec / 1000 + (unsigned long long)getpid() * 1000003ull) % 100000000000ull;
    for (int attempt = 0; attempt < 1000; attempt++) {
        if (base)
            snprintf(out, size, "%s_%s_%llu", base, stamp, id + (unsigned)attempt);
        else
            snprintf(out, size, "%s%sscorep-%s_%llu", parent ? parent : "", parent ? "/" : "", stamp,
                     id + (unsigned)attempt);
        int err = make_directory(out);
        if (err == 0) return 0;
        if (err != EEXIST) return err;
    }
    return EEXIST;
}

static void choose_and_create(char* path, size_t size)
{
    const char* wanted = scorep_cfg.experiment_directory;
    path[0] = '\0';
    if (wanted && wanted[0]) {
        int err = make_directory(wanted);
        if (err == EEXIST && spawned) {
            /* the parent's experiment: never replaced, the children's goes inside */
            char base[PATH_MAX];
            snprintf(base, sizeof base, "%s/spawned", wanted);
            if (make_unique(NULL, base, path, size) == 0) {
                scorep_warning("SCOREP_EXPERIMENT_DIRECTORY: processes started by MPI_Comm_spawn write their "
                               "experiment inside the parent's '%s', to '%s'", wanted, path);
                return;
            }
        }
        if (err == EEXIST && scorep_cfg.overwrite_experiment_directory && !spawned) {
            nftw(wanted, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
            err = make_directory(wanted);
        }
        if (err == 0) {
            snprintf(path, size, "%s", wanted);
            return;
        }
        if (err == EEXIST) {
            if (make_unique(NULL, wanted, path, size) == 0) {
                scorep_warning("SCOREP_EXPERIMENT_DIRECTORY: '%s' exists and "
                               "SCOREP_OVERWRITE_EXPERIMENT_DIRECTORY is false; writing to '%s' instead",
                               wanted, path);
                return;
            }
        } else {
            scorep_warning("cannot create the experiment directory '%s' (SCOREP_EXPERIMENT_DIRECTORY): %s", wanted,
                           strerror(err));
        }
    }
    int err = make_unique(NULL, NULL, path, size);
    if (err == 0) {
        if (wanted && wanted[0]) scorep_warning("writing the experiment to '%s' instead", path);
        return;
    }
    const char* tmp = getenv("TMPDIR");
    if (!tmp || !tmp[0]) tmp = "/tmp";
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) strcpy(cwd, ".");
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
