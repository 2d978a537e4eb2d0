/* Two files whose paths agree in their first 1200 characters (a chain of
 * directories under argv[1]) and differ in their last: "one" gets 10 bytes,
 * "two" 20. Prints the two paths' length. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void write_file(const char* path, size_t bytes)
{
    char data[32];
    memset(data, 'x', sizeof data);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, data, bytes) != (ssize_t)bytes || close(fd) != 0) perror(path);
}

int main(int argc, char** argv)
{
    if (argc != 2) return 2;
    char path[4096];
    size_t len = (size_t)snprintf(path, sizeof path, "%s", argv[1]);
    char component[201];
    memset(component, 'd', 200);
    component[200] = '\0';
    for (int i = 0; i < 6; i++) {
        len += (size_t)snprintf(path + len, sizeof path - len, "/%s", component);
        if (mkdir(path, 0755) != 0) perror(path);
    }
    char one[4200], two[4200];
    snprintf(one, sizeof one, "%s/file_one", path);
    snprintf(two, sizeof two, "%s/file_two", path);
    write_file(one, 10);
    write_file(two, 20);
    printf("%zu %zu\n", strlen(one), strlen(two));
    return 0;
}
