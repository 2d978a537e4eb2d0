! Every construct the CAF adapter measures, with counts the test derives from
! the constants below (keep them in step with tests/caf/test_caf_end_to_end.py):
! a 2D halo exchange (contiguous columns to the right, strided rows to the
! left, a strided get from the right) with sync all, a pipeline with sync
! images, critical sections and a lock, co_sum / co_broadcast, events.
program caf_constructs
  use iso_fortran_env, only: lock_type, event_type
  implicit none
  integer, parameter :: nx = 6, ny = 5, nsteps = 3, ncritical = 2
  real(8) :: u(0:nx+1, 0:ny+1)[*]
  type(lock_type) :: lk[*]
  type(event_type) :: ev[*]
  integer :: counter[*], locked[*], token[*]
  integer :: me, np, left, right, step, k, s, b

  me = this_image()
  np = num_images()
  left = merge(np, me - 1, me == 1)
  right = merge(1, me + 1, me == np)
  u = real(me, 8)
  counter = 0
  locked = 0
  token = 0
  sync all                                         ! sync all 1

  ! halo exchange: columns are contiguous, rows strided (column-major)
  ! (the interior changes only between the second sync all of a step and the
  ! first of the next, so the get never races with the neighbour's update)
  do step = 1, nsteps
    u(1:nx, 1:ny) = u(1:nx, 1:ny) + 1.0d0
    u(1:nx, 0)[right] = u(1:nx, ny)                ! put nx reals to right
    u(0, 1:ny)[left] = u(nx, 1:ny)                 ! put ny reals (strided) to left
    sync all                                       ! sync all 2 .. nsteps+1
    u(nx+1, 1:ny) = u(1, 1:ny)[right]              ! get ny reals (strided) from right
    sync all                                       ! sync all nsteps+2 .. 2*nsteps+1
  end do
  write(*, '(a,i0,a,f0.1,1x,f0.1,1x,f0.1)') 'halo ', me, ': ', u(1, 0), u(0, 1), u(nx+1, 1)

  ! pipeline: image i waits for i-1, reads its token, releases i+1
  if (me > 1) then
    sync images (me - 1)
    token = token[me - 1] + 1                      ! get 1 integer from me-1
  end if
  if (me < np) sync images (me + 1)
  write(*, '(a,i0,a,i0)') 'token ', me, ': ', token

  ! critical sections on image 1's counter, a lock on its other counter
  do k = 1, ncritical
    critical
      counter[1] = counter[1] + 1                  ! get + put of 1 integer, image 1
    end critical
  end do
  lock (lk[1])
  locked[1] = locked[1] + 1                        ! get + put of 1 integer, image 1
  unlock (lk[1])
  sync all                                         ! sync all 2*nsteps+2
  if (me == 1) write(*, '(a,i0,1x,i0)') 'counters: ', counter, locked

  ! collectives
  s = me
  call co_sum(s)
  b = 0
  if (me == 1) b = 42
  call co_broadcast(b, source_image=1)
  write(*, '(a,i0,a,i0,1x,i0)') 'coll ', me, ': ', s, b

  ! events: image 1 posts one event to every other image
  if (me == 1) then
    do k = 2, np
      event post (ev[k])
    end do
  else
    event wait (ev)
  end if
  write(*, '(a,i0)') 'done ', me
end program
