! OpenMP constructs in Fortran whose counts follow from the source: REGIONS
! parallel regions, each with a dynamically scheduled loop over ITEMS items
! (one critical section each), an explicit barrier, a single, sections
! with two sections, a task per thread and a taskwait.
program omp_constructs_f
  use omp_lib
  implicit none
  integer, parameter :: regions = 3, items = 40
  integer :: r, i, threads
  double precision :: total, w
  integer :: items_done, singles, tasks, sections_done
  total = 0; items_done = 0; singles = 0; tasks = 0; sections_done = 0; threads = 0
  do r = 1, regions
!$omp parallel private(w)
!$omp do schedule(dynamic, 1)
    do i = 1, items
      w = work(i)
!$omp critical
      total = total + w
      items_done = items_done + 1
!$omp end critical
    end do
!$omp end do
!$omp barrier
!$omp single
    singles = singles + 1
    threads = omp_get_num_threads()
!$omp end single
!$omp sections
!$omp section
!$omp atomic
    sections_done = sections_done + 1
!$omp section
!$omp atomic
    sections_done = sections_done + 1
!$omp end sections
!$omp task
!$omp atomic
    tasks = tasks + 1
!$omp end task
!$omp taskwait
!$omp end parallel
  end do
  print '(a,i0,a,f0.0,a,i0,a,i0,a,i0,a,i0)', 'threads ', threads, ' total ', total, ' items ', items_done, &
        ' singles ', singles, ' sections ', sections_done, ' tasks ', tasks
contains
  double precision function work(i)
    integer, intent(in) :: i
    integer :: k
    work = 0
    do k = 0, 1999
      work = work + mod(i * k, 7)
    end do
  end function work
end program omp_constructs_f
