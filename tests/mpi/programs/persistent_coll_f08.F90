! The Fortran 2008 twin of persistent_coll.c (use mpi_f08), for
! tests/mpi/test_persistent_collectives.py: MPI_Allreduce_init (3 double
! precision), MPI_Bcast_init (5 integers from root 2), MPI_Barrier_init and
! MPI_Neighbor_allgather_init (2 integers per neighbour) on a Cartesian 2 x 2
! communicator (dimension 1 periodic, dimension 2 not); NSTART rounds of
! MPI_Start + MPI_Wait per request, NSTARTALL of MPI_Startall + MPI_Waitall.
! Needs 4 processes; prints `RESULT <rank> <checksum>`.
program persistent_coll_f08
    use :: mpi_f08
    implicit none
    integer, parameter :: NSTART = 3, NSTARTALL = 2, ROOT = 2
    integer :: rank, nprocs, round, i, r
    type(MPI_Comm) :: cart
    type(MPI_Request) :: req(4)
    double precision :: in(3), out(3)
    integer :: bcast(5), nsend(2), nrecv(8)
    integer(kind=8) :: checksum

    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
    if (nprocs /= 4) call MPI_Abort(MPI_COMM_WORLD, 2)
    call MPI_Cart_create(MPI_COMM_WORLD, 2, [2, 2], [.true., .false.], .false., cart)
    call MPI_Allreduce_init(in, out, 3, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, req(1))
    call MPI_Bcast_init(bcast, 5, MPI_INTEGER, ROOT, MPI_COMM_WORLD, MPI_INFO_NULL, req(2))
    call MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, req(3))
    call MPI_Neighbor_allgather_init(nsend, 2, MPI_INTEGER, nrecv, 2, MPI_INTEGER, cart, MPI_INFO_NULL, req(4))
    checksum = 1
    do round = 0, NSTART + NSTARTALL - 1
        do i = 1, 3
            in(i) = rank * 10 + i + round
        end do
        do i = 1, 5
            bcast(i) = merge(100 * round + i, -1, rank == ROOT)
        end do
        nsend = [rank + round, -rank]
        nrecv = -7
        if (round < NSTART) then
            do r = 1, 4
                call MPI_Start(req(r))
                call MPI_Wait(req(r), MPI_STATUS_IGNORE)
            end do
        else
            call MPI_Startall(4, req)
            call MPI_Waitall(4, req, MPI_STATUSES_IGNORE)
        end if
        do i = 1, 3
            checksum = mod(checksum * 31 + int(out(i), 8), 1000000007_8)
        end do
        do i = 1, 5
            checksum = mod(checksum * 31 + bcast(i) + 1000, 1000000007_8)
        end do
        do i = 1, 8
            checksum = mod(checksum * 31 + nrecv(i) + 1000, 1000000007_8)
        end do
    end do
    do r = 1, 4
        call MPI_Request_free(req(r))
    end do
    call MPI_Comm_free(cart)
    print '(A, I0, A, I0)', 'RESULT ', rank, ' ', checksum
    call MPI_Finalize()
end program
