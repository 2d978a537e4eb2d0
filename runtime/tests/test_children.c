/* usage: test_children MODE [ARG]
 * Shaped like the programs that measured badly: git (changes directory,
 * runs helpers through sh -c), shells (end with _exit), tools that run many
 * children. Every mode records "main" > "step" x 5 first.
 *   chdir DIR      changes into DIR (git-upload-pack, make -C), records
 *                  "step" once more there, ends normally
 *   exit           ends with _exit(0) after flushing stdout (/bin/sh does)
 *   Exit           ends with _Exit(0)
 *   spawn N        runs N children "test_children child K" (K = 1..N): the
 *                  odd ones through system(), the even ones through popen()
 *                  whose output it copies, and one more (K = N+1) through
 *                  sh -c that changes into .. first; then ends normally
 *   parallel N     starts N children "test_children child K" with popen()
 *                  at once (make -j), then copies their output in order
 *   elsewhere      runs "test_children child 2" with
 *                  SCOREP_EXPERIMENT_DIRECTORY=other set by sh -c
 *   child K        records "work" K times, prints "child K", ends with _exit
 *                  when K is odd (as the sh that runs it would)
 *   wait           prints "ready" and sleeps (to be killed)
 * It prints "experiment: <directory>" after the steps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scorep_wrapgen/adapter.h"

static scorep_region define(const char* name)
{
    return scorep_region_define(name, "test_children.c", SCOREP_PARADIGM_USER, SCOREP_ROLE_FUNCTION, NULL);
}

int main(int argc, char** argv)
{
    const char* mode = argc > 1 ? argv[1] : "chdir";
    const char* arg = argc > 2 ? argv[2] : "";
    if (strcmp(mode, "child") == 0) {
        int k = atoi(arg);
        scorep_region work = define("work");
        for (int i = 0; i < k; i++) {
            scorep_enter(work);
            scorep_exit(work);
        }
        printf("child %d\n", k);
        fflush(stdout);
        if (k % 2) _exit(0);
        return 0;
    }
    scorep_region main_r = define("main");
    scorep_region step = define("step");
    scorep_enter(main_r);
    for (int i = 0; i < 5; i++) {
        scorep_enter(step);
        scorep_exit(step);
    }
    printf("experiment: %s\n", scorep_experiment_directory() ? scorep_experiment_directory() : "(none)");
    fflush(stdout);
    int status = 0;
    if (strcmp(mode, "chdir") == 0) {
        if (chdir(arg) != 0) {
            perror(arg);
            return 2;
        }
        scorep_enter(step);
        scorep_exit(step);
    } else if (strcmp(mode, "spawn") == 0) {
        int n = atoi(arg);
        char command[8192];
        for (int k = 1; k <= n; k++) {
            snprintf(command, sizeof command, "'%s' child %d", argv[0], k);
            if (k % 2) {
                if (system(command) != 0) status = 3;
                continue;
            }
            FILE* p = popen(command, "r");
            if (!p) return 4;
            char line[128];
            while (fgets(line, sizeof line, p)) fputs(line, stdout);
            fflush(stdout);
            if (pclose(p) != 0) status = 3;
        }
        snprintf(command, sizeof command, "cd .. && '%s' child %d", argv[0], n + 1);
        if (system(command) != 0) status = 3;
    } else if (strcmp(mode, "parallel") == 0) {
        int n = atoi(arg);
        FILE* pipes[64];
        char command[8192], line[128];
        for (int k = 1; k <= n && k <= 64; k++) {
            snprintf(command, sizeof command, "'%s' child %d", argv[0], k);
            if (!(pipes[k - 1] = popen(command, "r"))) return 4;
        }
        for (int k = 1; k <= n && k <= 64; k++) {
            while (fgets(line, sizeof line, pipes[k - 1])) fputs(line, stdout);
            if (pclose(pipes[k - 1]) != 0) status = 3;
        }
    } else if (strcmp(mode, "elsewhere") == 0) {
        char command[8192];
        snprintf(command, sizeof command, "SCOREP_EXPERIMENT_DIRECTORY=other '%s' child 2", argv[0]);
        if (system(command) != 0) status = 3;
    } else if (strcmp(mode, "wait") == 0) {
        printf("ready\n");
        fflush(stdout);
        sleep(60);
    }
    scorep_exit(main_r);
    if (strcmp(mode, "exit") == 0) _exit(0);
    if (strcmp(mode, "Exit") == 0) _Exit(0);
    return status;
}
