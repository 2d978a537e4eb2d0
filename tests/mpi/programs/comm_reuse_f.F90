! usage: mpirun -n 4 comm_reuse_f <outdir>
! The Fortran twin of comm_reuse.c (communicators only), through `use mpi_f08`
! (compiled with -DUSE_MPI_F08) or `use mpi`: iteration i splits
! MPI_COMM_WORLD into one communicator whose rank order is rotated by i, every
! rank sends its world rank to the next rank of that communicator (tag i) with
! MPI_Sendrecv, and the communicator is freed, so the library can hand out the
! same Fortran handle again. Each rank writes the handle values it got, the
! world rank it sent to and what it received to <outdir>/rank<R>.out.
#ifdef USE_MPI_F08
#define IERR
#define IERR_ONLY
#define HANDLE(h) h%MPI_VAL
#else
#define IERR , ierror
#define IERR_ONLY ierror
#define HANDLE(h) h
#endif
program comm_reuse_f
#ifdef USE_MPI_F08
  use mpi_f08
#else
  use mpi
#endif
  implicit none
  integer, parameter :: ITERATIONS = 6
#ifdef USE_MPI_F08
  type(MPI_Comm) :: half
  type(MPI_Group) :: group, world
#endif
#ifndef USE_MPI_F08
  integer :: half, group, world
#endif
  integer :: ierror, rank, me, nranks, i, sent, received, next, next_world(1), unit
  character(len=4096) :: outdir
  character(len=4200) :: path
  call MPI_Init(IERR_ONLY)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank IERR)
  call get_command_argument(1, outdir)
  write (path, '(A,"/rank",I0,".out")') trim(outdir), rank
  open (newunit=unit, file=trim(path), status='replace', action='write')
  do i = 0, ITERATIONS - 1
    call MPI_Comm_split(MPI_COMM_WORLD, 0, mod(rank + i, 4), half IERR)
    call MPI_Comm_rank(half, me IERR)
    call MPI_Comm_size(half, nranks IERR)
    sent = rank
    received = -1
    call MPI_Sendrecv(sent, 1, MPI_INTEGER, mod(me + 1, nranks), i, received, 1, MPI_INTEGER, &
                      mod(me + nranks - 1, nranks), i, half, MPI_STATUS_IGNORE IERR)
    next = mod(me + 1, nranks)
    call MPI_Comm_group(half, group IERR)
    call MPI_Comm_group(MPI_COMM_WORLD, world IERR)
    call MPI_Group_translate_ranks(group, 1, [next], world, next_world IERR)
    call MPI_Group_free(group IERR)
    call MPI_Group_free(world IERR)
    write (unit, '("HANDLE ",I0," ",I0," ",I0)') rank, i, HANDLE(half)
    write (unit, '("SENT ",I0," ",I0," ",I0)') rank, i, next_world(1)
    write (unit, '("RECEIVED ",I0," ",I0," ",I0)') rank, i, received
    call MPI_Comm_free(half IERR)
  end do
  close (unit)
  call MPI_Finalize(IERR_ONLY)
end program
