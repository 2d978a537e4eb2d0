/* FILES files in the directory argv[1], one byte written to each
 * (tests/io/test_io_files.py: more files than the per-file table holds). */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#define FILES 1100

int main(int argc, char** argv)
{
    if (argc != 2) return 2;
    for (int i = 0; i < FILES; i++) {
        char name[4096];
        snprintf(name, sizeof name, "%s/f%04d", argv[1], i);
        int fd = open(name, O_CREAT | O_TRUNC | O_WRONLY, 0600);
        if (fd < 0 || write(fd, "x", 1) != 1 || close(fd) != 0) return 1;
    }
    return 0;
}
