! Calls the core through the Fortran interface module: regions, messages,
! a parameter, the event generation flag. tests/runtime/test_fortran.py
! checks the resulting profile.json.
program test_fortran_module
    use, intrinsic :: iso_c_binding
    use scorep_wrapgen_core
    implicit none
    integer(c_int32_t) :: main_region, send_region, size_param
    integer :: i

    main_region = scorep_region_define("main_f" // c_null_char, "test_fortran_module.F90" // c_null_char, &
                                       SCOREP_PARADIGM_USER, SCOREP_ROLE_FUNCTION, c_null_char)
    send_region = scorep_region_define("MPI_Send" // c_null_char, c_null_char, &
                                       SCOREP_PARADIGM_MPI, SCOREP_ROLE_POINT2POINT, "P2P" // c_null_char)
    size_param = scorep_parameter_define("size" // c_null_char, SCOREP_PARAMETER_TYPE_INT64)

    call scorep_enter(main_region)
    do i = 1, 3
        if (scorep_event_generation_is_on() /= 0) then
            call scorep_event_generation_off()
            call scorep_enter(send_region)
            call scorep_parameter_int(size_param, int(i, c_int64_t))
            call scorep_mpi_send(SCOREP_COMM_SELF, 0_c_int, 42_c_int, int(8 * i, c_int64_t))
            call scorep_exit(send_region)
            call scorep_event_generation_on()
        end if
    end do
    call scorep_exit(main_region)
    call scorep_measurement_finalize()
end program
