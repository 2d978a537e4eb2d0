! Two ranks: ns per MPI_Comm_rank call, per 8-byte ping-pong half round trip and
! per send to self with its receive, through `use mpi_f08` (the F08 path of
! bench/mpi_overhead), each measured in the same process through the MPI_
! name (the F08 wrapper, when linked with the adapter) and through the
! mpi_f08 module's PMPI_ name (what that wrapper calls), and the same loops
! in C (mpi_overhead_loops.c, linked in: the C wrapper and PMPI_), so the
! F08 and the C added cost come from one launch. Blocks of the four sides
! alternate (each side in each position equally often); round 0 is a warm-up.
! usage and output as bench/mpi_overhead.c, with the C sides as c_mpi and
! c_pmpi (and <figure>_c_added_paired):
!   mpi_overhead_f08 [rounds [calls_per_block [round_trips_per_block]]]
program mpi_overhead_f08
  use, intrinsic :: iso_c_binding, only : c_int
  use mpi_f08
  implicit none
  interface
    subroutine mpi_overhead_c_loop(kind, side, n, rank) bind(c, name='mpi_overhead_c_loop')
      import :: c_int
      integer(c_int), value :: kind, side, n, rank
    end subroutine
  end interface
  ! sides: this binding's MPI_ and PMPI_ names, and the C loops' (mpi_overhead_loops.c)
  integer, parameter :: MPI_SIDE = 1, PMPI_SIDE = 2, C_MPI_SIDE = 3, C_PMPI_SIDE = 4
  integer, parameter :: COMM_RANK = 1, PINGPONG = 2, SELF = 3
  integer :: rank, rounds, calls, trips
  character(len=16) :: arg
  rounds = 40
  calls = 50000
  trips = 2500
  call MPI_Init()
  call PMPI_Comm_rank(MPI_COMM_WORLD, rank)
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) rounds
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) calls
  end if
  if (command_argument_count() >= 3) then
    call get_command_argument(3, arg)
    read (arg, *) trips
  end if
  call measure('comm_rank', calls, 1, COMM_RANK)
  ! per half round trip: one send on one rank, one receive on the other
  call measure('pingpong', trips, 2, PINGPONG)
  ! per pair of MPI_Send and MPI_Recv of rank 0 to itself
  call measure('self', trips, 1, SELF)
  call MPI_Finalize()

