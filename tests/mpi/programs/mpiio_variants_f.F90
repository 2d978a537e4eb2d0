! usage: mpirun -n 2 mpiio_variants_f <directory>
! tests/mpi/programs/mpiio_variants.c in Fortran, through `use mpi_f08`
! (compiled with -DUSE_MPI_F08) or `include 'mpif.h'`: every MPI I/O
! data-access procedure once per rank with its own count, each call's status
! (MPI_Get_count) and the data read back checked; prints per procedure
!   IO <rank> <procedure> <bytes read> <bytes written>
! and "CHECKED <rank> <calls>" when all statuses and data were right.
#ifdef USE_MPI_F08
#define IERR
#define IERR_ONLY
#else
#define IERR , ierr
#define IERR_ONLY ierr
#endif
program mpiio_variants_f
#ifdef USE_MPI_F08
  use mpi_f08
  implicit none
  type(MPI_File) :: fh
  type(MPI_Request) :: request
  type(MPI_Status) :: status
#else
  implicit none
  include 'mpif.h'
  integer :: fh, request
  integer :: status(MPI_STATUS_SIZE)
#endif
  integer, parameter :: AREA = 4096, MAXN = 256
  integer :: ierr, rank, failures, calls, intsize, pass, k, n
  integer :: buffer(MAXN)
  integer(kind=MPI_OFFSET_KIND) :: offsets(0:15), zero
  logical :: reading
  character(len=4000) :: dir
  character(len=40) :: name

  failures = 0
  calls = 0
  zero = 0
  call MPI_Init(IERR_ONLY)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank IERR)
  call MPI_Type_size(MPI_INTEGER, intsize IERR)
  call get_command_argument(1, dir)

  ! file "private": rank r's area starts at r * AREA; variant k at offsets(k)
  call MPI_File_open(MPI_COMM_WORLD, trim(dir) // '/private', MPI_MODE_CREATE + MPI_MODE_RDWR, &
                     MPI_INFO_NULL, fh IERR)
  offsets(0) = rank * AREA
  do k = 1, 15
    offsets(k) = offsets(k - 1) + intsize * count_of(k - 1)
  end do
  do pass = 0, 1
    reading = pass == 1
    do k = 0, 9
      call private_step(k)
    end do
    call MPI_File_sync(fh IERR)
    call MPI_Barrier(MPI_COMM_WORLD IERR)
    call MPI_File_sync(fh IERR)
  end do
  call MPI_File_close(fh IERR)

  ! file "shared": the shared file pointer, written then read in the same sizes
  call MPI_File_open(MPI_COMM_WORLD, trim(dir) // '/shared', MPI_MODE_CREATE + MPI_MODE_RDWR, &
                     MPI_INFO_NULL, fh IERR)
  do pass = 0, 1
    reading = pass == 1
    do k = 20, 23
      call shared_step(k)
    end do
    call MPI_File_sync(fh IERR)
    call MPI_Barrier(MPI_COMM_WORLD IERR)
    call MPI_File_sync(fh IERR)
    call MPI_File_seek_shared(fh, zero, MPI_SEEK_SET IERR)
  end do
  call MPI_File_close(fh IERR)
  if (failures == 0) print '(a, i0, a, i0)', 'CHECKED ', rank, ' ', calls
  call MPI_Finalize(IERR_ONLY)

