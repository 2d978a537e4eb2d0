"""`specs --summary`: what the merged spec holds, per version and binding."""
from .specs import version_key


def spec_summary(spec):
    lines = []
    base = "4.0" if "4.0" in spec.versions else spec.versions[0]
    in_base = spec.in_version(base)
    procs = [p for p in in_base if not p.is_callback]
    callbacks = [p for p in in_base if p.is_callback]
    predefined = [p for p in in_base if p.is_predefined_function]
    lines.append(f"MPI {base}: {len(procs)} procedures (callback prototypes excluded; "
                 f"{len(predefined)} of them predefined callback functions such as MPI_COMM_DUP_FN)")
    for binding, label in (("c", "C"), ("f90", "Fortran (mpif.h / use mpi)"),
                           ("f08", "Fortran 2008 (use mpi_f08)")):
        lines.append(f"  with a {label} binding: {sum(p.has_binding(binding) for p in procs)}")
    lines.append(f"  with a large-count (_c) variant: {sum(p.has_large_count_variant for p in procs)}")
    lines.append(f"  callback prototypes: {len(callbacks)}")
    lines.append("by first version:")
    for version in spec.versions:
        added = [p for p in spec if not p.is_callback and p.since == version and not p.removed]
        lines.append(f"  {version}: {len(added)} procedures")
        if version_key(version) > version_key(base):
            large = sum(p.has_large_count_variant for p in added)
            lines.append(f"    ({large} with a large-count variant)")
    removed = [p for p in spec if p.removed]
    lines.append(f"removed interfaces still shipped by libraries: {len(removed)}")
    for version in sorted({p.removed for p in removed}, key=version_key):
        names = ", ".join(p.name for p in removed if p.removed == version)
        lines.append(f"  removed in {version}: {names}")
    lines.append(f"total callable procedures incl. _c variants: {sum(1 for _ in spec.callable_procedures())}")
    return "\n".join(lines) + "\n"
