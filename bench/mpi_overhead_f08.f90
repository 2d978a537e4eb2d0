! Two ranks: ns per MPI_Comm_rank call and per 8-byte ping-pong half round trip,
! through `use mpi_f08` (the F08 path of bench/mpi_overhead).
program mpi_overhead_f08
  use mpi_f08
  implicit none
  integer :: rank, me, i, r, calls, pings
  character(len=16) :: arg
  double precision :: start, best_rank, best_ping, elapsed
  character :: buf(8)
  calls = 2000000
  pings = 20000
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) calls
  end if
  best_rank = huge(1d0)
  best_ping = huge(1d0)
  do r = 1, 5
    call MPI_Barrier(MPI_COMM_WORLD)
    start = MPI_Wtime()
    do i = 1, calls
      call MPI_Comm_rank(MPI_COMM_WORLD, me)
    end do
    elapsed = (MPI_Wtime() - start) * 1d9 / calls
    best_rank = min(best_rank, elapsed)
  end do
  do r = 1, 5
    call MPI_Barrier(MPI_COMM_WORLD)
    start = MPI_Wtime()
    do i = 1, pings
      if (rank == 0) then
        call MPI_Send(buf, 8, MPI_CHARACTER, 1, 0, MPI_COMM_WORLD)
        call MPI_Recv(buf, 8, MPI_CHARACTER, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
      else if (rank == 1) then
        call MPI_Recv(buf, 8, MPI_CHARACTER, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
        call MPI_Send(buf, 8, MPI_CHARACTER, 0, 0, MPI_COMM_WORLD)
      end if
    end do
    elapsed = (MPI_Wtime() - start) * 1d9 / pings / 2
    best_ping = min(best_ping, elapsed)
  end do
  if (rank == 0) then
    print '(A,F0.2)', 'comm_rank_ns ', best_rank
    print '(A,F0.2)', 'pingpong_ns ', best_ping
  end if
  call MPI_Finalize()
end program
