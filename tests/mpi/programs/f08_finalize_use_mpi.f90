! An mpi_f08 program whose MPI_Finalize goes through a `use mpi` subroutine
! (as the MPICH test suite's MTest_Finalize does). Measured mpi_f08 calls on
! every rank: ROUNDS MPI_Sendrecv of 4 * (r + 1) bytes in round r and ROUNDS
! MPI_Allreduce of one integer. Prints RESULT <rank> <sum>.
module old_style_end
contains
    subroutine end_mpi()
        use mpi
        integer :: ierror
        call MPI_Finalize(ierror)
    end subroutine
end module

program f08_finalize_use_mpi
    use mpi_f08
    use old_style_end
    implicit none
    integer, parameter :: ROUNDS = 3
    integer :: rank, size, r, sum, value, total
    integer :: out(ROUNDS), in(ROUNDS)
    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, size)
    sum = 0
    out = 0
    in = 0
    do r = 1, ROUNDS
        out(1) = rank + r
        call MPI_Sendrecv(out, r, MPI_INTEGER, modulo(rank + 1, size), r, in, r, MPI_INTEGER, &
                          modulo(rank - 1, size), r, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
        value = in(1)
        call MPI_Allreduce(value, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
        sum = sum + total
    end do
    print '(A,I0,A,I0)', 'RESULT ', rank, ' ', sum
    call end_mpi()
end program
