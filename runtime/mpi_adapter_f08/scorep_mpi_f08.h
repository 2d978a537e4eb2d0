/*
 * What the generated Fortran 2008 MPI wrappers (generated/mpi/f08/) need from
 * C: their region table, and conversions of mpi_f08 handles (the MPI_VAL
 * integer, which is the Fortran handle MPI_*_f2c takes) for the MPI layer.
 * The Fortran side of these helpers is scorep_mpi_f08_support.F90.
 */
#ifndef SCOREP_MPI_F08_H
#define SCOREP_MPI_F08_H

#include "scorep_mpi_adapter.h"

struct scorep_mpi_f08_region_info {
    const char* name;
    const char* group_name;
    uint32_t group;   /* SCOREP_MPI_GROUP_<group> */
    int role;         /* scorep_region_role */
};
extern const struct scorep_mpi_f08_region_info scorep_mpi_f08_region_info[];
extern const int scorep_mpi_f08_region_count;

#endif
