/* usage: test_libwrap calls <n>
 *        test_libwrap threads <threads> <calls per thread>
 *
 * Link-time library wrappers written by hand in exactly the shape the
 * library-wrapping generator emits (see scorep_wrapgen/libwrap.h), around
 * the functions of test_libwrap_target.c; the program is linked with
 * --wrap=lw_work,--wrap=lw_inner,--wrap=lw_apply,--wrap=lw_named.
 *
 * calls: n calls each of lw_work, lw_apply(lw_inner, .) (a wrapped call
 *   inside a wrapped call) and lw_named, then n calls of lw_work with event
 *   generation off (as inside an MPI call: recorded nowhere). Prints
 *   "checksum ok" if every call returned what the library computes,
 *   "region <name>: recorded|filtered" for what scorep_libwrap_region says
 *   of each function, and "depth <d>" (0: every begin had its end).
 * threads: every thread waits at a barrier, then makes its calls of lw_work,
 *   so that the threads race on the region's first definition; they also
 *   define a region "lw_race" at the same moment and the program prints
 *   "race ids equal" if all got the same id. */
#define _GNU_SOURCE   /* pthread barriers under -std=c11 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scorep_wrapgen/libwrap.h>

_Static_assert(SCOREP_LIBWRAP_UNDEFINED != SCOREP_INVALID_ID, "the two sentinels must differ");

int lw_work(int x);
int lw_inner(int x);
int lw_apply(int (*f)(int), int x);
int lw_named(int x);
int __real_lw_work(int x);
int __real_lw_inner(int x);
int __real_lw_apply(int (*f)(int), int x);
int __real_lw_named(int x);

static const scorep_libwrap_library scorep_libwrap_self = {
    .name = "lwtest",
    .display_name = "libwrap test library",
    .libraries = (const char*[]){"libtest_libwrap_target.so", NULL},
};

#define LWTEST_H "/opt/lwtest/include/lwtest.h"
#define LWTEST_NAMED_H "/opt/lwtest/include/lwtest_named.h"

int __wrap_lw_work(int x)
{
    static scorep_region scorep_region_id = SCOREP_LIBWRAP_UNDEFINED;
    if (!scorep_libwrap_should_record()) return __real_lw_work(x);
    scorep_region r = scorep_region_id;
    if (__builtin_expect(r == SCOREP_LIBWRAP_UNDEFINED, 0))
        r = scorep_region_id = scorep_libwrap_region(&scorep_libwrap_self, "lw_work", LWTEST_H, "lw_work");
    if (r == SCOREP_INVALID_ID) return __real_lw_work(x);
    scorep_libwrap_begin(r);
    int result = __real_lw_work(x);
    scorep_libwrap_end(r);
    return result;
}

int __wrap_lw_inner(int x)
{
    static scorep_region scorep_region_id = SCOREP_LIBWRAP_UNDEFINED;
    if (!scorep_libwrap_should_record()) return __real_lw_inner(x);
    scorep_region r = scorep_region_id;
    if (__builtin_expect(r == SCOREP_LIBWRAP_UNDEFINED, 0))
        r = scorep_region_id = scorep_libwrap_region(&scorep_libwrap_self, "lw_inner", LWTEST_H, "lw_inner");
    if (r == SCOREP_INVALID_ID) return __real_lw_inner(x);
    scorep_libwrap_begin(r);
    int result = __real_lw_inner(x);
    scorep_libwrap_end(r);
    return result;
}

int __wrap_lw_apply(int (*f)(int), int x)
{
    static scorep_region scorep_region_id = SCOREP_LIBWRAP_UNDEFINED;
    if (!scorep_libwrap_should_record()) return __real_lw_apply(f, x);
    scorep_region r = scorep_region_id;
    if (__builtin_expect(r == SCOREP_LIBWRAP_UNDEFINED, 0))
        r = scorep_region_id = scorep_libwrap_region(&scorep_libwrap_self, "lw_apply", LWTEST_H, "lw_apply");
    if (r == SCOREP_INVALID_ID) return __real_lw_apply(f, x);
    scorep_libwrap_begin(r);
    int result = __real_lw_apply(f, x);
    scorep_libwrap_end(r);
    return result;
}

