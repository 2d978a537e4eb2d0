/* Files opened with known flags, one after the other in directory argv[1]
 * (tests/io/test_io_open_flags.py): the trace's IoCreateHandle records must
 * carry them as OTF2 creation and status flags. Each file is closed before
 * the next opens. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char path[4096];

static const char* in(const char* dir, const char* name)
{
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

int main(int argc, char** argv)
{
    const char* dir = argc > 1 ? argv[1] : ".";
    int fd;
    if ((fd = open(in(dir, "created"), O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0) return 1;
    close(fd);
    if ((fd = open(in(dir, "created"), O_RDONLY | O_CLOEXEC)) < 0) return 1;
    close(fd);
    if ((fd = open(in(dir, "created"), O_WRONLY | O_APPEND | O_NONBLOCK)) < 0) return 1;
    close(fd);
    if ((fd = open(in(dir, "exclusive"), O_RDWR | O_CREAT | O_EXCL | O_SYNC, 0600)) < 0) return 1;
    close(fd);
    if ((fd = creat(in(dir, "creat"), 0600)) < 0) return 1;
    close(fd);
    FILE* f;
    if ((f = fopen(in(dir, "stream"), "w")) == NULL) return 1;
    fclose(f);
    if ((f = fopen(in(dir, "stream"), "a+")) == NULL) return 1;
    fclose(f);
    if ((f = fopen(in(dir, "stream"), "re")) == NULL) return 1;
    fclose(f);
    if ((f = fopen(in(dir, "stream-x"), "wx")) == NULL) return 1;
    fclose(f);
    puts("opened 9 files");
    return 0;
}
