"""scorep-wrapgen's generator: MPI specs and library headers -> one procedure model -> wrappers."""
