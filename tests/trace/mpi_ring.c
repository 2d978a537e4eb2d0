/*
 * A plain MPI program with no instrumentation of its own: traced through the
 * generated MPI wrappers (linked by the scorep instrumenter). Per rank:
 * 20 x (Irecv from left + Isend to right + Waitall, Sendrecv, Allreduce),
 * then one message from rank 0 to rank 1 of each parity communicator.
 * usage: mpi_ring [seconds]: waits that long before MPI_Finalize (a run of
 * realistic length for the clock tests, whose offsets are measured after
 * MPI_Init and in MPI_Finalize).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(int argc,char**argv){
  MPI_Init(&argc,&argv); int r,s; MPI_Comm_rank(MPI_COMM_WORLD,&r); MPI_Comm_size(MPI_COMM_WORLD,&s);
  int buf=r, in; MPI_Request q[2];
  for(int i=0;i<20;i++){
    MPI_Irecv(&in,1,MPI_INT,(r+s-1)%s,i,MPI_COMM_WORLD,&q[0]);
    MPI_Isend(&buf,1,MPI_INT,(r+1)%s,i,MPI_COMM_WORLD,&q[1]);
    MPI_Waitall(2,q,MPI_STATUSES_IGNORE);
    MPI_Sendrecv(&buf,1,MPI_INT,(r+1)%s,99,&in,1,MPI_INT,(r+s-1)%s,99,MPI_COMM_WORLD,MPI_STATUS_IGNORE);
    MPI_Allreduce(&buf,&in,1,MPI_INT,MPI_SUM,MPI_COMM_WORLD);
  }
  MPI_Comm c; MPI_Comm_split(MPI_COMM_WORLD,r%2,r,&c); int cr; MPI_Comm_rank(c,&cr);
  if(cr==0) MPI_Send(&buf,1,MPI_INT,1,5,c); else if(cr==1) MPI_Recv(&in,1,MPI_INT,0,5,c,MPI_STATUS_IGNORE);
  MPI_Comm_free(&c);
  if(argc>1) usleep((useconds_t)(atof(argv[1])*1e6));
  MPI_Finalize(); return 0; }
