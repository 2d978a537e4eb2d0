/* usage: test_config list | show
 * list: every configuration variable, one line each: name, type, default and
 * description, tab-separated; show: the effective values after reading the
 * environment (warnings go to stderr). */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "config.h"

int main(int argc, char** argv)
{
    if (argc > 1 && strcmp(argv[1], "list") == 0) {
        for (const scorep_config_var_info* v = scorep_config_vars(); v->name; v++)
            printf("%s\t%s\t%s\t%s\n", v->name, v->type, v->default_value, v->description);
        return 0;
    }
    scorep_config_load();
    return scorep_config_write(stdout);
}
