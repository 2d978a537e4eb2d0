! One mpi_f08 program for the F08 adapter tests: run with and without the
! adapter, its output must be the same; its profile must count exactly what
! it calls. Every rank prints lines "<rank> <what> <values>" (sorted by the test).
module f08_callbacks
    use mpi_f08
    implicit none
    integer :: copies = 0, deletes = 0
contains
    ! a user reduction: b = a + b + 1000, so the result shows the op ran
    subroutine plus_1000(invec, inoutvec, len, datatype)
        use, intrinsic :: iso_c_binding
        type(c_ptr), value :: invec, inoutvec
        integer :: len
        type(MPI_Datatype) :: datatype
        integer, pointer :: a(:), b(:)
        call c_f_pointer(invec, a, [len])
        call c_f_pointer(inoutvec, b, [len])
        b = a + b + 1000
    end subroutine
    subroutine copy_attr(oldcomm, comm_keyval, extra_state, attribute_val_in, attribute_val_out, flag, ierror)
        type(MPI_Comm) :: oldcomm
        integer :: comm_keyval, ierror
        integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
        logical :: flag
        copies = copies + 1
        attribute_val_out = attribute_val_in + 1
        flag = .true.
        ierror = MPI_SUCCESS
    end subroutine
    subroutine delete_attr(comm, comm_keyval, attribute_val, extra_state, ierror)
        type(MPI_Comm) :: comm
        integer :: comm_keyval, ierror
        integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
        deletes = deletes + 1
        ierror = MPI_SUCCESS
    end subroutine
end module

program f08_behaviour
    use mpi_f08
    use f08_callbacks
    implicit none
    integer, parameter :: N = 8, STEPS = 3
    integer :: rank, size, left, right, step, i, v(1), total(1), keyval, outcount, idx, indices(3), bytes
    integer :: w(2)
    integer :: halo(N, 0:3)                 ! columns 0 and 3 are halo, 1 and 2 own data
    type(MPI_Request) :: req(4)
    type(MPI_Status) :: status, statuses(3)
    type(MPI_Op) :: op
    type(MPI_Message) :: message
    type(MPI_Win) :: win
    integer :: window_memory(2)
    type(MPI_Comm) :: dup
    type(MPI_Info) :: info, got
    integer(kind=MPI_ADDRESS_KIND) :: attr
    logical :: flag
    character(len=32) :: value
    real(8) :: x(5)

    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, size)
    left = modulo(rank - 1, size)
    right = modulo(rank + 1, size)

    ! halo exchange on contiguous array sections, ierror omitted
    halo = -1
    halo(:, 1:2) = rank
    do step = 1, STEPS
        call MPI_Irecv(halo(:, 0), N, MPI_INTEGER, left, 2, MPI_COMM_WORLD, req(1))
        call MPI_Irecv(halo(:, 3), N, MPI_INTEGER, right, 1, MPI_COMM_WORLD, req(2))
        call MPI_Isend(halo(:, 1), N, MPI_INTEGER, left, 1, MPI_COMM_WORLD, req(3))
        call MPI_Isend(halo(:, 2), N, MPI_INTEGER, right, 2, MPI_COMM_WORLD, req(4))
        call MPI_Waitall(4, req, MPI_STATUSES_IGNORE)
    end do
#ifdef HAVE_ISENDRECV
    ! non-contiguous sections (rows) in non-blocking calls: valid only where
    ! MPI_SUBARRAYS_SUPPORTED (MPICH), which passes the array descriptor on
    call MPI_Irecv(halo(2, 0:3), 4, MPI_INTEGER, left, 3, MPI_COMM_WORLD, req(1))
    call MPI_Isend(halo(N, 0:3), 4, MPI_INTEGER, right, 3, MPI_COMM_WORLD, req(2))
    call MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
    print '(i0,a,4i4)', rank, ' rows', halo(2, 0:3)
    ! the same exchange with MPI 4.0's MPI_Isendrecv (MPICH; Open MPI 4.1 has none)
    do step = 1, STEPS
        call MPI_Isendrecv(halo(:, 1), N, MPI_INTEGER, left, 1, halo(:, 3), N, MPI_INTEGER, right, 1, &
                           MPI_COMM_WORLD, req(1))
        call MPI_Isendrecv(halo(:, 2), N, MPI_INTEGER, right, 2, halo(:, 0), N, MPI_INTEGER, left, 2, &
                           MPI_COMM_WORLD, req(2))
        call MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
    end do
