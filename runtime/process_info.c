/* What the reports say about the process: when the measurement started and
 * the command line. Recorded once by the life cycle at the start. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

static char start_time[64];
static char* command_line;

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
    for (size_t i = 0; i + 1 < n; i++)
        if (buf[i] == '\0') buf[i] = ' ';
    command_line = strdup(buf);
}

void scorep_process_info_record(void)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(start_time, sizeof start_time, "%Y-%m-%dT%H:%M:%SZ", &tm);
    read_command_line();
}
