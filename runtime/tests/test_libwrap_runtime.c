/* usage: test_libwrap_runtime calls <n> | threads <threads> <n> | missing
 *
 * Calls the functions of libtest_libwrap_rt_lib.so through the run-time
 * wrapper libtest_libwrap_rt_wrapper.so. Built twice: test_libwrap_runtime
 * (LINKED_WITH_TARGET) links the wrapper ahead of the library, which it
 * needs for an unwrapped function (the wrapper finds the library's
 * definitions with RTLD_NEXT); test_libwrap_dlopen links only the wrapper
 * (the wrapper loads the library by its soname).
 *
 * calls: n calls each of lwrt_add and lwrt_sub (and of lwrt_mul if linked
 *   with the library); prints "checksum ok" and
 *   "target loaded before: yes|no" (whether the library was loaded before
 *   the first call).
 * threads: the threads wait at a barrier and make their first calls at the
 *   same time (they race on resolving and defining); "checksum ok".
 * missing: calls lwrt_missing, which no library defines: the wrapper's
 *   resolution aborts the program with an error (nothing is printed here). */
#define _GNU_SOURCE   /* pthread barriers, RTLD_NOLOAD under -std=c11 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lwrt_add(int a, int b);
int lwrt_sub(int a, int b);
int lwrt_missing(int a, int b);
#ifdef LINKED_WITH_TARGET
int lwrt_version(void);   /* not wrapped: makes the library needed */
int lwrt_mul(int a, int b);   /* its wrapper finds it with RTLD_NEXT only */
#endif

static int target_loaded(void)
{
    void* handle = dlopen("libtest_libwrap_rt_lib.so", RTLD_NOW | RTLD_NOLOAD);
    if (handle) dlclose(handle);
    return handle != NULL;
}

static pthread_barrier_t start;
static long per_thread;

static void* thread_main(void* arg)
{
    int* wrong = arg;
    pthread_barrier_wait(&start);
    for (long i = 0; i < per_thread; i++) {
        int x = (int)(i % 1000);
        if (lwrt_add(x, 7) != x + 7 || lwrt_sub(x, 7) != x - 7) *wrong = 1;
    }
    return NULL;
}

int main(int argc, char** argv)
{
    if (argc >= 3 && strcmp(argv[1], "calls") == 0) {
        long n = atol(argv[2]);
        printf("target loaded before: %s\n", target_loaded() ? "yes" : "no");
        int wrong = 0;
        for (long i = 0; i < n; i++) {
            int x = (int)(i % 1000);
            if (lwrt_add(x, 5) != x + 5 || lwrt_sub(x, 5) != x - 5) wrong = 1;
        }
        printf("target loaded after: %s\n", target_loaded() ? "yes" : "no");
#ifdef LINKED_WITH_TARGET
        if (lwrt_version() != 3) wrong = 1;
        for (long i = 0; i < n; i++)
            if (lwrt_mul((int)(i % 1000), 3) != (int)(i % 1000) * 3) wrong = 1;
#endif
        printf("checksum %s\n", wrong ? "wrong" : "ok");
        return wrong;
    }
    if (argc >= 4 && strcmp(argv[1], "threads") == 0) {
        int count = atoi(argv[2]);
        per_thread = atol(argv[3]);
        pthread_barrier_init(&start, NULL, (unsigned)count);
        pthread_t* t = malloc((size_t)count * sizeof *t);
        int* wrong = calloc((size_t)count, sizeof *wrong);
        for (int i = 0; i < count; i++) pthread_create(&t[i], NULL, thread_main, &wrong[i]);
        int any = 0;
        for (int i = 0; i < count; i++) {
            pthread_join(t[i], NULL);
            any |= wrong[i];
        }
        printf("checksum %s\n", any ? "wrong" : "ok");
        return any;
    }
    if (argc >= 2 && strcmp(argv[1], "missing") == 0) {
        int result = lwrt_missing(1, 2);
        printf("lwrt_missing returned %d\n", result);
        return 0;
    }
    fprintf(stderr, "usage: %s calls <n> | threads <threads> <n> | missing\n", argv[0]);
    return 2;
}
