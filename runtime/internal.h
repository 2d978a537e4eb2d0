/* What every file of the core shares: the branch hints, the thread-local model
 * and the substrate interface. Each module's own declarations are in its
 * header beside it (util/config.h, core/definitions.h, ...). */
#ifndef SCOREP_WRAPGEN_INTERNAL_H
#define SCOREP_WRAPGEN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "substrate.h"

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#define TLS_FAST __attribute__((tls_model("initial-exec")))

#endif
