! The Fortran half of the mixed-language test: an mpi_f08 main program that
! also calls a C library using MPI; both must land in one profile.
program mixed_main
    use mpi_f08
    use, intrinsic :: iso_c_binding, only : c_int
    implicit none
    interface
        function c_ring(rounds) bind(c, name="c_ring") result(token)
            import :: c_int
            integer(c_int), value :: rounds
            integer(c_int) :: token
        end function
    end interface
    integer :: rank, token, total(1)
    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    token = c_ring(4)
    call MPI_Allreduce([token], total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    call MPI_Barrier(MPI_COMM_WORLD)
    print '(i0,a,2i6)', rank, ' mixed', token, total(1)
    call MPI_Finalize()
end program
