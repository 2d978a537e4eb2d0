! Compiler instrumentation test program (Fortran): a module procedure, a
! module function, an external subroutine. With n read from the command
! line: geometry::area n times, geometry::accumulate 2n times, helper n.
module geometry
  implicit none
contains
  function area(w, h) result(a)
    integer, intent(in) :: w, h
    integer :: a
    a = w * h
  end function area

  subroutine accumulate(total, x)
    integer, intent(inout) :: total
    integer, intent(in) :: x
    total = total + x
  end subroutine accumulate
end module geometry

subroutine helper(total)
  integer, intent(inout) :: total
  total = total + 1
end subroutine helper

program calls
  use geometry
  implicit none
  integer :: n, i, total
  character(len=32) :: arg
  n = 10
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) n
  end if
  total = 0
  do i = 1, n
    call accumulate(total, area(i, 2))
    call accumulate(total, 1)
    call helper(total)
  end do
  print '(a,i0)', 'total=', total
end program calls
