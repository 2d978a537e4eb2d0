/* usage: test_experiment normal|sigterm|abort|segv|wait
 * Records region "main" > "step" x 5 (with a bytes-sent event), then ends the
 * way the argument says. The experiment directory must hold what was
 * recorded in every case. "wait" reads a line from stdin before ending normally
 * (a run that is still writing its experiment while another one starts). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scorep_wrapgen/adapter.h"

int main(int argc, char** argv)
{
    const char* how = argc > 1 ? argv[1] : "normal";
    scorep_region main_r = scorep_region_define("main", "test_experiment.c", SCOREP_PARADIGM_USER,
                                                SCOREP_ROLE_FUNCTION, NULL);
    scorep_region step = scorep_region_define("step", "test_experiment.c", SCOREP_PARADIGM_USER,
                                              SCOREP_ROLE_FUNCTION, NULL);
    scorep_enter(main_r);
    for (int i = 0; i < 5; i++) {
        scorep_enter(step);
        scorep_mpi_send(SCOREP_COMM_SELF, 0, i, 64);
        scorep_exit(step);
    }
    printf("experiment: %s\n", scorep_experiment_directory() ? scorep_experiment_directory() : "(none)");
    fflush(stdout);
    if (strcmp(how, "sigterm") == 0) raise(SIGTERM);
    if (strcmp(how, "segv") == 0) raise(SIGSEGV);
    if (strcmp(how, "abort") == 0) {
        scorep_measurement_abort();
        _Exit(3);
    }
    if (strcmp(how, "wait") == 0) getchar();
    scorep_exit(main_r);
    return 0;
}
