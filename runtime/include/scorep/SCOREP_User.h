/* The name Score-P's sources include (#include <scorep/SCOREP_User.h>): the
 * same user instrumentation as scorep_user.h, so that a program instrumented
 * for Score-P builds unchanged with this measurement. */
#include "../scorep_user.h"
