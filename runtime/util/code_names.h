/* Code addresses named as the source names them (code_names.c). Declared
 * for adapters in adapter.h as well; here for the core. */
#ifndef SCOREP_WRAPGEN_CODE_NAMES_H
#define SCOREP_WRAPGEN_CODE_NAMES_H

#include "internal.h"
#include "scorep_wrapgen/adapter.h"

#endif
