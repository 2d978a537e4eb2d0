! The Fortran 2008 side of neighbor.c: the same four topologies and block
! sizes, with MPI_Neighbor_allgather, MPI_Ineighbor_allgatherv,
! MPI_Neighbor_alltoallv and MPI_Neighbor_alltoallw through use mpi_f08.
! MPI_Neighbor_alltoallw only on the distributed graph: MPICH 4.0.2's mpi_f08
! binding of it asks MPI_Dist_graph_neighbors_count whatever the topology and
! fails on the other communicators (also without the adapter).
! Needs 4 processes; each rank prints `RESULT <rank> <checksum>` of what it
! received (the same with and without the adapter).
program neighbor_f08
    use mpi_f08
    implicit none
    integer, parameter :: MAXN = 16, NULLCOUNT = 5, BUFINTS = 1024
    integer :: rank, nprocs, c
    type(MPI_Comm) :: comms(4)
    integer :: dims_a(2) = [2, 2], dims_b(2) = [4, 1]
    logical :: periods_a(2) = [.true., .false.], periods_b(2) = [.false., .true.]
    integer :: graph_index(4) = [3, 5, 8, 10], graph_edges(10) = [1, 3, 2, 0, 2, 1, 3, 0, 2, 0]
    integer :: sources(2, 0:3), destinations(2, 0:3), weights(2) = [1, 2]
    integer(kind=8) :: checksum = 1

    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
    if (nprocs /= 4) then
        if (rank == 0) print '(a)', 'neighbor_f08: needs 4 processes'
        call MPI_Abort(MPI_COMM_WORLD, 2)
    end if
    sources = reshape([2, 3, 0, 3, 0, 1, 1, 2], [2, 4])
    destinations = reshape([1, 2, 2, 3, 0, 3, 0, 1], [2, 4])
    call MPI_Cart_create(MPI_COMM_WORLD, 2, dims_a, periods_a, .false., comms(1))
    call MPI_Cart_create(MPI_COMM_WORLD, 2, dims_b, periods_b, .false., comms(2))
    call MPI_Graph_create(MPI_COMM_WORLD, 4, graph_index, graph_edges, .false., comms(3))
    call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, sources(:, rank), weights, 2, &
        destinations(:, rank), weights, MPI_INFO_NULL, .false., comms(4))
    do c = 1, 4
        call exchange(comms(c))
    end do
    do c = 1, 4
        call MPI_Comm_free(comms(c))
    end do
    print '(a,i0,a,i0)', 'RESULT ', rank, ' ', checksum
    call MPI_Finalize()

