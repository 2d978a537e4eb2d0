! The include 'mpif.h' test program (fixed source form); its body is shared
! with the `use mpi` one (free_form.f90): program_body.inc.
      program fixed_form
      implicit none
      include 'mpif.h'
      include 'program_body.inc'
      end program

      include 'callbacks.inc'
