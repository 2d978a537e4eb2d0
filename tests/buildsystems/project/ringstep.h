#ifndef RINGSTEP_H
#define RINGSTEP_H
/* one round of the token around the ring; returns the token as this rank
   holds it after the round */
long ring_step(long token, int rank, int size);
#endif
