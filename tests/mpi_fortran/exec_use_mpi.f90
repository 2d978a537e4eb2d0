! A use mpi program for scorep-exec and pkg-config linking: per rank 1
! MPI_Init, 1 MPI_Comm_rank, 3 MPI_Allreduce of one integer, 1 MPI_Barrier,
! 1 MPI_Finalize. Prints RESULT <rank> <sum of the three reductions>.
program exec_use_mpi
    use mpi
    implicit none
    integer :: ierror, rank, size, i, total, sum
    call MPI_Init(ierror)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierror)
    sum = 0
    do i = 1, 3
        call MPI_Allreduce(rank + i, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierror)
        sum = sum + total
    end do
    call MPI_Barrier(MPI_COMM_WORLD, ierror)
    print '(A,I0,A,I0)', 'RESULT ', rank, ' ', sum
    call MPI_Finalize(ierror)
end program
