"""The Fortran interface module (bind(c)) reaches the core."""
import pytest

from runtime_programs import Profile, load_profile, run


def test_fortran_program_records_regions_parameters_and_messages(build_dir, tmp_path):
    if not (build_dir / "runtime" / "tests" / "test_fortran_module").exists():
        pytest.skip("built without a Fortran compiler")
    directory = tmp_path / "experiment"
    run(build_dir, "test_fortran_module", env={"SCOREP_EXPERIMENT_DIRECTORY": str(directory)})
    profile = Profile(load_profile(directory / "profile.json"))
    assert profile.row("main_f")["visits"] == 1
    assert profile.row("main_f/MPI_Send")["visits"] == 3
    for i in (1, 2, 3):
        row = profile.row(f"main_f/MPI_Send/size={i}")
        assert (row["visits"], row["bytes_sent"], row["messages_sent"]) == (1, 8 * i, 1)
    send = next(r for r in profile.data["regions"] if r["name"] == "MPI_Send")
    assert (send["paradigm"], send["group"], send["file"]) == ("mpi", "P2P", None)
    main = next(r for r in profile.data["regions"] if r["name"] == "main_f")
    assert main["group"] is None and main["file"] == "test_fortran_module.F90"
