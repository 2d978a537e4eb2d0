! User regions in Fortran (scorep_user.inc): with n from the command line,
! region "fortran_loop" n times, function region "work" n times, parameters
! "step" (the iteration) and "parity" ("odd"/"even", a blank-padded string)
! once per loop iteration.
#include "scorep_user.inc"
module user_work
  implicit none
contains
  subroutine work(total, i)
    integer, intent(inout) :: total
    integer, intent(in) :: i
    SCOREP_USER_FUNC_DEFINE()
    SCOREP_USER_FUNC_BEGIN("work")
    total = total + i
    SCOREP_USER_FUNC_END()
  end subroutine work
end module user_work

program user
  use user_work
  implicit none
  integer :: n, i, total
  character(len=32) :: arg
  character(len=8) :: parity
  SCOREP_USER_REGION_DEFINE(loop)
  SCOREP_USER_PARAMETER_DEFINE(step)
  SCOREP_USER_PARAMETER_DEFINE(kind)
  n = 10
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) n
  end if
  total = 0
  do i = 1, n
    SCOREP_USER_REGION_BEGIN(loop, "fortran_loop", SCOREP_USER_REGION_TYPE_LOOP)
    SCOREP_USER_PARAMETER_INT64(step, "step", i)
    parity = merge("odd ", "even", mod(i, 2) == 1)
    SCOREP_USER_PARAMETER_STRING(kind, "parity", parity)
    call work(total, i)
    SCOREP_USER_REGION_END(loop)
  end do
  print '(a,i0)', 'total=', total
end program user
