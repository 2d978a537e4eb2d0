! The OpenMP constructs gfortran computes inline, without a runtime call:
! loops with a static schedule (with and without their implicit barrier),
! master, flush and atomic, a combined parallel loop with a static and one
! with a dynamic schedule, REGIONS times inside a loop; loops with and
! without their end directive (their implicit barrier is named after the
! one or the END DO). Prints what it computed (which a measurement must not
! change).
program omp_inline_constructs_f
  implicit none
  integer, parameter :: regions = 3, items = 40
  integer :: r, i, masters, updates, singles
  double precision :: squares(items), total
  masters = 0; updates = 0; singles = 0; total = 0
  do r = 1, regions
!$omp parallel
!$omp do schedule(static)
    do i = 1, items
      squares(i) = dble(i) * i
    end do
!$omp end do
!$omp master
    masters = masters + 1
!$omp end master
!$omp flush
!$omp atomic
    updates = updates + 1
!$omp do schedule(static)
    do i = 1, items
      squares(i) = squares(i) + 1
    end do
!$omp end do nowait
!$omp single
    singles = singles + 1
!$omp end single
!$omp do
    do i = 1, items
      squares(i) = squares(i) - 1
    enddo
!$omp end parallel
!$omp parallel do schedule(static)
    do i = 1, items
      squares(i) = squares(i) * 2
    end do
  end do
!$omp parallel do schedule(dynamic, 4) reduction(+:total)
  do i = 1, items
    total = total + squares(i)
  end do
!$omp end parallel do
  print '(a,f0.0,a,i0,a,i0,a,i0)', 'sum ', total, ' masters ', masters, ' updates ', updates, ' singles ', singles
end program omp_inline_constructs_f
