! The Fortran half of the mixed-language test of the mpif.h / use mpi adapter:
! a `use mpi` main program that also calls a C library using MPI
! (tests/mpi_f08/mixed_c_library.c); each call must count once.
program mixed_main
    use mpi
    use, intrinsic :: iso_c_binding, only : c_int
    implicit none
    interface
        function c_ring(rounds) bind(c, name="c_ring") result(token)
            import :: c_int
            integer(c_int), value :: rounds
            integer(c_int) :: token
        end function
    end interface
    integer :: rank, token, total, ierr, i
    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    token = c_ring(4)
    call MPI_Allreduce(token, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    do i = 1, 3
        call MPI_Barrier(MPI_COMM_WORLD, ierr)
    end do
    print '(i0,a,2i6)', rank, ' mixed', token, total
    call MPI_Finalize(ierr)
end program
