! The `use mpi` test program (free source form); its body is shared with the
! `include 'mpif.h'` one (fixed_form.f): program_body.inc.
program free_form
    use mpi
    implicit none
    include 'program_body.inc'
end program

include 'callbacks.inc'
