#ifndef SCOREP_WRAPGEN_LOCATION_H
#define SCOREP_WRAPGEN_LOCATION_H

#include "internal.h"

/* ---- locations (location.c) ---- */
extern __thread scorep_location* scorep_tls_location TLS_FAST;
/* A created thread's location while its start routine's region waits for
 * the thread's next event (events.c, scorep_enter_thread_start): the
 * thread's own pointer is NULL meanwhile, so that its next event takes the
 * event layer's slow way, which alone takes it back. */
extern __thread scorep_location* scorep_location_parked TLS_FAST;
/* the thread's new (or an ended thread's) location; NULL on a thread that
 * handed its location back */
scorep_location* scorep_location_create_for_thread(void);
/* The thread's ThreadEnd (thread adapter) was recorded on loc: its location
 * is handed back for reuse, the thread records nothing more. */
void scorep_location_thread_ends(scorep_location* loc);
uint64_t scorep_location_event_count(const scorep_location* loc);
/* The location of member member (> 0) of the teams forker forks: the same
 * one for every team of forker, whichever thread runs the member, so that
 * nested parallelism and threads reused across teams keep their locations
 * (made at its first team). NULL beyond SCOREP_TEAM_MEMBERS_MAX or out of
 * memory. Inside the measurement. */
#define SCOREP_TEAM_MEMBERS_MAX 1024
scorep_location* scorep_location_team_member(scorep_location* forker, uint32_t member);

#endif