contains

  ! the count of variant k on this rank: distinct per variant and rank
  integer function count_of(k)
    integer, intent(in) :: k
    count_of = 4 * (k + 1) + rank
  end function

  subroutine prepare(k)
    integer, intent(in) :: k
    integer :: i
    n = count_of(k)
    if (reading) then
      buffer = -1
    else
      buffer(1:n) = [(k * 1000 + i - 1, i = 1, n)]
    end if
  end subroutine

  subroutine done(k, verify)
    integer, intent(in) :: k
    logical, intent(in) :: verify
    integer :: got, i
    call MPI_Get_count(status, MPI_INTEGER, got IERR)
    if (got /= n) then
      print '(a, i0, a, a, a, i0, a, i0)', 'FAILED ', rank, ' ', trim(name), ' moved ', got, ' of ', n
      failures = failures + 1
    end if
    if (reading .and. verify) then
      do i = 1, n
        if (buffer(i) /= k * 1000 + i - 1) then
          print '(a, i0, a, a, a, i0)', 'FAILED ', rank, ' ', trim(name), ' wrong data at ', i
          failures = failures + 1
          exit
        end if
      end do
    end if
    calls = calls + 1
    if (reading) then
      print '(a, i0, a, a, a, i0, a)', 'IO ', rank, ' ', trim(name), ' ', n * intsize, ' 0'
    else
      print '(a, i0, a, a, a, i0)', 'IO ', rank, ' ', trim(name), ' 0 ', n * intsize
    end if
  end subroutine

  subroutine private_step(k)
    integer, intent(in) :: k
    call prepare(k)
    select case (k)
    case (0)
      call MPI_File_seek(fh, offsets(k), MPI_SEEK_SET IERR)
      if (reading) then
        name = 'MPI_File_read'
        call MPI_File_read(fh, buffer, n, MPI_INTEGER, status IERR)
      else
        name = 'MPI_File_write'
        call MPI_File_write(fh, buffer, n, MPI_INTEGER, status IERR)
      end if
    case (1)
      if (reading) then
        name = 'MPI_File_read_at'
        call MPI_File_read_at(fh, offsets(k), buffer, n, MPI_INTEGER, status IERR)
      else
        name = 'MPI_File_write_at'
        call MPI_File_write_at(fh, offsets(k), buffer, n, MPI_INTEGER, status IERR)
      end if
    case (2)
      call MPI_File_seek(fh, offsets(k), MPI_SEEK_SET IERR)
      if (reading) then
        name = 'MPI_File_read_all'
        call MPI_File_read_all(fh, buffer, n, MPI_INTEGER, status IERR)
      else
        name = 'MPI_File_write_all'
        call MPI_File_write_all(fh, buffer, n, MPI_INTEGER, status IERR)
      end if
    case (3)
      if (reading) then
        name = 'MPI_File_read_at_all'
        call MPI_File_read_at_all(fh, offsets(k), buffer, n, MPI_INTEGER, status IERR)
      else
        name = 'MPI_File_write_at_all'
        call MPI_File_write_at_all(fh, offsets(k), buffer, n, MPI_INTEGER, status IERR)
      end if
    case (4)
      call MPI_File_seek(fh, offsets(k), MPI_SEEK_SET IERR)
      if (reading) then
        name = 'MPI_File_read_all_begin'
        call MPI_File_read_all_begin(fh, buffer, n, MPI_INTEGER IERR)
        call MPI_File_read_all_end(fh, buffer, status IERR)
      else
        name = 'MPI_File_write_all_begin'
        call MPI_File_write_all_begin(fh, buffer, n, MPI_INTEGER IERR)
        call MPI_File_write_all_end(fh, buffer, status IERR)
      end if
    case (5)
      if (reading) then
        name = 'MPI_File_read_at_all_begin'
        call MPI_File_read_at_all_begin(fh, offsets(k), buffer, n, MPI_INTEGER IERR)
        call MPI_File_read_at_all_end(fh, buffer, status IERR)
      else
        name = 'MPI_File_write_at_all_begin'
        call MPI_File_write_at_all_begin(fh, offsets(k), buffer, n, MPI_INTEGER IERR)
        call MPI_File_write_at_all_end(fh, buffer, status IERR)
      end if
    case (6)
      call MPI_File_seek(fh, offsets(k), MPI_SEEK_SET IERR)
      if (reading) then
        name = 'MPI_File_iread'
        call MPI_File_iread(fh, buffer, n, MPI_INTEGER, request IERR)
      else
        name = 'MPI_File_iwrite'
        call MPI_File_iwrite(fh, buffer, n, MPI_INTEGER, request IERR)
      end if
      call MPI_Wait(request, status IERR)
    case (7)
      if (reading) then
        name = 'MPI_File_iread_at'
        call MPI_File_iread_at(fh, offsets(k), buffer, n, MPI_INTEGER, request IERR)
      else
        name = 'MPI_File_iwrite_at'
        call MPI_File_iwrite_at(fh, offsets(k), buffer, n, MPI_INTEGER, request IERR)
      end if
      call MPI_Wait(request, status IERR)
    case (8)
      call MPI_File_seek(fh, offsets(k), MPI_SEEK_SET IERR)
      if (reading) then
        name = 'MPI_File_iread_all'
        call MPI_File_iread_all(fh, buffer, n, MPI_INTEGER, request IERR)
      else
        name = 'MPI_File_iwrite_all'
        call MPI_File_iwrite_all(fh, buffer, n, MPI_INTEGER, request IERR)
      end if
      call MPI_Wait(request, status IERR)
    case (9)
      if (reading) then
        name = 'MPI_File_iread_at_all'
        call MPI_File_iread_at_all(fh, offsets(k), buffer, n, MPI_INTEGER, request IERR)
      else
        name = 'MPI_File_iwrite_at_all'
        call MPI_File_iwrite_at_all(fh, offsets(k), buffer, n, MPI_INTEGER, request IERR)
      end if
      call MPI_Wait(request, status IERR)
    end select
    call done(k, .true.)
  end subroutine

  ! shared accesses of the ranks interleave in any order: the data is checked
  ! for the ordered ones only
  subroutine shared_step(k)
    integer, intent(in) :: k
    call prepare(k)
    select case (k)
    case (20)
      if (reading) then
        name = 'MPI_File_read_ordered'
        call MPI_File_read_ordered(fh, buffer, n, MPI_INTEGER, status IERR)
      else
        name = 'MPI_File_write_ordered'
        call MPI_File_write_ordered(fh, buffer, n, MPI_INTEGER, status IERR)
      end if
    case (21)
      if (reading) then
        name = 'MPI_File_read_ordered_begin'
        call MPI_File_read_ordered_begin(fh, buffer, n, MPI_INTEGER IERR)
        call MPI_File_read_ordered_end(fh, buffer, status IERR)
      else
        name = 'MPI_File_write_ordered_begin'
        call MPI_File_write_ordered_begin(fh, buffer, n, MPI_INTEGER IERR)
        call MPI_File_write_ordered_end(fh, buffer, status IERR)
      end if
      call MPI_Barrier(MPI_COMM_WORLD IERR)
    case (22)
      if (reading) then
        name = 'MPI_File_read_shared'
        call MPI_File_read_shared(fh, buffer, n, MPI_INTEGER, status IERR)
      else
        name = 'MPI_File_write_shared'
        call MPI_File_write_shared(fh, buffer, n, MPI_INTEGER, status IERR)
      end if
      call MPI_Barrier(MPI_COMM_WORLD IERR)
    case (23)
      if (reading) then
        name = 'MPI_File_iread_shared'
        call MPI_File_iread_shared(fh, buffer, n, MPI_INTEGER, request IERR)
      else
        name = 'MPI_File_iwrite_shared'
        call MPI_File_iwrite_shared(fh, buffer, n, MPI_INTEGER, request IERR)
      end if
      call MPI_Wait(request, status IERR)
    end select
    call done(k, k <= 21)
  end subroutine
end program
