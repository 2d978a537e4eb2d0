! The loop of bench/p2p_instructions.c through `use mpi_f08` (one process,
! 8 bytes to itself), for counting the F08 wrappers' instructions under
! callgrind (bench/p2p_instructions).  usage: p2p_instructions_f08 [iterations]
program p2p_instructions_f08
    use mpi_f08
    implicit none
    integer :: n, i, me
    character(len=16) :: arg
    integer(kind=1) :: out(8), in(8)
    type(MPI_Comm) :: dup
    type(MPI_Request) :: r(2)
    call MPI_Init()
    n = 10000
    if (command_argument_count() > 0) then
        call get_command_argument(1, arg)
        read (arg, *) n
    end if
    out = 0
    call MPI_Comm_dup(MPI_COMM_WORLD, dup)
    do i = 1, n
        call MPI_Comm_rank(MPI_COMM_WORLD, me)
        call MPI_Send(out, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD)
        call MPI_Recv(in, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
        call MPI_Irecv(in, 8, MPI_BYTE, 0, 2, MPI_COMM_WORLD, r(1))
        call MPI_Isend(out, 8, MPI_BYTE, 0, 2, MPI_COMM_WORLD, r(2))
        call MPI_Wait(r(1), MPI_STATUS_IGNORE)
        call MPI_Wait(r(2), MPI_STATUS_IGNORE)
        call MPI_Send(out, 8, MPI_BYTE, 0, 3, dup)
        call MPI_Recv(in, 8, MPI_BYTE, 0, 3, dup, MPI_STATUS_IGNORE)
    end do
    call MPI_Comm_free(dup)
    call MPI_Finalize()
end program
