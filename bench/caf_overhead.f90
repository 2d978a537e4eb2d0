! bench/caf_overhead's program: ns per `sync all` and per small remote put
! (one real(8), image 1 to image 2), each through the CAF adapter's wrapper
! (side_wrapped) and unwrapped (side_real: the same code calling OpenCoarrays
! directly), in alternating blocks (ABBA order; round 0 is a warm-up).
! usage: caf_overhead rounds syncs_per_block puts_per_block
! Image 1 prints the best block per side in ns per call:
!   sync_wrapped_best, sync_real_best, put_wrapped_best, put_real_best
! and the sync alls the program made outside the blocks (driver_syncs), so
! a measured run's visits can be checked. The coarray: caf_overhead_side.f90.
! Around the unwrapped blocks the program switches the measurement's event
! generation off, as the CAF wrapper does around its real call: the calls
! OpenCoarrays makes inside (MPI_Put, MPI_Barrier, ... and its own
! _gfortran_caf_is_contiguous, all through wrappers in a measured build)
! then cost on both sides what they cost inside a measured statement, so the
! difference of the sides is the CAF wrapper's own cost.

program caf_overhead
  use caf_overhead_data
  use side_wrapped, only: w_sync => sync_loop, w_put => put_loop
  use side_real, only: r_sync => sync_loop, r_put => put_loop
  implicit none
  interface
    subroutine event_generation_off() bind(c, name="scorep_event_generation_off_fn")
    end subroutine
    subroutine event_generation_on() bind(c, name="scorep_event_generation_on_fn")
    end subroutine
  end interface
  integer :: rounds, nsync, nput, r, k, side, me, driver_syncs
  integer(8) :: t0, t1
  real(8) :: best_sync(0:1), best_put(0:1), ns
  character(len=32) :: arg

  call get_command_argument(1, arg); read(arg, *) rounds
  call get_command_argument(2, arg); read(arg, *) nsync
  call get_command_argument(3, arg); read(arg, *) nput
  me = this_image()
  a = 0
  best_sync = huge(1.0d0)
  best_put = huge(1.0d0)
  driver_syncs = 0
  do r = 0, rounds
    do k = 0, 1
      side = merge(k, 1 - k, mod(r, 2) == 0)        ! 0 1 | 1 0 | 0 1 ...
      sync all
      call system_clock(t0)
      if (side == 0) then
        call w_sync(nsync)
      else
        call event_generation_off()
        call r_sync(nsync)
        call event_generation_on()
      end if
      call system_clock(t1)
      ns = real(t1 - t0, 8) / nsync
      if (r > 0) best_sync(side) = min(best_sync(side), ns)
      sync all
      if (me == 1) then
        call system_clock(t0)
        if (side == 0) then
          call w_put(nput, 2)
        else
          call event_generation_off()
          call r_put(nput, 2)
          call event_generation_on()
        end if
        call system_clock(t1)
        ns = real(t1 - t0, 8) / nput
        if (r > 0) best_put(side) = min(best_put(side), ns)
      end if
      sync all
      driver_syncs = driver_syncs + 3
    end do
  end do
  if (me == 1) then
    write(*, '(a,1x,f0.2)') 'sync_wrapped_best', best_sync(0)
    write(*, '(a,1x,f0.2)') 'sync_real_best', best_sync(1)
    write(*, '(a,1x,f0.2)') 'put_wrapped_best', best_put(0)
    write(*, '(a,1x,f0.2)') 'put_real_best', best_put(1)
    write(*, '(a,1x,i0)') 'driver_syncs', driver_syncs
  end if
end program
