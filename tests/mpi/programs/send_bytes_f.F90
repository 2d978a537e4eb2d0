! usage: mpirun -n 2 send_bytes_f
! Sends of predefined and derived datatypes through `use mpi_f08` (compiled
! with -DUSE_MPI_F08) or `use mpi`: rank 0 sends, rank 1 receives the same
! type signature. Every iteration creates two derived types, sends with them
! and frees them, so the library can hand out a freed datatype handle again
! for a type of another size, between sends of predefined types (whose sizes
! the Fortran wrappers cache by handle). Rank 0 prints "SENT <tag> <bytes>"
! with the bytes MPI_Type_size gives; rank 1 prints "RECEIVED <tag> <sum>".
#ifdef USE_MPI_F08
#define IERR
#define IERR_ONLY
#define DATATYPE type(MPI_Datatype)
#else
#define IERR , ierror
#define IERR_ONLY ierror
#define DATATYPE integer
#endif
program send_bytes_f
#ifdef USE_MPI_F08
  use mpi_f08
#else
  use mpi
#endif
  implicit none
  integer, parameter :: ITERATIONS = 6
  integer :: ierror, rank, i, tag
  DATATYPE :: doubles, integers
  call MPI_Init(IERR_ONLY)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank IERR)
  do i = 0, ITERATIONS - 1
    tag = 10 * i
    call exchange(MPI_INTEGER, 3, tag + 1, .false.)
    call exchange(MPI_DOUBLE_PRECISION, 3, tag + 2, .false.)
    call MPI_Type_contiguous(mod(i, 3) + 2, MPI_DOUBLE_PRECISION, doubles IERR)
    call MPI_Type_commit(doubles IERR)
    call exchange(doubles, 1, tag + 3, .false.)
    call MPI_Type_free(doubles IERR)
    call MPI_Type_contiguous(mod(i, 2) + 1, MPI_INTEGER, integers IERR)
    call MPI_Type_commit(integers IERR)
    call exchange(integers, 2, tag + 4, .true.)
    call MPI_Type_free(integers IERR)
    call exchange(MPI_DOUBLE_PRECISION, 5, tag + 5, .true.)
  end do
  call MPI_Finalize(IERR_ONLY)
contains
  subroutine exchange(datatype, count, tag, nonblocking)
    DATATYPE, intent(in) :: datatype
    integer, intent(in) :: count, tag
    logical, intent(in) :: nonblocking
    double precision :: buffer(64)
    integer :: size, k
#ifdef USE_MPI_F08
    type(MPI_Request) :: request
#else
    integer :: request
#endif
    if (rank == 0) then
      buffer = [(tag * 100 + k, k = 1, 64)]
      if (nonblocking) then
        call MPI_Isend(buffer, count, datatype, 1, tag, MPI_COMM_WORLD, request IERR)
        call MPI_Wait(request, MPI_STATUS_IGNORE IERR)
      else
        call MPI_Send(buffer, count, datatype, 1, tag, MPI_COMM_WORLD IERR)
      end if
      call MPI_Type_size(datatype, size IERR)
      write (*, '("SENT ",I0," ",I0)') tag, count * size
    else if (rank == 1) then
      buffer = 0
      call MPI_Recv(buffer, count, datatype, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE IERR)
      write (*, '("RECEIVED ",I0," ",I0)') tag, nint(sum(buffer))
    end if
  end subroutine
end program
