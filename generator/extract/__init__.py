"""Maintainer front-end: derive the MPI 4.0 spec from an installed mpi.h."""
