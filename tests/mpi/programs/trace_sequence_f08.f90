! The mpi_f08 twin of trace_sequence.c, for tests/mpi/test_trace_sequence.py:
! the same MPI calls in the same order with the same counts, peers, tags,
! communicators and element sizes (INTEGER for int, INTEGER(8) for long), so
! its trace must hold the records the C program's trace holds. Only what MPI
! does not see differs: Fortran's 1-based MPI_Waitany index (the checksum
! subtracts the 1 back). Run on 3 ranks.
program trace_sequence_f08
  use mpi_f08
  implicit none
  integer :: rank, size, right, left, i, k, index, count, indices(2), hrank, hsize
  integer :: out(64), in(64), in2(64)
  integer(8) :: checksum, total
  type(MPI_Status) :: status
  type(MPI_Request) :: requests(4)
  type(MPI_Comm) :: half

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  right = mod(rank + 1, size)
  left = mod(rank + size - 1, size)
  do i = 1, 64
    out(i) = rank * 100 + i - 1
  end do
  checksum = 0

  ! 1. blocking ring, even ranks first; one with a status, one without
  do k = 0, 1
    if (mod(rank, 2) == 0) then
      call MPI_Send(out, 8 + k, MPI_INTEGER, right, 10 + k, MPI_COMM_WORLD)
      if (k == 1) then
        call MPI_Recv(in, 64, MPI_INTEGER, left, 10 + k, MPI_COMM_WORLD, status)
      else
        call MPI_Recv(in, 64, MPI_INTEGER, left, 10 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
      end if
    else
      if (k == 1) then
        call MPI_Recv(in, 64, MPI_INTEGER, left, 10 + k, MPI_COMM_WORLD, status)
      else
        call MPI_Recv(in, 64, MPI_INTEGER, left, 10 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
      end if
      call MPI_Send(out, 8 + k, MPI_INTEGER, right, 10 + k, MPI_COMM_WORLD)
    end if
    checksum = checksum + in(1)
  end do

  ! 2. non-blocking ring: Irecv, Isend, MPI_Wait each (receive first)
  call MPI_Irecv(in, 64, MPI_INTEGER, left, 20, MPI_COMM_WORLD, requests(1))
  call MPI_Isend(out, 16, MPI_INTEGER, right, 20, MPI_COMM_WORLD, requests(2))
  call MPI_Wait(requests(1), status)
  call MPI_Wait(requests(2), MPI_STATUS_IGNORE)
  checksum = checksum + in(2)

  ! 3. both directions, MPI_Waitall
  call MPI_Irecv(in, 64, MPI_INTEGER, left, 30, MPI_COMM_WORLD, requests(1))
  call MPI_Irecv(in2, 64, MPI_INTEGER, right, 31, MPI_COMM_WORLD, requests(2))
  call MPI_Isend(out, 4, MPI_INTEGER, right, 30, MPI_COMM_WORLD, requests(3))
  call MPI_Isend(out, 5, MPI_INTEGER, left, 31, MPI_COMM_WORLD, requests(4))
  call MPI_Waitall(4, requests, MPI_STATUSES_IGNORE)
  checksum = checksum + in(3) + in2(3)

  ! 4. MPI_Waitany and MPI_Waitsome with one active request each
  requests(2) = MPI_REQUEST_NULL
  call MPI_Irecv(in, 64, MPI_INTEGER, left, 40, MPI_COMM_WORLD, requests(1))
  call MPI_Send(out, 6, MPI_INTEGER, right, 40, MPI_COMM_WORLD)
  index = -1
  count = 0
  call MPI_Waitany(2, requests, index, status)
  call MPI_Irecv(in, 64, MPI_INTEGER, left, 41, MPI_COMM_WORLD, requests(2))
  call MPI_Send(out, 7, MPI_INTEGER, right, 41, MPI_COMM_WORLD)
  call MPI_Waitsome(2, requests, count, indices, MPI_STATUSES_IGNORE)
  checksum = checksum + (index - 1) + count + in(4)

  ! 5. MPI_Sendrecv, and MPI_PROC_NULL peers (visits, no messages)
  call MPI_Sendrecv(out, 3, MPI_INTEGER, right, 50, in, 64, MPI_INTEGER, left, 50, MPI_COMM_WORLD, status)
  call MPI_Send(out, 3, MPI_INTEGER, MPI_PROC_NULL, 51, MPI_COMM_WORLD)
  call MPI_Recv(in, 3, MPI_INTEGER, MPI_PROC_NULL, 51, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call MPI_Isend(out, 3, MPI_INTEGER, MPI_PROC_NULL, 52, MPI_COMM_WORLD, requests(1))
  call MPI_Wait(requests(1), MPI_STATUS_IGNORE)

  ! 6. persistent requests, started twice
  call MPI_Recv_init(in, 64, MPI_INTEGER, left, 60, MPI_COMM_WORLD, requests(1))
  call MPI_Send_init(out, 2, MPI_INTEGER, right, 60, MPI_COMM_WORLD, requests(2))
  do k = 0, 1
    call MPI_Startall(2, requests)
    call MPI_Waitall(2, requests, MPI_STATUSES_IGNORE)
  end do
  call MPI_Request_free(requests(1))
  call MPI_Request_free(requests(2))

  ! 7. a split communicator: peers are ranks in it, the trace names world ranks
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half)
  call MPI_Comm_rank(half, hrank)
  call MPI_Comm_size(half, hsize)
  if (hsize > 1) then
    if (hrank == 0) then
      call MPI_Send(out, 12, MPI_INTEGER, 1, 70, half)
      call MPI_Recv(in, 64, MPI_INTEGER, 1, 71, half, MPI_STATUS_IGNORE)
    else if (hrank == 1) then
      call MPI_Recv(in, 64, MPI_INTEGER, 0, 70, half, MPI_STATUS_IGNORE)
      call MPI_Send(out, 13, MPI_INTEGER, 0, 71, half)
    end if
  end if
  total = 0
  call MPI_Allreduce(checksum, total, 1, MPI_INTEGER8, MPI_SUM, half)
  call MPI_Comm_free(half)

  call MPI_Barrier(MPI_COMM_WORLD)
  write (*, '("RESULT rank ",I0," checksum ",I0)') rank, checksum
  call MPI_Finalize()
end program
