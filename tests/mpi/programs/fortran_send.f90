! MPICH's Fortran binding (mpif.h) calls the C MPI_Send/MPI_Recv internally:
! through the C adapter each Fortran call must count exactly once.
program fortran_send
  implicit none
  include 'mpif.h'
  integer :: rank, ierr, i, status(MPI_STATUS_SIZE)
  double precision :: buf(16)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  buf = rank
  do i = 1, 7
    if (rank == 0) then
      call MPI_Send(buf, 16, MPI_DOUBLE_PRECISION, 1, i, MPI_COMM_WORLD, ierr)
    else
      call MPI_Recv(buf, 16, MPI_DOUBLE_PRECISION, 0, i, MPI_COMM_WORLD, status, ierr)
    end if
  end do
  print '(A,I0,A,F6.1)', 'RESULT rank ', rank, ' buf ', buf(16)
  call MPI_Finalize(ierr)
end program
