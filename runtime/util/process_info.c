/* What the reports say about the process: when the measurement started and
 * the command line. Recorded once by the life cycle at the start. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "process_info.h"

static char start_time[64];
static char* command_line;
static char* executable;
/* the arguments after argv[0], each its own string */
static char** arguments;
static int argument_count;

const char* scorep_process_command_line(void) { return command_line ? command_line : ""; }
const char* scorep_process_start_time(void) { return start_time; }

static void read_command_line(void)
{
    FILE* f = fopen("/proc/self/cmdline", "rb");
    if (!f) return;
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    int words = 0;
    for (size_t i = 0; i < n; i++)
        if (buf[i] == '\0') words++;
    if (words > 1 && (arguments = calloc((size_t)words - 1, sizeof *arguments)) != NULL) {
        size_t at = strlen(buf) + 1;
        while (at < n && argument_count < words - 1) {
            arguments[argument_count++] = strdup(buf + at);
            at += strlen(buf + at) + 1;
        }
    }
    for (size_t i = 0; i + 1 < n; i++)
        if (buf[i] == '\0') buf[i] = ' ';
    command_line = strdup(buf);
}

/* Score-P's executable name: the file /proc/self/exe names */
static void read_executable(void)
{
    char path[4096];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0) return;
    path[n] = '\0';
    executable = strdup(path);
}

const char* scorep_process_executable(void) { return executable ? executable : "PROGRAM"; }

const char* scorep_process_executable_base_name(void)
{
    const char* path = scorep_process_executable();
    const char* slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

int scorep_process_arguments(const char* const** args)
{
    *args = (const char* const*)arguments;
    return argument_count;
}

void scorep_process_info_record(void)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(start_time, sizeof start_time, "%Y-%m-%dT%H:%M:%SZ", &tm);
    read_command_line();
    read_executable();
}
