! The mpi_f08 twin of exec_use_mpi.f90: the same calls, the same output.
program exec_f08
    use mpi_f08
    implicit none
    integer :: rank, i, total, sum
    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    sum = 0
    do i = 1, 3
        call MPI_Allreduce(rank + i, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
        sum = sum + total
    end do
    call MPI_Barrier(MPI_COMM_WORLD)
    print '(A,I0,A,I0)', 'RESULT ', rank, ' ', sum
    call MPI_Finalize()
end program
