/* usage: test_config list | show
 * list: every configuration variable name; show: the effective values after
 * reading the environment (warnings go to stderr). */
#include <stdio.h>
#include <string.h>

#include "internal.h"

int main(int argc, char** argv)
{
    if (argc > 1 && strcmp(argv[1], "list") == 0) {
        for (const scorep_config_var_info* v = scorep_config_vars(); v->name; v++) printf("%s\n", v->name);
        return 0;
    }
    scorep_config_load();
    return scorep_config_write(stdout);
}
