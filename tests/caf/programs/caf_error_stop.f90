! Image 2 ends the job with error stop while the others wait in sync all:
! every image's measurement must still be readable. Each image first puts
! one integer to image 1 (nputs times) and passes one sync all.
program caf_error_stop
  implicit none
  integer, parameter :: nputs = 3
  integer :: a(4)[*], k
  a = this_image()
  do k = 1, nputs
    a(k)[1] = this_image()
  end do
  sync all
  if (this_image() == 2) error stop 3
  sync all
  write(*, '(a)') 'not reached'
end program
