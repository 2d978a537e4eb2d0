/* bench/clock_sync: a program that only starts and ends MPI; the measurement
 * core synchronises the clocks inside MPI_Init and MPI_Finalize. */
#include <mpi.h>
int main(int argc, char** argv) { MPI_Init(&argc, &argv); MPI_Finalize(); return 0; }
