! Teams: the images split by parity into two teams (team 1: odd images,
! team 2: even ones, in image order); inside `change team` each image puts
! its image index to the next image of its team (team image numbering) and
! the team syncs, sums and broadcasts; after `end team` one put in the
! initial team. Counts and targets: tests/caf/test_caf_teams.py.
program caf_teams
  use iso_fortran_env, only: team_type
  implicit none
  integer, parameter :: nputs = 2
  type(team_type) :: t
  integer :: me, np, k, s, x[*], y[*]
  me = this_image()
  np = num_images()
  x = 0
  y = 0
  form team (mod(me - 1, 2) + 1, t)
  change team (t)
    do k = 1, nputs
      x[mod(this_image(), num_images()) + 1] = me       ! team's next image
    end do
    sync all
    s = me
    call co_sum(s)
    call co_broadcast(s, source_image=1)
  end team
  y[mod(me, np) + 1] = me                               ! initial team's next image
  sync all
  write(*, '(a,i0,a,i0,1x,i0,1x,i0)') 'image ', me, ': ', x, y, s
end program
