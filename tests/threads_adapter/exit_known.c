/* Three threads one after the other, each ending with pthread_exit from a
 * function it calls (not by returning): for test_pthread_adapter.py. Each
 * thread is joined before the next is created, so an ended thread's
 * location is free for the next one, if the thread ended with no region
 * open: pthread_exit's wrapper must leave its own region and the start
 * routine's, which no return leaves. */
#include <pthread.h>
#include <stdio.h>

static void finish(long id)
{
    pthread_exit((void*)(id + 100));
}

static void* leaver(void* arg)
{
    finish((long)arg);
    return NULL;   /* never reached */
}

int main(void)
{
    for (long i = 0; i < 3; i++) {
        pthread_t thread;
        void* result;
        if (pthread_create(&thread, NULL, leaver, (void*)i) != 0 || pthread_join(thread, &result) != 0)
            return 1;
        printf("thread %ld exited with %ld\n", i, (long)result);
    }
    return 0;
}
