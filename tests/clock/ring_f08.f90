! A Fortran 2008 (use mpi_f08) ring for the clock tests: per rank 20 x
! (Isend to the right + Recv from the left, Bcast from rank 0, Allreduce),
! then a second's wait before MPI_Finalize (a run of realistic length: the
! offsets are measured after MPI_Init and in MPI_Finalize).
program ring_f08
  use mpi_f08
  implicit none
  integer :: rank, size, i, inbox, total
  type(MPI_Request) :: request
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  do i = 1, 20
    call MPI_Isend(rank, 1, MPI_INTEGER, mod(rank + 1, size), i, MPI_COMM_WORLD, request)
    call MPI_Recv(inbox, 1, MPI_INTEGER, mod(rank + size - 1, size), i, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    call MPI_Wait(request, MPI_STATUS_IGNORE)
    call MPI_Bcast(inbox, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
    call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  end do
  call sleep(1)
  call MPI_Finalize()
end program