contains

  subroutine comm_rank_loop(side, n)
    integer, intent(in) :: side, n
    integer :: i, me
    if (side == MPI_SIDE) then
      do i = 1, n
        call MPI_Comm_rank(MPI_COMM_WORLD, me)
      end do
    else
      do i = 1, n
        call PMPI_Comm_rank(MPI_COMM_WORLD, me)
      end do
    end if
  end subroutine

  subroutine pingpong_loop(side, n)
    integer, intent(in) :: side, n
    integer :: i
    character :: buf(8)
    buf = ' '
    if (side == MPI_SIDE) then
      do i = 1, n
        if (rank == 0) then
          call MPI_Send(buf, 8, MPI_CHARACTER, 1, 0, MPI_COMM_WORLD)
          call MPI_Recv(buf, 8, MPI_CHARACTER, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
        else if (rank == 1) then
          call MPI_Recv(buf, 8, MPI_CHARACTER, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
          call MPI_Send(buf, 8, MPI_CHARACTER, 0, 0, MPI_COMM_WORLD)
        end if
      end do
    else
      do i = 1, n
        if (rank == 0) then
          call PMPI_Send(buf, 8, MPI_CHARACTER, 1, 0, MPI_COMM_WORLD)
          call PMPI_Recv(buf, 8, MPI_CHARACTER, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
        else if (rank == 1) then
          call PMPI_Recv(buf, 8, MPI_CHARACTER, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
          call PMPI_Send(buf, 8, MPI_CHARACTER, 0, 0, MPI_COMM_WORLD)
        end if
      end do
    end if
  end subroutine

  ! rank 0 alone: 8 bytes to itself (small enough to go eagerly, so MPI_Send
  ! returns) and their receive
  subroutine self_loop(side, n)
    integer, intent(in) :: side, n
    integer :: i
    character :: out(8), in(8)
    out = ' '
    if (side == MPI_SIDE) then
      do i = 1, n
        call MPI_Send(out, 8, MPI_CHARACTER, 0, 0, MPI_COMM_WORLD)
        call MPI_Recv(in, 8, MPI_CHARACTER, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
      end do
    else
      do i = 1, n
        call PMPI_Send(out, 8, MPI_CHARACTER, 0, 0, MPI_COMM_WORLD)
        call PMPI_Recv(in, 8, MPI_CHARACTER, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
      end do
    end if
  end subroutine

  ! a barrier that sleeps instead of spinning: while rank 0 measures alone, rank 1
  ! must not compete for the core (the two vCPUs may be siblings on the host)
  subroutine sleeping_barrier()
    interface
      integer(c_int) function usleep(microseconds) bind(c, name='usleep')
        import :: c_int
        integer(c_int), value :: microseconds
      end function
    end interface
    type(MPI_Request) :: request
    logical :: done
    integer(c_int) :: ignored
    call PMPI_Ibarrier(MPI_COMM_WORLD, request)
    do
      call PMPI_Test(request, done, MPI_STATUS_IGNORE)
      if (done) exit
      ignored = usleep(200_c_int)
    end do
  end subroutine

  ! sorts values (insertion sort: a few dozen entries) and returns the median
  double precision function median(values)
    double precision, intent(inout) :: values(:)
    double precision :: v
    integer :: i, j, n
    n = size(values)
    do i = 2, n
      v = values(i)
      j = i - 1
      do while (j >= 1)
        if (values(j) <= v) exit
        values(j + 1) = values(j)
        j = j - 1
      end do
      values(j + 1) = v
    end do
    if (mod(n, 2) == 1) then
      median = values(n / 2 + 1)
    else
      median = 0.5d0 * (values(n / 2) + values(n / 2 + 1))
    end if
  end function

  subroutine measure(name, n, per, kind)
    character(len=*), intent(in) :: name
    integer, intent(in) :: n, per, kind
    ! the order of the four sides in round r: a Latin square, so each side
    ! takes each position equally often
    integer, parameter :: order(4, 0:3) = reshape([1, 2, 3, 4, 4, 3, 2, 1, 3, 1, 4, 2, 2, 4, 1, 3], [4, 4])
    double precision :: t(rounds, 4), diff(rounds), c_diff(rounds), start, ns, m
    integer :: r, k, side
    character(len=6), parameter :: side_name(4) = ['mpi   ', 'pmpi  ', 'c_mpi ', 'c_pmpi']
    call PMPI_Barrier(MPI_COMM_WORLD)
    do r = 0, rounds
      ! comm_rank and self are timed on rank 0 alone; rank 1 sleeps meanwhile
      if (kind /= PINGPONG .and. rank /= 0) exit
      do k = 1, 4
        side = order(k, mod(r, 4))
        start = MPI_Wtime()
        if (side >= C_MPI_SIDE) then
          call mpi_overhead_c_loop(int(kind - 1, c_int), int(side - C_MPI_SIDE, c_int), int(n, c_int), &
            int(rank, c_int))
        else
          select case (kind)
          case (PINGPONG)
            call pingpong_loop(side, n)
          case (SELF)
            call self_loop(side, n)
          case default
            call comm_rank_loop(side, n)
          end select
        end if
        ns = (MPI_Wtime() - start) * 1d9 / n / per
        if (r > 0) t(r, side) = ns
      end do
      if (r > 0) diff(r) = t(r, MPI_SIDE) - t(r, PMPI_SIDE)
      if (r > 0) c_diff(r) = t(r, C_MPI_SIDE) - t(r, C_PMPI_SIDE)
    end do
    call sleeping_barrier()
    if (rank == 0) then
      do side = 1, 4
        m = median(t(:, side))   ! sorted: t(1, side) is the best
        print '(A,F0.2)', name // '_' // trim(side_name(side)) // '_best ', t(1, side)
        print '(A,F0.2)', name // '_' // trim(side_name(side)) // '_best_quarter ', &
          sum(t(1:max(1, rounds / 4), side)) / max(1, rounds / 4)
        print '(A,F0.2)', name // '_' // trim(side_name(side)) // '_median ', m
      end do
      print '(A,F0.2)', name // '_added_paired ', median(diff)
      print '(A,F0.2)', name // '_c_added_paired ', median(c_diff)
    end if
  end subroutine

end program
