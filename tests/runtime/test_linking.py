"""The core links no MPI; the MPI layer is a separate library."""
import subprocess


def needed(library):
    out = subprocess.run(["readelf", "-d", str(library)], capture_output=True, text=True, check=True).stdout
    return [line.split("[")[1].rstrip("]") for line in out.splitlines() if "(NEEDED)" in line]


def test_core_library_needs_no_mpi(build_dir):
    libs = needed(build_dir / "runtime" / "libscorep_measurement.so")
    assert not [lib for lib in libs if "mpi" in lib.lower()], libs


def test_mpi_layer_brings_mpi_and_the_core(build_dir):
    layer = build_dir / "runtime" / "libscorep_mpi_layer.so"
    if not layer.exists():
        import pytest
        pytest.skip("built without MPI")
    libs = needed(layer)
    assert "libscorep_measurement.so" in libs
    assert any("mpi" in lib.lower() for lib in libs), libs


def test_serial_test_program_runs_without_any_mpi_library(build_dir):
    out = subprocess.run(["ldd", str(build_dir / "runtime" / "tests" / "test_experiment")],
                         capture_output=True, text=True, check=True).stdout
    assert "mpi" not in out.lower(), out


# ---- scorep links the MPI adapter only where the link uses MPI ------------------------

PROGRAM = "int main(void) { return 0; }\n"


def scorep_link(build_dir, tmp_path, options, compiler, extra=()):
    """`scorep [options] <compiler> app.c -o app [extra]`; the program's NEEDED libraries."""
    import sys
    source = tmp_path / "app.c"
    source.write_text(PROGRAM)
    exe = tmp_path / "app"
    cmd = [sys.executable, str(build_dir / "runtime" / "mpi_adapter" / "scorep"), "--nocompiler",
           *options, compiler, str(source), "-o", str(exe), *extra]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stderr}"
    return needed(exe)


def test_scorep_links_no_mpi_adapter_into_a_program_without_mpi(build_dir, tmp_path):
    """A plain compiler without -lmpi (as `scorep --libwrap=z gcc app.c -lz`
    is): no MPI adapter, no MPI library, so the measurement does not wait for
    an MPI_Init that never comes."""
    for compiler, extra in (("gcc", ()), ("cc", ("-lm",))):
        libs = scorep_link(build_dir, tmp_path, [], compiler, extra)
        assert "libscorep_measurement.so" in libs, libs
        assert not [lib for lib in libs if "mpi" in lib.lower()], (compiler, libs)


def test_scorep_links_the_mpi_adapter_where_the_link_uses_mpi(build_dir, tmp_path):
    """An MPI compiler wrapper, -lmpi with a plain compiler, or --mpi."""
    if not (build_dir / "runtime" / "libscorep_mpi_layer.so").exists():
        import pytest
        pytest.skip("built without MPI")
    for options, compiler, extra in (([], "mpicc", ()), ([], "gcc", ("-lmpi",)),
                                     (["--mpi"], "gcc", ())):
        libs = scorep_link(build_dir, tmp_path, options, compiler, extra)
        assert "libscorep_adapter_mpi.so" in libs, (options, compiler, extra, libs)
    libs = scorep_link(build_dir, tmp_path, ["--nompi"], "mpicc")
    assert "libscorep_adapter_mpi.so" not in libs, libs
