! One side of bench/caf_overhead: the loops whose coarray statements are
! measured. Compiled twice (-cpp -DSIDE=...): side_wrapped calls
! _gfortran_caf_* as gfortran emits them (through the CAF adapter's
! __wrap__gfortran_caf_* in a `scorep caf` link); in side_real's object the
! bench renames those calls to __real__gfortran_caf_* (objcopy), which ld's
! --wrap resolves to OpenCoarrays' own functions: the same code, unwrapped,
! in the same process. Compiled once more with -DDATA: the coarray both
! sides use (registered through the adapter in a measured build); with
! -DSTUB: for the plain build, no-op stand-ins of the measurement's
! scorep_event_generation_off_fn / _on_fn, which the program calls around
! the unwrapped side.
#ifdef DATA
module caf_overhead_data
  implicit none
  real(8) :: a(8)[*]
end module
#elif defined(STUB)
subroutine event_generation_off() bind(c, name="scorep_event_generation_off_fn")
end subroutine
subroutine event_generation_on() bind(c, name="scorep_event_generation_on_fn")
end subroutine
#else
module SIDE
  use caf_overhead_data, only: a
  implicit none
contains
  subroutine sync_loop(n)
    integer, intent(in) :: n
    integer :: i
    do i = 1, n
      sync all
    end do
  end subroutine

  ! n remote stores of one real(8) to image target
  subroutine put_loop(n, target)
    integer, intent(in) :: n, target
    integer :: i
    do i = 1, n
      a(mod(i, size(a)) + 1)[target] = real(i, 8)
    end do
  end subroutine
end module
#endif
