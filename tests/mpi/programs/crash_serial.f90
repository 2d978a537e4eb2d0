! A serial Fortran program that adds 1..4 in a subroutine, then writes
! through a disassociated pointer (gfortran prints a backtrace and re-raises).
program crash_serial
    implicit none
    integer, pointer :: p(:) => null()
    integer :: i, total
    total = 0
    do i = 1, 4
        call work(i, total)
    end do
    print '(a,i0)', 'total ', total
    flush(6)
    p(1) = total
    print *, p(1)
contains
    subroutine work(n, total)
        integer, intent(in) :: n
        integer, intent(inout) :: total
        total = total + n
    end subroutine
end program
