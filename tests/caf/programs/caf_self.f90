! Coindexed accesses that gfortran turns into library calls on the calling
! image itself, beside remote ones (keep the sizes in step with
! tests/caf/test_caf_self_transfers.py). k is the right neighbour.
!   x(:) = y(:)[k]          allocatable coarrays: a sendget whose destination
!                           is this image: a get of NA integers from k only
!   a(1:5)[me] = b(1:5)[k]  a sendget to this image: a get of 5 from k only
!   c(1:6) = b(1:6)[me]     a get from this image: no remote access
!   b(1:3)[me] = c(1:3)     a send to this image: no remote access
!   a(6:7)[k] = b(1:2)[me]  a sendget from this image: a put of 2 to k only
!   a(8)[k] = me            a put of 1 to k
!   atomic_define on own[me] (none) and on far[k] (an atomic of 4 bytes to k)
program caf_self
  use iso_fortran_env, only: atomic_int_kind
  implicit none
  integer, parameter :: na = 7
  integer, allocatable :: x(:)[:], y(:)[:]
  integer :: a(8)[*], b(8)[*], c(8), i, me, np, k
  integer(atomic_int_kind) :: own[*], far[*]

  me = this_image()
  np = num_images()
  k = merge(1, me + 1, me == np)
  allocate(x(na)[*], y(na)[*])
  y(:) = [(me * 100 + i, i = 1, na)]
  b(:) = [(me * 10 + i, i = 1, 8)]
  a = 0
  x = 0
  c = 0
  sync all
  x(:) = y(:)[k]
  a(1:5)[me] = b(1:5)[k]
  c(1:6) = b(1:6)[me]
  sync all
  b(1:3)[me] = c(1:3)
  a(6:7)[k] = b(1:2)[me]
  a(8)[k] = me
  call atomic_define(own[me], me)
  call atomic_define(far[k], me)
  sync all
  write(*, '(a,i0,a,*(1x,i0))') 'image ', me, ':', x, a, c(1:6), b
end program
