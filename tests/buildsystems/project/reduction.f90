! The module reduce.f90 uses: a module file the build must make first.
module reduction
  use mpi
  implicit none
contains
  ! the sum over all ranks of (rank + 1) * k, added to total
  subroutine add_step(k, rank, total)
    integer, intent(in) :: k, rank
    integer, intent(inout) :: total
    integer :: mine, everyone, ierr
    mine = (rank + 1) * k
    call MPI_Allreduce(mine, everyone, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    total = total + everyone
  end subroutine add_step
end module reduction
