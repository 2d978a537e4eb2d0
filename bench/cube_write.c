/* bench/cube_write (a script) runs this program: a synthetic profile of
 * <callpaths> call paths on <locations> locations (every call path visited on
 * every location: the largest table such a profile makes; with a fifth
 * argument "sparse" each call path on one location only), written as
 * profile.cubex and as profile.json into <dir>; prints the best of <repeat>
 * writing times (ms) and the sizes (bytes) as "name value" lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "internal.h"
#include "profile_cube.h"

static double now_ms(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static long long file_size(const char* path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

int main(int argc, char** argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: %s <dir> <callpaths> <locations> <repeat>\n", argv[0]);
        return 2;
    }
    const char* dir = argv[1];
    uint32_t ncp = (uint32_t)atol(argv[2]), nloc = (uint32_t)atol(argv[3]);
    int repeat = atoi(argv[4]);
    int sparse = argc > 5 && strcmp(argv[5], "sparse") == 0;
    enum { REGIONS = 200, THREADS = 8 };

    static scorep_region_def regions[REGIONS];
    static char names[REGIONS][32];
    for (int i = 0; i < REGIONS; i++) {
        snprintf(names[i], sizeof names[i], i % 4 ? "compute_kernel_%d" : "MPI_Function_%d", i);
        regions[i] = (scorep_region_def){names[i], i % 4 ? "/home/user/src/solver.c" : NULL, NULL,
                                         i % 4 ? SCOREP_PARADIGM_USER : SCOREP_PARADIGM_MPI,
                                         i % 4 ? SCOREP_ROLE_FUNCTION : SCOREP_ROLE_POINT2POINT, 0,
                                         i % 4 ? (uint32_t)(10 * i) : 0, i % 4 ? (uint32_t)(10 * i + 8) : 0,
                                         NULL};
    }
    uint32_t* rank = malloc(nloc * sizeof *rank);
    uint32_t* thread = malloc(nloc * sizeof *thread);
    uint64_t* events = calloc(nloc, sizeof *events);
    for (uint32_t l = 0; l < nloc; l++) rank[l] = l / THREADS, thread[l] = l % THREADS;
    scorep_unified_definitions defs = {.region_count = REGIONS, .regions = regions, .location_count = nloc,
                                       .location_rank = rank, .location_thread = thread,
                                       .location_event_count = events};
    scorep_report r = {.defs = &defs, .ranks = (int)((nloc + THREADS - 1) / THREADS), .timer = "tsc",
                       .start = "2026-11-25T00:00:00Z", .command = "./bench"};
    r.callpath_count = ncp;
    r.callpaths = malloc(ncp * sizeof *r.callpaths);
    srand(1);
    for (uint32_t i = 0; i < ncp; i++)
        /* a bushy tree, a few levels deep: each node's parent among the earlier ones */
        r.callpaths[i] = (scorep_report_callpath){(uint32_t)(i % REGIONS),
                                                  i == 0 ? SCOREP_INVALID_ID : (uint32_t)(rand() % (i < 64 ? i : 64 + (i - 64) / 8)),
                                                  SCOREP_INVALID_ID, 0};
    r.row_count = sparse ? ncp : (size_t)ncp * nloc;
    r.rows = calloc(r.row_count, sizeof *r.rows);
    size_t next = 0;
    for (uint32_t c = 0; c < ncp; c++)
        for (uint32_t l = 0; l < nloc; l++) {
            if (sparse && l != c % nloc) continue;
            scorep_report_row* row = &r.rows[next++];
            uint64_t visits = 1 + (uint64_t)(rand() % 1000);
            row->location = l;
            row->callpath = c;
            row->n.visits = visits;
            row->n.time_incl = visits * (1000 + (uint64_t)(rand() % 100000));
            row->n.time_min = 900 + (uint64_t)(rand() % 100);
            row->n.time_max = 100000 + (uint64_t)(rand() % 100000);
            row->time_excl = row->n.time_incl / 2;
            if (c % 4 == 0) row->n.bytes_sent = row->n.bytes_received = visits * 4096;
            if (c % 4 == 0) row->n.messages_sent = row->n.messages_received = visits;
        }
    char cube[4096], json[4096];
    snprintf(cube, sizeof cube, "%s/profile.cubex", dir);
    snprintf(json, sizeof json, "%s/profile.json", dir);
    /* wall clock and CPU time of this process (the machine may be shared) */
    double best[2][2] = {{1e30, 1e30}, {1e30, 1e30}};
    for (int k = 0; k < repeat; k++) {
        for (int which = 0; which < 2; which++) {
            double w0 = now_ms(CLOCK_MONOTONIC), c0 = now_ms(CLOCK_PROCESS_CPUTIME_ID);
            int failed = which == 0 ? scorep_report_write_cube(&r, cube) : scorep_report_write_json(&r, json);
            if (failed) return perror(which == 0 ? cube : json), 1;
            double w = now_ms(CLOCK_MONOTONIC) - w0, c = now_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
            if (w < best[which][0]) best[which][0] = w;
            if (c < best[which][1]) best[which][1] = c;
        }
    }
    printf("cube_write_ms %.1f\ncube_write_cpu_ms %.1f\njson_write_ms %.1f\njson_write_cpu_ms %.1f\n"
           "cube_bytes %lld\njson_bytes %lld\nrows %zu\n",
           best[0][0], best[0][1], best[1][0], best[1][1], file_size(cube), file_size(json), r.row_count);
    return 0;
}
