/* A thread that creates a thread: main creates `parent`, which creates
 * `child` and joins it; for test_pthread_adapter.py (the creator of each
 * thread's location). */
#include <pthread.h>
#include <stdio.h>

static void* child(void* arg)
{
    return (void*)((long)arg + 1);
}

static void* parent(void* arg)
{
    pthread_t thread;
    void* result = NULL;
    if (pthread_create(&thread, NULL, child, arg) != 0 || pthread_join(thread, &result) != 0)
        return NULL;
    return (void*)((long)result * 2);
}

int main(void)
{
    pthread_t thread;
    void* result;
    if (pthread_create(&thread, NULL, parent, (void*)20L) != 0 || pthread_join(thread, &result) != 0)
        return 1;
    printf("parent returned %ld\n", (long)result);
    return 0;
}
