#ifndef SCOREP_WRAPGEN_MULTIPROCESS_H
#define SCOREP_WRAPGEN_MULTIPROCESS_H

#include "buffer.h"
#include "internal.h"

/* ---- multi-process (multiprocess.c) ---- */
/* world communicator size / own rank, final after MPI registration */
extern int scorep_process_rank;
extern int scorep_process_size;
/* The MPI layer is linked: wait for its registration before creating the
 * experiment directory (called from the layer's constructor). Expected also
 * when the layer is in the process before its constructor has run. */
void scorep_multiprocess_expect(void);
int scorep_multiprocess_is_expected(void);
/* Adopts a process layer's rank, size and collectives; 0 if one was adopted
 * already. Only the life cycle calls it (scorep_multiprocess_register*). */
int scorep_multiprocess_adopt(const scorep_multiprocess_ops* ops);
/* A check the MPI layer runs when the process exits, before the data is
 * written (did MPI run without the adapter seeing it?). */
void scorep_multiprocess_set_exit_check(void (*check)(void));
void scorep_multiprocess_exit_check(void);
/* The MPI layer's step when the process ends without exit handlers (_exit):
 * returns 0 if MPI was not initialised (the process is no rank), else 1
 * (it wrote this rank's data if MPI ran). */
void scorep_multiprocess_set_process_ends(int (*hook)(void));
int scorep_multiprocess_process_ends(void);
/* The process layer's step after this process wrote its data at an abnormal
 * end (the MPI layer: tell the ranks on this node, and wait, bounded, until
 * they have written theirs, so that the launcher does not kill them meanwhile). */
void scorep_multiprocess_set_abnormal_end_written(void (*hook)(void));
void scorep_multiprocess_abnormal_end_written(void);
int scorep_multiprocess_is_registered(void);

/* ---- trees over all ranks ---- */
/* collective: rank 0 ends with the concatenation of every rank's blob in rank
 * order, gathered up a binomial tree; returns true on rank 0 */
bool scorep_tree_gather(scorep_buffer* mine, scorep_buffer* all_on_root);
/* collective: up a binomial tree, merge(child, into) at each parent */
void scorep_tree_reduce(scorep_buffer* mine, void (*merge)(scorep_buffer* child,
                                                           scorep_buffer* into));
void scorep_bcast_buffer(scorep_buffer* b, int root);

#endif