int __wrap_lw_named(int x)
{
    static scorep_region scorep_region_id = SCOREP_LIBWRAP_UNDEFINED;
    if (!scorep_libwrap_should_record()) return __real_lw_named(x);
    scorep_region r = scorep_region_id;
    if (__builtin_expect(r == SCOREP_LIBWRAP_UNDEFINED, 0))
        r = scorep_region_id = scorep_libwrap_region(&scorep_libwrap_self, "ns::named(int)", LWTEST_NAMED_H,
                                                     "_ZN2ns5namedEi");
    if (r == SCOREP_INVALID_ID) return __real_lw_named(x);
    scorep_libwrap_begin(r);
    int result = __real_lw_named(x);
    scorep_libwrap_end(r);
    return result;
}

static void print_region_state(const char* name, const char* file, const char* symbol)
{
    scorep_region r = scorep_libwrap_region(&scorep_libwrap_self, name, file, symbol);
    printf("region %s: %s\n", name, r == SCOREP_INVALID_ID ? "filtered" : "recorded");
}

static int calls(long n)
{
    long long sum = 0, want = 0;
    for (long i = 0; i < n; i++) {
        int x = (int)(i % 1000);
        sum += lw_work(x) + lw_apply(lw_inner, x) + lw_named(x);
        want += (x + 1) + 2 * (x + 3) + 3 * x;
    }
    scorep_event_generation_off();
    for (long i = 0; i < n; i++) {
        int x = (int)(i % 1000);
        sum += lw_work(x);
        want += x + 1;
    }
    scorep_event_generation_on();
    printf("checksum %s\n", sum == want ? "ok" : "wrong");
    print_region_state("lw_work", LWTEST_H, "lw_work");
    print_region_state("lw_inner", LWTEST_H, "lw_inner");
    print_region_state("lw_apply", LWTEST_H, "lw_apply");
    print_region_state("ns::named(int)", LWTEST_NAMED_H, "_ZN2ns5namedEi");
    printf("depth %u\n", (unsigned)scorep_libwrap_thread_depth);
    return sum == want ? 0 : 1;
}

static pthread_barrier_t start;
static long per_thread;

typedef struct thread_result {
    scorep_region race_id;
    int wrong;
} thread_result;

static void* thread_main(void* arg)
{
    thread_result* out = arg;
    pthread_barrier_wait(&start);
    out->race_id = scorep_libwrap_region(&scorep_libwrap_self, "lw_race", LWTEST_H, "lw_race");
    for (long i = 0; i < per_thread; i++)
        if (lw_work((int)i) != (int)i + 1) out->wrong = 1;
    /* all alive at once: each has a location of its own (an ended thread's
     * would be handed on to one that starts later) */
    pthread_barrier_wait(&start);
    return NULL;
}

static int threads(int count, long n)
{
    per_thread = n;
    pthread_barrier_init(&start, NULL, (unsigned)count);
    pthread_t* t = malloc((size_t)count * sizeof *t);
    thread_result* results = calloc((size_t)count, sizeof *results);
    for (int i = 0; i < count; i++) pthread_create(&t[i], NULL, thread_main, &results[i]);
    int wrong = 0, equal = 1;
    for (int i = 0; i < count; i++) {
        pthread_join(t[i], NULL);
        wrong |= results[i].wrong;
        if (results[i].race_id != results[0].race_id || results[i].race_id == SCOREP_INVALID_ID) equal = 0;
    }
    printf("race ids %s\n", equal ? "equal" : "differ");
    printf("checksum %s\n", wrong ? "wrong" : "ok");
    return wrong || !equal;
}

int main(int argc, char** argv)
{
    if (argc >= 3 && strcmp(argv[1], "calls") == 0) return calls(atol(argv[2]));
    if (argc >= 4 && strcmp(argv[1], "threads") == 0) return threads(atoi(argv[2]), atol(argv[3]));
    fprintf(stderr, "usage: %s calls <n> | threads <threads> <calls per thread>\n", argv[0]);
    return 2;
}
