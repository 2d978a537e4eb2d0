/* A program that forks without exec: its children must not write into its
 * experiment. Modes:
 *   outlive MARKER  one child that outlives the parent: it works, waits for
 *                   the parent to end, then writes its pid into MARKER and
 *                   exits with 3
 *   repeat          10 x (fork, the child works and exits with its number),
 *                   3 x system("echo ..."), 3 x popen("echo ...")
 *   bench N         timing: N x fork()+_exit, N x fork()+exit, N x system("true")
 * The parent calls step() 5 times before and 5 times after. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) static void step(int i) { sink += i; }
__attribute__((noinline)) static void child_work(int i) { sink -= i; }

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char** argv)
{
    const char* mode = argc > 1 ? argv[1] : "repeat";
    for (int i = 0; i < 5; i++) step(i);
    if (strcmp(mode, "outlive") == 0) {
        pid_t parent = getpid();
        if (fork() == 0) {
            child_work(1);
            while (getppid() == parent) usleep(10000);
            usleep(100000);  /* the parent's exit handlers have run */
            child_work(2);
            FILE* marker = fopen(argv[2], "w");
            if (marker) {
                fprintf(marker, "%d\n", (int)getpid());
                fclose(marker);
            }
            exit(3);
        }
    } else if (strcmp(mode, "repeat") == 0) {
        for (int k = 0; k < 10; k++) {
            pid_t pid = fork();
            if (pid == 0) {
                child_work(k);
                exit(k);
            }
            int status;
            waitpid(pid, &status, 0);
            printf("child %d exited %d\n", k, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        }
        for (int k = 0; k < 3; k++) {
            char command[64];
            snprintf(command, sizeof command, "echo system %d", k);
            fflush(stdout);
            int status = system(command);
            printf("system %d returned %d\n", k, status);
            snprintf(command, sizeof command, "echo popen %d", k);
            FILE* pipe = popen(command, "r");
            char line[64] = "";
            if (pipe && fgets(line, sizeof line, pipe)) printf("read: %s", line);
            printf("pclose %d\n", pipe ? pclose(pipe) : -1);
        }
    } else if (strcmp(mode, "bench") == 0) {
        int n = argc > 2 ? atoi(argv[2]) : 100;
        double t0 = seconds();
        for (int k = 0; k < n; k++) {
            pid_t pid = fork();
            if (pid == 0) _exit(0);
            waitpid(pid, NULL, 0);
        }
        double t1 = seconds();
        for (int k = 0; k < n; k++) {
            pid_t pid = fork();
            if (pid == 0) exit(0);
            waitpid(pid, NULL, 0);
        }
        double t2 = seconds();
        for (int k = 0; k < n; k++)
            if (system("true") != 0) return 1;
        double t3 = seconds();
        printf("fork+_exit %.3f ms, fork+exit %.3f ms, system %.3f ms per child\n", (t1 - t0) * 1e3 / n,
               (t2 - t1) * 1e3 / n, (t3 - t2) * 1e3 / n);
    }
    for (int i = 0; i < 5; i++) step(i);
    printf("parent done\n");
    return 0;
}
