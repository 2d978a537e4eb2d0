/* A stream's descriptor used directly, and a descriptor made a stream
 * (tests/io/test_io_stream_descriptor.py): fopen("stream.dat", "w+"), 19
 * bytes through the stream (fputs, fflush), 23 through its descriptor
 * (write on fileno), back to the start (lseek) and 42 read through the
 * descriptor, fclose; then open("fdopen.dat"), fdopen of its descriptor, 7
 * bytes through the stream, fclose (which closes the descriptor too).
 * Prints what it read. Usage: stream_descriptor directory */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv)
{
    const char* directory = argc > 1 ? argv[1] : ".";
    char path[4096], other[4096], back[64];
    snprintf(path, sizeof path, "%s/stream.dat", directory);
    snprintf(other, sizeof other, "%s/fdopen.dat", directory);
    FILE* stream = fopen(path, "w+");
    if (stream == NULL || fputs("through the stream\n", stream) < 0 || fflush(stream) != 0) return 1;
    int fd = fileno(stream);
    if (write(fd, "through the descriptor\n", 23) != 23 || lseek(fd, 0, SEEK_SET) != 0) return 1;
    ssize_t got = read(fd, back, sizeof back);
    if (got != 42 || fclose(stream) != 0) return 1;
    int descriptor = open(other, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    FILE* made = descriptor < 0 ? NULL : fdopen(descriptor, "w");
    if (made == NULL || fputs("fdopen\n", made) < 0 || fclose(made) != 0) return 1;
    printf("read %zd bytes: %.*s", got, (int)got, back);
    return 0;
}
