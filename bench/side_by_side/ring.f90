! The `use mpi` program of the side-by-side comparison with Score-P
! (bench/scorep_side_by_side): a ring of blocking and non-blocking messages,
! collectives rooted and not, a communicator split by parity and freed.
! Prints one checksum per rank, which the measurement must not change.
module ring_work
    use mpi
    implicit none
contains
    subroutine pass_ring(rank, size, value, got)
        integer, intent(in) :: rank, size, value
        integer, intent(out) :: got
        integer :: right, left, ierror, requests(2), back
        integer :: statuses(MPI_STATUS_SIZE, 2)
        right = mod(rank + 1, size)
        left = mod(rank + size - 1, size)
        if (mod(rank, 2) == 0) then
            call MPI_Send(value, 1, MPI_INTEGER, right, 1, MPI_COMM_WORLD, ierror)
            call MPI_Recv(got, 1, MPI_INTEGER, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierror)
        else
            call MPI_Recv(got, 1, MPI_INTEGER, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierror)
            call MPI_Send(value, 1, MPI_INTEGER, right, 1, MPI_COMM_WORLD, ierror)
        end if
        call MPI_Irecv(back, 1, MPI_INTEGER, right, 2, MPI_COMM_WORLD, requests(1), ierror)
        call MPI_Isend(got, 1, MPI_INTEGER, left, 2, MPI_COMM_WORLD, requests(2), ierror)
        call MPI_Waitall(2, requests, statuses, ierror)
        got = got + back
    end subroutine

    subroutine combine(rank, size, value, total)
        integer, intent(in) :: rank, size, value
        integer, intent(out) :: total
        integer :: ierror, root_value, gathered(64), parts(64), mine
        double precision :: sums(4), all(4)
        call MPI_Allreduce(value, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierror)
        root_value = value
        call MPI_Bcast(root_value, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierror)
        sums = dble(value + rank)
        call MPI_Reduce(sums, all, 4, MPI_DOUBLE_PRECISION, MPI_SUM, size - 1, MPI_COMM_WORLD, ierror)
        call MPI_Gather(value, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierror)
        parts(1:size) = value
        call MPI_Alltoall(parts, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, MPI_COMM_WORLD, ierror)
        call MPI_Scatter(gathered, 1, MPI_INTEGER, mine, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierror)
        total = total + root_value + mine
    end subroutine

    subroutine by_parity(rank, value, total)
        integer, intent(in) :: rank, value
        integer, intent(out) :: total
        integer :: half, ierror
        call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half, ierror)
        call MPI_Allreduce(value, total, 1, MPI_INTEGER, MPI_MAX, half, ierror)
        call MPI_Comm_free(half, ierror)
    end subroutine
end module

program ring
    use ring_work
    implicit none
    integer :: ierror, rank, size, step, value, got, total, best, checksum
    call MPI_Init(ierror)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierror)
    call MPI_Comm_size(MPI_COMM_WORLD, size, ierror)
    value = rank + 1
    checksum = 0
    do step = 1, 5
        call pass_ring(rank, size, value, got)
        call combine(rank, size, got, total)
        value = mod(total + step, 1000)
        checksum = checksum + value
    end do
    call by_parity(rank, value, best)
    call MPI_Barrier(MPI_COMM_WORLD, ierror)
    print '(A,I0,A,I0,A,I0)', 'rank ', rank, ' checksum ', checksum, ' best ', best
    call MPI_Finalize(ierror)
end program
