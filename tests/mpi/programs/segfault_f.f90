! Rank 1 writes through a disassociated pointer after three barriers; the
! other ranks wait in a fourth barrier until the launcher ends them.
program segfault_f
    use mpi
    implicit none
    integer, pointer :: nowhere(:) => null()
    integer :: rank, ierror, i
    call MPI_Init(ierror)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierror)
    do i = 1, 3
        call MPI_Barrier(MPI_COMM_WORLD, ierror)
    end do
    if (rank == 1) then
        print '(a)', 'rank 1 crashes now'
        flush(6)
        nowhere(1) = 42
        print *, nowhere(1)
    end if
    call MPI_Barrier(MPI_COMM_WORLD, ierror)
    call MPI_Finalize(ierror)
end program
