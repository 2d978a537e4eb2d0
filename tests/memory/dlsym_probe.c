/* A program that probes for optional symbols (plugins, optional libraries do):
 * each failed dlsym leaves glibc's error string, which the next dl call
 * frees through free. Then I/O and allocations as usual; dlerror() at the
 * end must report the program's own last failure only. Prints what it saw. */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
    int found = 0;
    for (int i = 0; i < 5; i++) {
        found += dlsym(RTLD_DEFAULT, "no_such_optional_symbol") != NULL;
        int fd = open("/dev/null", O_RDONLY);
        char* block = malloc(100 + (size_t)i);
        if (fd < 0 || block == NULL) return 1;
        close(fd);
        free(block);
    }
    dlerror();   /* clears the program's last failure */
    const char* after = dlerror();
    printf("found %d, error after clearing: %s\n", found, after ? after : "none");
    return 0;
}
