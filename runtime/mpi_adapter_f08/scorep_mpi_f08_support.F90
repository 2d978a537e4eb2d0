! Fortran side of f08_support.c and of the MPI layer, for the generated
! Fortran 2008 wrappers. Handles are passed as their MPI_VAL, statuses by
! address (type(*)), counts as 64-bit integers whatever their Fortran kind.
! Everything else the wrappers need from the core comes from the core's own
! interface module scorep_wrapgen_core.
module scorep_mpi_f08_support
    use, intrinsic :: iso_c_binding, only : c_int, c_int32_t, c_int64_t, c_ptr, c_intptr_t, c_size_t, &
        c_f_pointer
    implicit none
    private :: c_int, c_int32_t, c_int64_t, c_ptr, c_intptr_t, c_size_t, c_f_pointer

    ! The enabled measurement groups (scorep_mpi_enabled_groups of the C adapter),
    ! read through a pointer: a wrapper whose group is off makes no call at all.
    integer(c_int32_t), pointer, protected :: scorep_mpi_f08_groups => null()

    ! scorep_rma_atomic_kind and scorep_rma_sync_level of adapter.h
    integer(c_int), parameter :: SCOREP_RMA_ATOMIC_ACCUMULATE = 0, SCOREP_RMA_ATOMIC_INCREMENT = 1, &
        SCOREP_RMA_ATOMIC_TEST_AND_SET = 2, SCOREP_RMA_ATOMIC_COMPARE_AND_SWAP = 3, SCOREP_RMA_ATOMIC_SWAP = 4, &
        SCOREP_RMA_ATOMIC_FETCH_AND_ADD = 5, SCOREP_RMA_ATOMIC_FETCH_AND_INCREMENT = 6, &
        SCOREP_RMA_ATOMIC_ADD = 7, SCOREP_RMA_ATOMIC_FETCH_AND_ACCUMULATE = 8
    integer(c_int), parameter :: SCOREP_RMA_SYNC_LEVEL_NONE = 0, SCOREP_RMA_SYNC_LEVEL_PROCESS = 1, &
        SCOREP_RMA_SYNC_LEVEL_MEMORY = 2, SCOREP_RMA_SYNC_LEVEL_PROCESS_AND_MEMORY = 3

    interface
        function scorep_mpi_f08_groups_address() bind(c, name="scorep_mpi_f08_groups_address") result(address)
            import :: c_ptr
            type(c_ptr) :: address
        end function
        function scorep_mpi_f08_begin(index) bind(c, name="scorep_mpi_f08_begin") result(region)
            import :: c_int, c_int32_t
            integer(c_int), value :: index
            integer(c_int32_t) :: region
        end function
        subroutine scorep_mpi_f08_end(region) bind(c, name="scorep_mpi_f08_end")
            import :: c_int32_t
            integer(c_int32_t), value :: region
        end subroutine
        ! begin and the communicator's id (intent out) in one call
        function scorep_mpi_f08_begin_comm(index, comm, id) bind(c, name="scorep_mpi_f08_begin_comm") result(region)
            import :: c_int, c_int32_t
            integer(c_int), value :: index, comm
            integer(c_int32_t), intent(out) :: id
            integer(c_int32_t) :: region
        end function
        ! begin, the communicator's id (intent out) and the send event in one call
        function scorep_mpi_f08_begin_send(index, comm, dest, tag, count, datatype, id) &
                bind(c, name="scorep_mpi_f08_begin_send") result(region)
            import :: c_int, c_int32_t, c_int64_t
            integer(c_int), value :: index, comm, dest, tag
            integer(c_int64_t), value :: count
            integer(c_int), value :: datatype
            integer(c_int32_t), intent(out) :: id
            integer(c_int32_t) :: region
        end function
        ! begin and the request's name (scorep_mpi_f08_request; intent out) in one call
        function scorep_mpi_f08_begin_request(index, request, name) bind(c, name="scorep_mpi_f08_begin_request") &
                result(region)
            import :: c_int, c_int32_t, c_int64_t
            integer(c_int), value :: index, request
            integer(c_int64_t), intent(out) :: name
            integer(c_int32_t) :: region
        end function
        ! the receive event of a successful call (ierror MPI_SUCCESS), then end
        subroutine scorep_mpi_f08_recv_end(region, comm, status, ierror) bind(c, name="scorep_mpi_f08_recv_end")
            import :: c_int, c_int32_t
            integer(c_int32_t), value :: region, comm
            type(*) :: status
            integer(c_int), value :: ierror
        end subroutine
        ! the completion of a successful MPI_Wait, then end
        subroutine scorep_mpi_f08_complete_end(region, request, status, ierror) &
                bind(c, name="scorep_mpi_f08_complete_end")
            import :: c_int, c_int32_t, c_int64_t
            integer(c_int32_t), value :: region
            integer(c_int64_t), value :: request
            type(*) :: status
            integer(c_int), value :: ierror
        end subroutine
        subroutine scorep_mpi_f08_pcontrol(level) bind(c, name="scorep_mpi_pcontrol")
            import :: c_int
            integer(c_int), value :: level
        end subroutine
        subroutine scorep_mpi_f08_finalize_barrier() bind(c, name="scorep_mpi_f08_finalize_barrier")
        end subroutine
        subroutine scorep_mpi_f08_comm_idup(parent, newcomm) bind(c, name="scorep_mpi_f08_comm_idup")
            import :: c_int
            integer(c_int), value :: parent, newcomm
        end subroutine
        function scorep_mpi_f08_comm_create(comm) bind(c, name="scorep_mpi_f08_comm_create") result(id)
            import :: c_int, c_int32_t
            integer(c_int), value :: comm
            integer(c_int32_t) :: id
        end function
        subroutine scorep_mpi_f08_comm_free(comm) bind(c, name="scorep_mpi_f08_comm_free")
            import :: c_int
            integer(c_int), value :: comm
        end subroutine
        function scorep_mpi_f08_group_id(group) bind(c, name="scorep_mpi_f08_group_id") result(id)
            import :: c_int, c_int32_t
            integer(c_int), value :: group
            integer(c_int32_t) :: id
        end function
        function scorep_mpi_f08_bytes(count, datatype) bind(c, name="scorep_mpi_f08_bytes") result(bytes)
            import :: c_int, c_int64_t
            integer(c_int64_t), value :: count
            integer(c_int), value :: datatype
            integer(c_int64_t) :: bytes
        end function
        function scorep_mpi_f08_request(request) bind(c, name="scorep_mpi_f08_request") result(handle)
            import :: c_int, c_int64_t
            integer(c_int), value :: request
            integer(c_int64_t) :: handle
        end function
        function scorep_mpi_f08_status_bytes(status) bind(c, name="scorep_mpi_f08_status_bytes") result(bytes)
            import :: c_int64_t
            type(*) :: status
            integer(c_int64_t) :: bytes
        end function
        function scorep_mpi_f08_reqtest_enabled() bind(c, name="scorep_mpi_f08_reqtest_enabled") result(on)
            import :: c_int
            integer(c_int) :: on
        end function
        ! sendcounts ... recvtypes: the procedure's arrays, or c_null_ptr
        subroutine scorep_mpi_f08_collective_end(kind, comm, comm_id, root, send_in_place, &
                recv_in_place, large, sendcount, sendtype, recvcount, recvtype, sendcounts, &
                recvcounts, sendtypes, recvtypes) bind(c, name="scorep_mpi_f08_collective_end")
            import :: c_int, c_int32_t, c_int64_t, c_ptr
            integer(c_int), value :: kind, comm, root, send_in_place, recv_in_place, large
            integer(c_int32_t), value :: comm_id
            integer(c_int64_t), value :: sendcount, recvcount
            integer(c_int), value :: sendtype, recvtype
            type(c_ptr), value :: sendcounts, recvcounts, sendtypes, recvtypes
        end subroutine
        ! a persistent collective (MPI_<coll>_init): request is its MPI_VAL
        subroutine scorep_mpi_f08_collective_init(kind, comm, comm_id, root, send_in_place, &
                recv_in_place, large, sendcount, sendtype, recvcount, recvtype, sendcounts, &
                recvcounts, sendtypes, recvtypes, request) bind(c, name="scorep_mpi_f08_collective_init")
            import :: c_int, c_int32_t, c_int64_t, c_ptr
            integer(c_int), value :: kind, comm, root, send_in_place, recv_in_place, large, request
            integer(c_int32_t), value :: comm_id
            integer(c_int64_t), value :: sendcount, recvcount
            integer(c_int), value :: sendtype, recvtype
            type(c_ptr), value :: sendcounts, recvcounts, sendtypes, recvtypes
        end subroutine
        subroutine scorep_mpi_f08_neighbor_collective_init(kind, comm, comm_id, large, sendcount, sendtype, &
                recvcount, recvtype, sendcounts, recvcounts, sendtypes, recvtypes, request) &
                bind(c, name="scorep_mpi_f08_neighbor_collective_init")
            import :: c_int, c_int32_t, c_int64_t, c_ptr
            integer(c_int), value :: kind, comm, large, request
            integer(c_int32_t), value :: comm_id
            integer(c_int64_t), value :: sendcount, recvcount
            integer(c_int), value :: sendtype, recvtype
            type(c_ptr), value :: sendcounts, recvcounts, sendtypes, recvtypes
        end subroutine
        subroutine scorep_mpi_f08_neighbor_collective_end(kind, comm, comm_id, large, sendcount, sendtype, &
                recvcount, recvtype, sendcounts, recvcounts, sendtypes, recvtypes) &
                bind(c, name="scorep_mpi_f08_neighbor_collective_end")
            import :: c_int, c_int32_t, c_int64_t, c_ptr
            integer(c_int), value :: kind, comm, large
            integer(c_int32_t), value :: comm_id
            integer(c_int64_t), value :: sendcount, recvcount
            integer(c_int), value :: sendtype, recvtype
            type(c_ptr), value :: sendcounts, recvcounts, sendtypes, recvtypes
        end subroutine

        ! addresses of choice buffers (MPI_IN_PLACE): scalar or ignore-TKR buffer,
        ! and TS 29113 assumed-rank buffer (the same C function reads either)
        function scorep_mpi_f08_address(x) bind(c, name="scorep_mpi_f08_address") result(a)
            import :: c_intptr_t
            type(*) :: x
            integer(c_intptr_t) :: a
        end function
        function scorep_mpi_f08_array_address(x) bind(c, name="scorep_mpi_f08_address") result(a)
            import :: c_intptr_t
            type(*), dimension(*) :: x
            integer(c_intptr_t) :: a
        end function
        function scorep_mpi_f08_rank_address(x) bind(c, name="scorep_mpi_f08_descriptor_address") result(a)
            import :: c_intptr_t
            type(*), dimension(..) :: x
            integer(c_intptr_t) :: a
        end function

        ! per-thread scratch of the completion wrappers (Waitall, Waitany, Waitsome
        ! and their Test variants, often called in polling loops): kept between
        ! calls, so a call allocates nothing (scorep_mpi_adapter.h)
        function scorep_mpi_saved_requests(count) bind(c, name="scorep_mpi_saved_requests") result(memory)
            import :: c_int, c_ptr
            integer(c_int), value :: count
            type(c_ptr) :: memory
        end function
        function scorep_mpi_saved_fortran_handles(count) bind(c, name="scorep_mpi_saved_fortran_handles") &
                result(memory)
            import :: c_int, c_ptr
            integer(c_int), value :: count
            type(c_ptr) :: memory
        end function
        function scorep_mpi_lent_fortran_statuses(count, element) bind(c, name="scorep_mpi_lent_fortran_statuses") &
                result(memory)
            import :: c_int, c_ptr, c_size_t
            integer(c_int), value :: count
            integer(c_size_t), value :: element
            type(c_ptr) :: memory
        end function

        ! matched messages and windows
        subroutine scorep_mpi_f08_message_remember(message, comm) bind(c, name="scorep_mpi_f08_message_remember")
            import :: c_int, c_int32_t
            integer(c_int), value :: message
            integer(c_int32_t), value :: comm
        end subroutine
        function scorep_mpi_f08_message_comm(message) bind(c, name="scorep_mpi_f08_message_comm") result(id)
            import :: c_int, c_int32_t
            integer(c_int), value :: message
            integer(c_int32_t) :: id
        end function
        function scorep_mpi_f08_win_create(win, comm) bind(c, name="scorep_mpi_f08_win_create") result(id)
            import :: c_int, c_int32_t
            integer(c_int), value :: win, comm
            integer(c_int32_t) :: id
        end function
        function scorep_mpi_f08_win_id(win) bind(c, name="scorep_mpi_f08_win_id") result(id)
            import :: c_int, c_int32_t
            integer(c_int), value :: win
            integer(c_int32_t) :: id
        end function
        subroutine scorep_mpi_f08_win_free(win) bind(c, name="scorep_mpi_f08_win_free")
            import :: c_int
            integer(c_int), value :: win
        end subroutine

        ! pending one-sided operations of this thread (the C adapter's, shared
        ! with the C wrappers: scorep_mpi_adapter.h)
        function scorep_mpi_rma_issue(window, target) bind(c, name="scorep_mpi_rma_issue") result(id)
            import :: c_int, c_int32_t, c_int64_t
            integer(c_int32_t), value :: window
            integer(c_int), value :: target
            integer(c_int64_t) :: id
        end function
        subroutine scorep_mpi_rma_complete(window, target) bind(c, name="scorep_mpi_rma_complete")
            import :: c_int, c_int32_t
            integer(c_int32_t), value :: window
            integer(c_int), value :: target
        end subroutine

        ! the MPI layer (runtime/include/scorep_wrapgen/mpi_layer.h)
        subroutine scorep_mpi_layer_before_init() bind(c, name="scorep_mpi_layer_before_init")
        end subroutine
        subroutine scorep_mpi_layer_init() bind(c, name="scorep_mpi_layer_init")
        end subroutine
        subroutine scorep_mpi_layer_finalize() bind(c, name="scorep_mpi_layer_finalize")
        end subroutine
        subroutine scorep_mpi_layer_abort() bind(c, name="scorep_mpi_layer_abort")
        end subroutine
    end interface
contains
    subroutine scorep_mpi_f08_groups_connect()
        call c_f_pointer(scorep_mpi_f08_groups_address(), scorep_mpi_f08_groups)
    end subroutine
end module scorep_mpi_f08_support
