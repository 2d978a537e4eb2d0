/* User instrumentation as a program written for Score-P has it: its header
 * name, and no semicolon after the macros (Score-P's are statements). Loop
 * region "step" n times with parameter "i", function region "square" (by
 * SCOREP_USER_FUNC_BEGIN) n times inside it. Prints the sum of squares. */
#include <stdio.h>
#include <stdlib.h>
#include <scorep/SCOREP_User.h>

static long square(long x)
{
    SCOREP_USER_FUNC_BEGIN()
    long r = x * x;
    SCOREP_USER_FUNC_END()
    return r;
}

int main(int argc, char** argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 10;
    long s = 0;
    SCOREP_USER_REGION_DEFINE(step)
    for (int i = 0; i < n; i++) {
        SCOREP_USER_REGION_BEGIN(step, "step", SCOREP_USER_REGION_TYPE_LOOP)
        SCOREP_USER_PARAMETER_INT64("i", i)
        s += square(i);
        SCOREP_USER_REGION_END(step)
    }
    printf("sum of squares %ld\n", s);
    return 0;
}
