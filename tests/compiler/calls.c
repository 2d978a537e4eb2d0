/* Compiler instrumentation and user regions test program (C). With
 * n = argv[1]: twice() n times, leaf() 2n times (static, called from twice),
 * filtered_leaf() 3n times, main once. With user regions on (scorep --user):
 * region "phase" n times, "twice" (SCOREP_USER_FUNC_BEGIN) n times, the
 * parameter "i" once per phase with values 0..n-1 (parameter "kind"="even"
 * / "odd" alternating).  */
#include <stdio.h>
#include <stdlib.h>
#include <scorep_user.h>

static __attribute__((noinline)) int leaf(int x) { return x * 2; }

__attribute__((noinline)) int filtered_leaf(int x) { return x + 1; }

__attribute__((noinline)) int twice(int x)
{
    SCOREP_USER_FUNC_BEGIN();
    int r = leaf(x) + leaf(x + 1);
    SCOREP_USER_FUNC_END();
    return r;
}

int main(int argc, char** argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 10;
    long s = 0;
    SCOREP_USER_REGION_DEFINE(phase)
    for (int i = 0; i < n; i++) {
        SCOREP_USER_REGION_BEGIN(phase, "phase", SCOREP_USER_REGION_TYPE_LOOP);
        SCOREP_USER_PARAMETER_INT64("i", i);
        SCOREP_USER_PARAMETER_STRING("kind", i % 2 ? "odd" : "even");
        s += twice(i);
        s += filtered_leaf(i) + filtered_leaf(i) + filtered_leaf(i);
        SCOREP_USER_REGION_END(phase);
    }
    printf("s=%ld\n", s);
    return 0;
}
