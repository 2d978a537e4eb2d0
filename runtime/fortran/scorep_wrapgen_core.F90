! Fortran interface to the scorep-wrapgen measurement core (bind(c)).
! This module is the only way Fortran code (generated mpif.h / use mpi /
! use mpi_f08 wrappers, library wrappers) calls the core; see
! runtime/include/scorep_wrapgen/adapter.h for what each routine does.
! Strings are passed NUL-terminated (append c_null_char); status objects are
! passed by address with a language tag (SCOREP_LANGUAGE_FORTRAN for
! INTEGER status(MPI_STATUS_SIZE), SCOREP_LANGUAGE_FORTRAN2008 for
! type(MPI_Status)).
module scorep_wrapgen_core
    use, intrinsic :: iso_c_binding
    implicit none
    private :: c_int, c_int32_t, c_int64_t, c_char, c_ptr

    integer(c_int32_t), parameter :: SCOREP_INVALID_ID = -1
    integer(c_int32_t), parameter :: SCOREP_COMM_WORLD = 0, SCOREP_COMM_SELF = 1
    integer(c_int), parameter :: SCOREP_NO_ROOT = -1

    integer(c_int), parameter :: SCOREP_PARADIGM_USER = 0, SCOREP_PARADIGM_MPI = 1, &
        SCOREP_PARADIGM_LIBWRAP = 2, SCOREP_PARADIGM_MEASUREMENT = 3, SCOREP_PARADIGM_CAF = 4, &
        SCOREP_PARADIGM_COMPILER = 5, SCOREP_PARADIGM_IO = 6, SCOREP_PARADIGM_PTHREAD = 7, &
        SCOREP_PARADIGM_MEMORY = 8, SCOREP_PARADIGM_OPENMP = 9, SCOREP_PARADIGM_SHMEM = 10, &
        SCOREP_PARADIGM_SAMPLING = 11

    integer(c_int), parameter :: SCOREP_ROLE_FUNCTION = 0, SCOREP_ROLE_WRAPPER = 1, &
        SCOREP_ROLE_POINT2POINT = 2, SCOREP_ROLE_COLLECTIVE = 3, SCOREP_ROLE_BARRIER = 4, &
        SCOREP_ROLE_ONE2ALL = 5, SCOREP_ROLE_ALL2ONE = 6, SCOREP_ROLE_ALL2ALL = 7, &
        SCOREP_ROLE_FILE_IO = 8, SCOREP_ROLE_RMA = 9, SCOREP_ROLE_ARTIFICIAL = 10, &
        SCOREP_ROLE_ALLOCATE = 11, SCOREP_ROLE_DEALLOCATE = 12, SCOREP_ROLE_REALLOCATE = 13, &
        SCOREP_ROLE_FILE_IO_METADATA = 14, SCOREP_ROLE_ATOMIC = 15, SCOREP_ROLE_PARALLEL = 16, &
        SCOREP_ROLE_LOOP = 17, SCOREP_ROLE_IMPLICIT_BARRIER = 18, SCOREP_ROLE_SINGLE = 19, &
        SCOREP_ROLE_SINGLE_SBLOCK = 20, SCOREP_ROLE_CRITICAL = 21, SCOREP_ROLE_CRITICAL_SBLOCK = 22, &
        SCOREP_ROLE_SECTIONS = 23, SCOREP_ROLE_SECTION = 24, SCOREP_ROLE_ORDERED = 25, &
        SCOREP_ROLE_ORDERED_SBLOCK = 26, SCOREP_ROLE_TASK = 27, SCOREP_ROLE_TASK_CREATE = 28, &
        SCOREP_ROLE_TASK_WAIT = 29, SCOREP_ROLE_MASTER = 30, SCOREP_ROLE_WORKSHARE = 31

    integer(c_int), parameter :: SCOREP_LANGUAGE_C = 0, SCOREP_LANGUAGE_FORTRAN = 1, &
        SCOREP_LANGUAGE_FORTRAN2008 = 2

    integer(c_int), parameter :: SCOREP_COLL_BARRIER = 0, SCOREP_COLL_BCAST = 1, &
        SCOREP_COLL_GATHER = 2, SCOREP_COLL_GATHERV = 3, SCOREP_COLL_SCATTER = 4, &
        SCOREP_COLL_SCATTERV = 5, SCOREP_COLL_ALLGATHER = 6, SCOREP_COLL_ALLGATHERV = 7, &
        SCOREP_COLL_ALLTOALL = 8, SCOREP_COLL_ALLTOALLV = 9, SCOREP_COLL_ALLTOALLW = 10, &
        SCOREP_COLL_ALLREDUCE = 11, SCOREP_COLL_REDUCE = 12, SCOREP_COLL_REDUCE_SCATTER = 13, &
        SCOREP_COLL_SCAN = 14, SCOREP_COLL_EXSCAN = 15, SCOREP_COLL_REDUCE_SCATTER_BLOCK = 16, &
        SCOREP_COLL_CREATE_HANDLE = 17, SCOREP_COLL_DESTROY_HANDLE = 18, &
        SCOREP_COLL_ALLOCATE = 19, SCOREP_COLL_DEALLOCATE = 20, &
        SCOREP_COLL_CREATE_HANDLE_AND_ALLOCATE = 21, SCOREP_COLL_DESTROY_HANDLE_AND_DEALLOCATE = 22
    ! neighbourhood collectives: no OTF2 op, recorded with the end alone (adapter.h)
    integer(c_int), parameter :: SCOREP_COLL_NEIGHBOR_ALLGATHER = 64, SCOREP_COLL_NEIGHBOR_ALLGATHERV = 65, &
        SCOREP_COLL_NEIGHBOR_ALLTOALL = 66, SCOREP_COLL_NEIGHBOR_ALLTOALLV = 67, &
        SCOREP_COLL_NEIGHBOR_ALLTOALLW = 68

    integer(c_int), parameter :: SCOREP_PARAMETER_TYPE_INT64 = 0, SCOREP_PARAMETER_TYPE_STRING = 1

    ! scorep_recv_origin: which call created a receive request
    integer(c_int), parameter :: SCOREP_RECV_IRECV = 0, SCOREP_RECV_ISENDRECV = 1, &
        SCOREP_RECV_ISENDRECV_NO_SEND = 2, SCOREP_RECV_ISENDRECV_REPLACE = 3, &
        SCOREP_RECV_ISENDRECV_REPLACE_NO_SEND = 4

    interface
        ! regions
        function scorep_region_define(name, file, paradigm, role, group) &
                bind(c, name="scorep_region_define") result(id)
            import :: c_char, c_int, c_int32_t
            character(kind=c_char), dimension(*), intent(in) :: name, file, group
            integer(c_int), value :: paradigm, role
            integer(c_int32_t) :: id
        end function
        ! the same with the region's source line (0: unknown), see adapter.h
        function scorep_region_define_at(name, file, line, paradigm, role, group) &
                bind(c, name="scorep_region_define_at") result(id)
            import :: c_char, c_int, c_int32_t
            character(kind=c_char), dimension(*), intent(in) :: name, file, group
            integer(c_int), value :: line, paradigm, role
            integer(c_int32_t) :: id
        end function
        function scorep_region_is_filtered(region) bind(c, name="scorep_region_is_filtered") result(r)
            import :: c_int, c_int32_t
            integer(c_int32_t), value :: region
            integer(c_int) :: r
        end function
        subroutine scorep_enter(region) bind(c, name="scorep_enter")
            import :: c_int32_t
            integer(c_int32_t), value :: region
        end subroutine
        subroutine scorep_exit(region) bind(c, name="scorep_exit")
            import :: c_int32_t
            integer(c_int32_t), value :: region
        end subroutine

        ! per-thread event generation flag
        function scorep_event_generation_is_on() bind(c, name="scorep_event_generation_is_on_fn") result(on)
            import :: c_int
            integer(c_int) :: on
        end function
        subroutine scorep_event_generation_off() bind(c, name="scorep_event_generation_off_fn")
        end subroutine
        subroutine scorep_event_generation_on() bind(c, name="scorep_event_generation_on_fn")
        end subroutine

        ! communicators and groups
        function scorep_comm_define(stable_key, is_group, size, local_to_world, name) &
                bind(c, name="scorep_comm_define") result(id)
            import :: c_int, c_int32_t, c_int64_t, c_char
            integer(c_int64_t), value :: stable_key
            integer(c_int), value :: is_group
            integer(c_int32_t), value :: size
            integer(c_int), dimension(*), intent(in) :: local_to_world
            character(kind=c_char), dimension(*), intent(in) :: name
            integer(c_int32_t) :: id
        end function
        subroutine scorep_comm_free(comm) bind(c, name="scorep_comm_free")
            import :: c_int32_t
            integer(c_int32_t), value :: comm
        end subroutine
        function scorep_comm_world_rank(comm, rank_in_comm) bind(c, name="scorep_comm_world_rank") result(w)
            import :: c_int, c_int32_t
            integer(c_int32_t), value :: comm
            integer(c_int), value :: rank_in_comm
            integer(c_int) :: w
        end function

        ! point-to-point and requests
        subroutine scorep_mpi_send(comm, peer, tag, bytes) bind(c, name="scorep_mpi_send")
            import :: c_int, c_int32_t, c_int64_t
            integer(c_int32_t), value :: comm
            integer(c_int), value :: peer, tag
            integer(c_int64_t), value :: bytes
        end subroutine
        subroutine scorep_mpi_recv(comm, peer, tag, bytes) bind(c, name="scorep_mpi_recv")
            import :: c_int, c_int32_t, c_int64_t
            integer(c_int32_t), value :: comm
            integer(c_int), value :: peer, tag
            integer(c_int64_t), value :: bytes
        end subroutine
        subroutine scorep_mpi_isend(comm, peer, tag, bytes, request) bind(c, name="scorep_mpi_isend")
            import :: c_int, c_int32_t, c_int64_t
            integer(c_int32_t), value :: comm
            integer(c_int), value :: peer, tag
            integer(c_int64_t), value :: bytes, request
        end subroutine
        subroutine scorep_mpi_irecv_request(comm, request) bind(c, name="scorep_mpi_irecv_request")
            import :: c_int32_t, c_int64_t
            integer(c_int32_t), value :: comm
            integer(c_int64_t), value :: request
        end subroutine
        subroutine scorep_mpi_irecv_request_posted(comm, source, tag, capacity, origin, request) &
                bind(c, name="scorep_mpi_irecv_request_posted")
            import :: c_int, c_int32_t, c_int64_t
            integer(c_int32_t), value :: comm
            integer(c_int), value :: source, tag, origin
            integer(c_int64_t), value :: capacity, request
        end subroutine
        subroutine scorep_mpi_send_init(comm, peer, tag, bytes, request) bind(c, name="scorep_mpi_send_init")
            import :: c_int, c_int32_t, c_int64_t
            integer(c_int32_t), value :: comm
            integer(c_int), value :: peer, tag
            integer(c_int64_t), value :: bytes, request
        end subroutine
        subroutine scorep_mpi_recv_init(comm, request) bind(c, name="scorep_mpi_recv_init")
            import :: c_int32_t, c_int64_t
            integer(c_int32_t), value :: comm
            integer(c_int64_t), value :: request
        end subroutine
        subroutine scorep_mpi_request_start(request) bind(c, name="scorep_mpi_request_start")
            import :: c_int64_t
            integer(c_int64_t), value :: request
        end subroutine
        subroutine scorep_mpi_request_complete(request, source, tag, bytes, cancelled) &
                bind(c, name="scorep_mpi_request_complete")
            import :: c_int, c_int64_t
            integer(c_int64_t), value :: request, bytes
            integer(c_int), value :: source, tag, cancelled
        end subroutine
        subroutine scorep_mpi_request_complete_status(request, status, language) &
                bind(c, name="scorep_mpi_request_complete_status")
            import :: c_int, c_int64_t, c_ptr
            integer(c_int64_t), value :: request
            type(c_ptr), value :: status
            integer(c_int), value :: language
        end subroutine
        subroutine scorep_mpi_request_test(request) bind(c, name="scorep_mpi_request_test")
            import :: c_int64_t
            integer(c_int64_t), value :: request
        end subroutine
        subroutine scorep_mpi_request_cancel(request) bind(c, name="scorep_mpi_request_cancel")
            import :: c_int64_t
            integer(c_int64_t), value :: request
        end subroutine
        subroutine scorep_mpi_request_free(request) bind(c, name="scorep_mpi_request_free")
            import :: c_int64_t
            integer(c_int64_t), value :: request
        end subroutine

        ! collectives
        subroutine scorep_mpi_collective_begin() bind(c, name="scorep_mpi_collective_begin")
        end subroutine
        ! communicators' life cycle (adapter.h, scorep_mpi_handle_begin)
        subroutine scorep_mpi_handle_begin() bind(c, name="scorep_mpi_handle_begin")
        end subroutine
        subroutine scorep_mpi_handle_end(kind, over, comm) bind(c, name="scorep_mpi_handle_end")
            import :: c_int, c_int32_t
            integer(c_int), value :: kind
            integer(c_int32_t), value :: over, comm
        end subroutine
        subroutine scorep_mpi_handle_end_predefined(kind) bind(c, name="scorep_mpi_handle_end_predefined")
            import :: c_int
            integer(c_int), value :: kind
        end subroutine
        subroutine scorep_mpi_collective_end(kind, comm, root, bytes_sent, bytes_received) &
                bind(c, name="scorep_mpi_collective_end")
            import :: c_int, c_int32_t, c_int64_t
            integer(c_int), value :: kind, root
            integer(c_int32_t), value :: comm
            integer(c_int64_t), value :: bytes_sent, bytes_received
        end subroutine
        subroutine scorep_mpi_collective_init(kind, comm, root, bytes_sent, bytes_received, request) &
                bind(c, name="scorep_mpi_collective_init")
            import :: c_int, c_int32_t, c_int64_t
            integer(c_int), value :: kind, root
            integer(c_int32_t), value :: comm
            integer(c_int64_t), value :: bytes_sent, bytes_received, request
        end subroutine

        ! RMA
        function scorep_rma_window_define(stable_key, comm, name) bind(c, name="scorep_rma_window_define") result(id)
            import :: c_int32_t, c_int64_t, c_char
            integer(c_int64_t), value :: stable_key
            integer(c_int32_t), value :: comm
            character(kind=c_char), dimension(*), intent(in) :: name
            integer(c_int32_t) :: id
        end function
        subroutine scorep_rma_window_create(window) bind(c, name="scorep_rma_window_create")
            import :: c_int32_t
            integer(c_int32_t), value :: window
        end subroutine
        subroutine scorep_rma_window_free(window) bind(c, name="scorep_rma_window_free")
            import :: c_int32_t
            integer(c_int32_t), value :: window
        end subroutine
        subroutine scorep_rma_put(window, target, bytes, matching_id) bind(c, name="scorep_rma_put")
            import :: c_int, c_int32_t, c_int64_t
            integer(c_int32_t), value :: window
            integer(c_int), value :: target
            integer(c_int64_t), value :: bytes, matching_id
        end subroutine
        subroutine scorep_rma_get(window, target, bytes, matching_id) bind(c, name="scorep_rma_get")
            import :: c_int, c_int32_t, c_int64_t
            integer(c_int32_t), value :: window
            integer(c_int), value :: target
            integer(c_int64_t), value :: bytes, matching_id
        end subroutine
        subroutine scorep_rma_atomic(window, target, kind, bytes_sent, bytes_received, matching_id) &
                bind(c, name="scorep_rma_atomic")
            import :: c_int, c_int32_t, c_int64_t
            integer(c_int32_t), value :: window
            integer(c_int), value :: target, kind
            integer(c_int64_t), value :: bytes_sent, bytes_received, matching_id
        end subroutine
        subroutine scorep_rma_op_complete(window, matching_id, blocking) bind(c, name="scorep_rma_op_complete")
            import :: c_int, c_int32_t, c_int64_t
            integer(c_int32_t), value :: window
            integer(c_int64_t), value :: matching_id
            integer(c_int), value :: blocking
        end subroutine
        subroutine scorep_rma_collective_begin() bind(c, name="scorep_rma_collective_begin")
        end subroutine
        subroutine scorep_rma_collective_end(kind, level, window, root, bytes_sent, bytes_received) &
                bind(c, name="scorep_rma_collective_end")
            import :: c_int, c_int32_t, c_int64_t
            integer(c_int), value :: kind, level, root
            integer(c_int32_t), value :: window
            integer(c_int64_t), value :: bytes_sent, bytes_received
        end subroutine
        subroutine scorep_rma_group_sync(level, window, group) bind(c, name="scorep_rma_group_sync")
            import :: c_int, c_int32_t
            integer(c_int), value :: level
            integer(c_int32_t), value :: window, group
        end subroutine
        subroutine scorep_rma_lock(window, target, exclusive) bind(c, name="scorep_rma_lock")
            import :: c_int, c_int32_t
            integer(c_int32_t), value :: window
            integer(c_int), value :: target, exclusive
        end subroutine
        subroutine scorep_rma_unlock(window, target) bind(c, name="scorep_rma_unlock")
            import :: c_int, c_int32_t
            integer(c_int32_t), value :: window
            integer(c_int), value :: target
        end subroutine
        subroutine scorep_rma_sync(window, target) bind(c, name="scorep_rma_sync")
            import :: c_int, c_int32_t
            integer(c_int32_t), value :: window
            integer(c_int), value :: target
        end subroutine

        ! I/O, parameters, metrics
        subroutine scorep_io_bytes(bytes_read, bytes_written) bind(c, name="scorep_io_bytes")
            import :: c_int64_t
            integer(c_int64_t), value :: bytes_read, bytes_written
        end subroutine
        function scorep_parameter_define(name, type) bind(c, name="scorep_parameter_define") result(id)
            import :: c_char, c_int, c_int32_t
            character(kind=c_char), dimension(*), intent(in) :: name
            integer(c_int), value :: type
            integer(c_int32_t) :: id
        end function
        subroutine scorep_parameter_int(param, value) bind(c, name="scorep_parameter_int")
            import :: c_int32_t, c_int64_t
            integer(c_int32_t), value :: param
            integer(c_int64_t), value :: value
        end subroutine
        subroutine scorep_parameter_string(param, value) bind(c, name="scorep_parameter_string")
            import :: c_int32_t, c_char
            integer(c_int32_t), value :: param
            character(kind=c_char), dimension(*), intent(in) :: value
        end subroutine
        function scorep_metric_define(name, unit) bind(c, name="scorep_metric_define") result(id)
            import :: c_char, c_int32_t
            character(kind=c_char), dimension(*), intent(in) :: name, unit
            integer(c_int32_t) :: id
        end function
        subroutine scorep_metric_add(metric, value) bind(c, name="scorep_metric_add")
            import :: c_int32_t, c_int64_t
            integer(c_int32_t), value :: metric
            integer(c_int64_t), value :: value
        end subroutine

        ! lifecycle
        subroutine scorep_measurement_init() bind(c, name="scorep_measurement_init")
        end subroutine
        subroutine scorep_measurement_finalize() bind(c, name="scorep_measurement_finalize")
        end subroutine
        subroutine scorep_measurement_abort() bind(c, name="scorep_measurement_abort")
        end subroutine
    end interface
end module scorep_wrapgen_core
