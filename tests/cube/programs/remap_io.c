/* POSIX and ISO C I/O of both kinds Cube's derived metrics sort apart: calls
 * on a file's metadata (open, close, seek) and calls that move its data
 * (read, write). remap_io DIR writes DIR/posix.dat and DIR/stdio.dat. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CHUNK 256
#define CHUNKS 5

int main(int argc, char** argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: remap_io DIR\n");
        return 2;
    }
    char path[4096], buffer[CHUNK];
    memset(buffer, 'x', sizeof buffer);

    snprintf(path, sizeof path, "%s/posix.dat", argv[1]);
    int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
    if (fd < 0) return 1;
    for (int i = 0; i < CHUNKS; i++)
        if (write(fd, buffer, sizeof buffer) != (ssize_t)sizeof buffer) return 1;
    lseek(fd, 0, SEEK_SET);
    for (int i = 0; i < CHUNKS; i++)
        if (read(fd, buffer, sizeof buffer) != (ssize_t)sizeof buffer) return 1;
    close(fd);

    snprintf(path, sizeof path, "%s/stdio.dat", argv[1]);
    FILE* f = fopen(path, "w+");
    if (!f) return 1;
    for (int i = 0; i < CHUNKS; i++)
        if (fwrite(buffer, 1, sizeof buffer, f) != sizeof buffer) return 1;
    fseek(f, 0, SEEK_SET);
    for (int i = 0; i < CHUNKS; i++)
        if (fread(buffer, 1, sizeof buffer, f) != sizeof buffer) return 1;
    fclose(f);
    return 0;
}
