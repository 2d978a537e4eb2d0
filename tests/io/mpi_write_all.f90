! MPI-IO of known bytes from Fortran (tests/io/test_mpi_io_beneath.py): every
! rank writes BLOCK bytes at its place in one shared file (argument 1) with
! MPI_File_write_all through a file view; rank 0 prints the file's size.
! The test also builds it with "use mpi" (the Fortran 77/90 wrappers).
program mpi_write_all
  use mpi_f08
  implicit none
  integer, parameter :: block = 65536
  type(MPI_File) :: fh
  integer :: rank, size, ierr, bytes
  character(len=block) :: buffer
  character(len=4096) :: path
  integer(kind=MPI_OFFSET_KIND) :: disp
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call get_command_argument(1, path)
  buffer = repeat(achar(iachar('a') + rank), block)
  call MPI_File_open(MPI_COMM_WORLD, trim(path), MPI_MODE_CREATE + MPI_MODE_WRONLY, MPI_INFO_NULL, fh, ierr)
  disp = int(rank, MPI_OFFSET_KIND) * block
  call MPI_File_set_view(fh, disp, MPI_CHARACTER, MPI_CHARACTER, 'native', MPI_INFO_NULL, ierr)
  call MPI_File_write_all(fh, buffer, block, MPI_CHARACTER, MPI_STATUS_IGNORE, ierr)
  call MPI_File_close(fh, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    inquire(file=trim(path), size=bytes)
    print '(I0, A, I0)', size, ' ranks, file size ', bytes
  end if
  call MPI_Finalize(ierr)
end program
