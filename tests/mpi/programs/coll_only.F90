! The collectives of coll_only.c, in the same order with the same counts
! (INTEGER for int, DOUBLE PRECISION for double), for `use mpi`, or for
! `use mpi_f08` when compiled with -DF08 (tests/mpi/test_collective_bytes.py).
program coll_only
#ifdef F08
  use mpi_f08
#else
  use mpi
#endif
  implicit none
  integer, parameter :: maxp = 16
#ifdef F08
  type(MPI_Request) :: request
  type(MPI_Datatype) :: sendtypes(maxp), recvtypes(maxp)
#else
  integer :: request, sendtypes(maxp), recvtypes(maxp)
#endif
  integer :: wsendcounts(maxp), wrecvcounts(maxp), wsdispls(maxp), wrdispls(maxp)
  integer :: rank, np, ierr, i, at
  double precision :: d(8 * maxp), dr(8 * maxp)
  integer :: i4(8 * maxp), ir(8 * maxp), counts(maxp), displs(maxp), sendcounts(maxp), sdispls(maxp)
  integer :: checksum

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  if (np > maxp) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  checksum = 0
  d = 0
  dr = 0
  i4 = 0
  ir = 0

  if (rank == 1) d(1:8) = [(i + 0.5d0, i = 0, 7)]
  call MPI_Bcast(d, 8, MPI_DOUBLE_PRECISION, 1, MPI_COMM_WORLD, ierr)
  checksum = checksum + int(d(8))
  i4(1:3) = [(rank + i, i = 0, 2)]
  call MPI_Reduce(i4, ir, 3, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  checksum = checksum + ir(3)
  d(1:4) = rank
  call MPI_Allreduce(MPI_IN_PLACE, d, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  checksum = checksum + int(d(4))
  ir(1:2 * np) = -1
  ir(2 * rank + 1:2 * rank + 2) = rank
  if (rank == 0) then
    call MPI_Gather(MPI_IN_PLACE, 2, MPI_INTEGER, ir, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    checksum = checksum + ir(2 * np)
  else
    call MPI_Gather(ir(2 * rank + 1), 2, MPI_INTEGER, i4, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  end if
  i4(1:3 * np) = [(i, i = 0, 3 * np - 1)]
  call MPI_Scatter(i4, 3, MPI_INTEGER, ir, 3, MPI_INTEGER, np - 1, MPI_COMM_WORLD, ierr)
  checksum = checksum + ir(3)
  i4(1:2) = [rank, -rank]
  call MPI_Allgather(i4, 2, MPI_INTEGER, ir, 2, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  checksum = checksum + ir(2 * np - 1)
  d(1:np) = [(rank * 100 + i, i = 0, np - 1)]
  call MPI_Alltoall(d, 1, MPI_DOUBLE_PRECISION, dr, 1, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
  checksum = checksum + int(dr(np))
  at = 0
  do i = 1, np
    counts(i) = i
    displs(i) = at
    at = at + i
  end do
  i4(1:rank + 1) = rank
  call MPI_Allgatherv(i4, rank + 1, MPI_INTEGER, ir, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  checksum = checksum + ir(displs(np) + 1)
  do i = 1, np
    sendcounts(i) = rank + 1
    sdispls(i) = (i - 1) * (rank + 1)
  end do
  i4(1:np * (rank + 1)) = rank
  call MPI_Alltoallv(i4, sendcounts, sdispls, MPI_INTEGER, ir, counts, displs, MPI_INTEGER, &
                     MPI_COMM_WORLD, ierr)
  checksum = checksum + ir(displs(np) + 1)
  do i = 1, np
    sendtypes(i) = merge(MPI_DOUBLE_PRECISION, MPI_INTEGER, mod(i - 1, 2) == 1)
    wsendcounts(i) = i
    wsdispls(i) = 0
    recvtypes(i) = merge(MPI_DOUBLE_PRECISION, MPI_INTEGER, mod(rank, 2) == 1)
    wrecvcounts(i) = rank + 1
    wrdispls(i) = (i - 1) * (rank + 1) * 8
  end do
  d(1:maxp) = rank
  call MPI_Alltoallw(d, wsendcounts, wsdispls, sendtypes, dr, wrecvcounts, wrdispls, recvtypes, &
                     MPI_COMM_WORLD, ierr)
  checksum = checksum + int(dr(1))
  i4(1:2 * np) = [(rank + i, i = 0, 2 * np - 1)]
  call MPI_Reduce_scatter_block(i4, ir, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  checksum = checksum + ir(2)
  d(1) = rank + 1
  call MPI_Scan(d, dr, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  checksum = checksum + int(dr(1))
  i4(1) = rank + 1
  ir(1) = 0
  call MPI_Exscan(i4, ir, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank > 0) checksum = checksum + ir(1)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  i4(1:2) = [rank, 1]
  call MPI_Iallreduce(i4, ir, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, request, ierr)
  call MPI_Wait(request, MPI_STATUS_IGNORE, ierr)
  checksum = checksum + ir(1) + ir(2)

  print '(a,i0,a,i0)', 'RESULT ', rank, ' ', checksum
  call MPI_Finalize(ierr)
end program coll_only
