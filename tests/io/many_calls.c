/* Many calls of an instrumented function and no I/O of its own but the one
 * printf at the end (stdio writes through the C library's internal write,
 * which no wrapper sees): with a small SCOREP_TOTAL_MEMORY the trace buffer
 * fills and is spilled to disk from inside the function's enter event
 * (tests/io/test_posix_io.py). */
#include <stdio.h>

static __attribute__((noinline)) long triple(long i) { return i * 3; }

int main(void)
{
    long sum = 0;
    for (long i = 0; i < 200000; i++) sum += triple(i);
    printf("%ld\n", sum);
    return 0;
}