#endif
    print '(i0,a,2i4)', rank, ' halo', halo(1, 0), halo(N, 3)

    ! wildcard receive: the last rank sends to rank 0
    if (rank == 0) then
        call MPI_Recv(v, 1, MPI_INTEGER, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, status)
        print '(i0,a,2i4)', rank, ' wildcard', status%MPI_SOURCE, v(1)
    else if (rank == size - 1) then
        v = 42
        call MPI_Send(v, 1, MPI_INTEGER, 0, 7, MPI_COMM_WORLD)
    end if

    ! user reduction op
    call MPI_Op_create(plus_1000, .true., op)
    v = rank
    call MPI_Allreduce(v, total, 1, MPI_INTEGER, op, MPI_COMM_WORLD)
    call MPI_Op_free(op)
    print '(i0,a,i6)', rank, ' reduce', total(1)

    ! attribute copy and delete callbacks
    call MPI_Comm_create_keyval(copy_attr, delete_attr, keyval, 0_MPI_ADDRESS_KIND)
    call MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, 10_MPI_ADDRESS_KIND)
    call MPI_Comm_dup(MPI_COMM_WORLD, dup)
    call MPI_Comm_get_attr(dup, keyval, attr, flag)
    call MPI_Comm_free(dup)
    call MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval)
    call MPI_Comm_free_keyval(keyval)
    print '(i0,a,2i3,l2,i4)', rank, ' attributes', copies, deletes, flag, attr

    ! info keys and values with blanks: Fortran strips trailing blanks, keeps leading ones
    call MPI_Info_create(info)
    call MPI_Info_set(info, 'scorep_key   ', '  padded value   ')
    call MPI_Comm_set_info(MPI_COMM_WORLD, info)
    call MPI_Info_get(info, 'scorep_key', len(value), value, flag)
    print '(i0,a,l2,a,a,a)', rank, ' info', flag, ' [', value, ']'
    call MPI_Comm_get_info(MPI_COMM_WORLD, got)
    call MPI_Info_free(got)
    call MPI_Info_free(info)

    ! Waitany / Testany / Waitsome return what MPI returns
    call MPI_Irecv(v, 1, MPI_INTEGER, rank, 11, MPI_COMM_WORLD, req(1))
    req(2) = MPI_REQUEST_NULL
    call MPI_Testany(2, req, idx, flag, status)
    print '(i0,a,l2,i12)', rank, ' testany-before', flag, idx
    call MPI_Send(rank, 1, MPI_INTEGER, rank, 11, MPI_COMM_WORLD)
    call MPI_Waitany(2, req, idx, status)
    print '(i0,a,i3,2i4)', rank, ' waitany', idx, status%MPI_SOURCE, status%MPI_TAG
    call MPI_Waitany(2, req, idx, MPI_STATUS_IGNORE)
    print '(i0,a,i12)', rank, ' waitany-none', idx
    call MPI_Irecv(w(1), 1, MPI_INTEGER, rank, 12, MPI_COMM_WORLD, req(1))
    call MPI_Irecv(w(2), 1, MPI_INTEGER, rank, 13, MPI_COMM_WORLD, req(2))
    call MPI_Send(rank, 1, MPI_INTEGER, rank, 13, MPI_COMM_WORLD)
    call MPI_Waitsome(2, req, outcount, indices, statuses)
    print '(i0,a,i3,i3,i4)', rank, ' waitsome', outcount, indices(1), statuses(1)%MPI_TAG
    call MPI_Send(rank, 1, MPI_INTEGER, rank, 12, MPI_COMM_WORLD)
    call MPI_Wait(req(1), status)

    ! matched probe and receive: the envelope comes from the probed message
    call MPI_Send(rank + 100, 1, MPI_INTEGER, right, 21, MPI_COMM_WORLD)
    call MPI_Mprobe(MPI_ANY_SOURCE, 21, MPI_COMM_WORLD, message, status)
    call MPI_Mrecv(v, 1, MPI_INTEGER, message, MPI_STATUS_IGNORE)
    print '(i0,a,2i5)', rank, ' mrecv', status%MPI_SOURCE, v(1)

    ! one-sided: put my rank into the right neighbour's window between fences
    window_memory = -1
    call MPI_Win_create(window_memory, int(2 * 4, MPI_ADDRESS_KIND), 4, MPI_INFO_NULL, MPI_COMM_WORLD, win)
    call MPI_Win_fence(0, win)
    call MPI_Put([rank, rank], 2, MPI_INTEGER, right, 0_MPI_ADDRESS_KIND, 2, MPI_INTEGER, win)
    call MPI_Win_fence(0, win)
    call MPI_Win_free(win)
    print '(i0,a,2i4)', rank, ' put', window_memory

#ifdef HAVE_ISENDRECV
    ! a large-count send (MPI 4.0 INTEGER(MPI_COUNT_KIND) count: MPICH's _large specific)
    call MPI_Sendrecv(rank, 1_MPI_COUNT_KIND, MPI_INTEGER, rank, 31, v, 1_MPI_COUNT_KIND, MPI_INTEGER, rank, 31, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    print '(i0,a,i4)', rank, ' large-count', v(1)
#endif

    ! Fortran-only procedures
    x = rank
    call MPI_F_sync_reg(x)
    call MPI_Pcontrol(1)
    call MPI_Sizeof(x(1), bytes)
    print '(i0,a,i3)', rank, ' sizeof', bytes

    call MPI_Finalize()
end program
