! Fortran (use mpi): 5 MPI_Allreduce and one MPI_Reduce per rank; rank 0
! prints 15 * size * (size + 1) / 2 and the largest rank.
program reduce
  use mpi
  use reduction
  implicit none
  integer :: ierr, rank, nranks, k, total, largest
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  total = 0
  do k = 1, 5
    call add_step(k, rank, total)
  end do
  call MPI_Reduce(rank, largest, 1, MPI_INTEGER, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a,i0,a,i0)', 'reduce: ', nranks, ' ranks, total ', total, ', largest rank ', largest
  call MPI_Finalize(ierr)
end program reduce
