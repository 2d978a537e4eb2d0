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