contains

    subroutine neighbours_of(comm, nin, nout, src, dst)
        type(MPI_Comm), intent(in) :: comm
        integer, intent(out) :: nin, nout, src(MAXN), dst(MAXN)
        integer :: topology, ndims, d, sw(MAXN), dw(MAXN)
        logical :: weighted
        src = MPI_PROC_NULL
        dst = MPI_PROC_NULL
        call MPI_Topo_test(comm, topology)
        if (topology == MPI_CART) then
            call MPI_Cartdim_get(comm, ndims)
            do d = 0, ndims - 1
                call MPI_Cart_shift(comm, d, 1, src(2 * d + 1), src(2 * d + 2))
            end do
            nin = 2 * ndims
            nout = nin
            dst = src
        else if (topology == MPI_GRAPH) then
            call MPI_Graph_neighbors_count(comm, rank, nin)
            call MPI_Graph_neighbors(comm, rank, MAXN, src)
            nout = nin
            dst = src
        else
            call MPI_Dist_graph_neighbors_count(comm, nin, nout, weighted)
            call MPI_Dist_graph_neighbors(comm, MAXN, src, sw, MAXN, dst, dw)
        end if
    end subroutine

    integer function block(from, to)
        integer, intent(in) :: from, to
        if (from == MPI_PROC_NULL .or. to == MPI_PROC_NULL) then
            block = NULLCOUNT
        else
            block = 1 + from + to
        end if
    end function

    ! the type of the blocks `from` sends in the w collective
    function wtype(from) result(t)
        integer, intent(in) :: from
        type(MPI_Datatype) :: t
        if (from == MPI_PROC_NULL) then
            t = MPI_DOUBLE_PRECISION
        else if (mod(from, 2) == 1) then
            t = MPI_DOUBLE_PRECISION
        else
            t = MPI_INTEGER
        end if
    end function

    integer function type_size(t)
        type(MPI_Datatype), intent(in) :: t
        call MPI_Type_size(t, type_size)
    end function

    subroutine digest(buffer, n)
        integer, intent(in) :: buffer(*), n
        integer :: i
        do i = 1, n
            checksum = mod(checksum * 31_8 + int(buffer(i), 8) + 2_8**31, 1000000007_8)
        end do
    end subroutine

    subroutine exchange(comm)
        type(MPI_Comm), intent(in) :: comm
        integer :: sendbuf(BUFINTS), recvbuf(BUFINTS)
        integer :: nin, nout, src(MAXN), dst(MAXN), i, j, total
        integer :: scounts(MAXN), rcounts(MAXN), sdispls(MAXN), rdispls(MAXN)
        integer(kind=MPI_ADDRESS_KIND) :: sbytes(MAXN), rbytes(MAXN)
        type(MPI_Datatype) :: stypes(MAXN), rtypes(MAXN)
        type(MPI_Request) :: request
        integer :: topology
        logical :: dist_graph

        call MPI_Topo_test(comm, topology)
        dist_graph = topology == MPI_DIST_GRAPH
        call neighbours_of(comm, nin, nout, src, dst)
        do i = 1, BUFINTS
            sendbuf(i) = rank * 1000 + i
        end do

        ! allgather: 3 integers from every in-neighbour
        recvbuf = -1
        call MPI_Neighbor_allgather(sendbuf, 3, MPI_INTEGER, recvbuf, 3, MPI_INTEGER, comm)
        call digest(recvbuf, 3 * nin)

        ! allgatherv, non-blocking: each process contributes 1 + its rank integers
        total = 0
        do i = 1, nin
            if (src(i) == MPI_PROC_NULL) then
                rcounts(i) = NULLCOUNT
            else
                rcounts(i) = 1 + src(i)
            end if
            rdispls(i) = total
            total = total + rcounts(i)
        end do
        recvbuf = -1
        call MPI_Ineighbor_allgatherv(sendbuf, 1 + rank, MPI_INTEGER, recvbuf, rcounts, rdispls, MPI_INTEGER, &
            comm, request)
        call MPI_Wait(request, MPI_STATUS_IGNORE)
        call digest(recvbuf, total)

        ! alltoallv: 1 + sender + receiver integers per block
        total = 0
        do j = 1, nout
            scounts(j) = block(rank, dst(j))
            sdispls(j) = total
            total = total + scounts(j)
        end do
        total = 0
        do i = 1, nin
            rcounts(i) = block(src(i), rank)
            rdispls(i) = total
            total = total + rcounts(i)
        end do
        recvbuf = -1
        call MPI_Neighbor_alltoallv(sendbuf, scounts, sdispls, MPI_INTEGER, recvbuf, rcounts, rdispls, &
            MPI_INTEGER, comm)
        call digest(recvbuf, total)

        ! alltoallw: the same counts, of the sender's type, displacements in bytes
        if (.not. dist_graph) return
        total = 0
        do j = 1, nout
            if (dst(j) == MPI_PROC_NULL) then
                stypes(j) = wtype(MPI_PROC_NULL)
            else
                stypes(j) = wtype(rank)
            end if
            sbytes(j) = total
            total = total + scounts(j) * type_size(stypes(j))
        end do
        total = 0
        do i = 1, nin
            rtypes(i) = wtype(src(i))
            rbytes(i) = total
            total = total + rcounts(i) * type_size(rtypes(i))
        end do
        recvbuf = -1
        call MPI_Neighbor_alltoallw(sendbuf, scounts, sbytes, stypes, recvbuf, rcounts, rbytes, rtypes, comm)
        call digest(recvbuf, total / 4)
    end subroutine
end program
