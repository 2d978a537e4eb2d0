#ifndef SCOREP_WRAPGEN_UNIFY_H
#define SCOREP_WRAPGEN_UNIFY_H

#include "internal.h"

/* ---- unification (unify.c) ---- */
scorep_unified_definitions* scorep_unify_definitions(void);
/* emergency: identity maps, local tables as global, no communication */
scorep_unified_definitions* scorep_local_definitions(void);
void scorep_unified_definitions_free(scorep_unified_definitions* d);

#endif
