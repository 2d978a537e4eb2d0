/* A library whose constructor holds the dynamic loader's lock (dlopen runs
 * it under that lock): it says so on one pipe and waits on another, at most
 * 20 s; then it says whether it was released ('r') or gave up ('t'). */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void hold_the_loader(void)
{
    int holding, release;
    const char* fds = getenv("LOADER_BLOCKER_FDS");
    if (!fds || sscanf(fds, "%d %d", &holding, &release) != 2) return;
    if (write(holding, "h", 1) != 1) return;
    struct pollfd wait_for = {.fd = release, .events = POLLIN};
    int released = poll(&wait_for, 1, 20000) == 1;
    if (write(holding, released ? "r" : "t", 1) != 1) return;
}
