! Known bytes from Fortran (tests/io/test_io_files.py): N_WRITES unformatted
! stream writes of CHUNK bytes to the file named by argument 1, then the file
! read back whole in one read; gfortran's runtime makes the POSIX calls.
program stream_file
  implicit none
  integer, parameter :: chunk = 5000, n_writes = 4
  character(len=chunk) :: buffer
  character(len=chunk * n_writes) :: back
  character(len=4096) :: path
  integer :: unit, i
  call get_command_argument(1, path)
  buffer = repeat('f', chunk)
  open(newunit=unit, file=trim(path), access='stream', form='unformatted', status='replace')
  do i = 1, n_writes
    write(unit) buffer
  end do
  close(unit)
  open(newunit=unit, file=trim(path), access='stream', form='unformatted', status='old')
  read(unit) back
  close(unit)
  print '(A, I0)', 'bytes ', len(back)
end program
