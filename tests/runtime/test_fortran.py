"""The Fortran interface module (bind(c)) reaches the core."""
import pytest

from runtime_programs import Profile, load_profile, run


def test_fortran_program_records_regions_parameters_and_messages(build_dir, tmp_path):
    if not (build_dir / "runtime" / "tests" / "test_fortran_module").exists():
        pytest.skip("built without a Fortran compiler")
    directory = tmp_path / "experiment"
    run(build_dir, "test_fortran_module", env={"SCOREP_EXPERIMENT_DIRECTORY": str(directory)})
    profile = Profile(load_profile(directory / "profile.json"))
    # below the program region, named after the executable
    assert profile.row("test_fortran_module")["visits"] == 1
    assert profile.row("test_fortran_module/main_f")["visits"] == 1
    assert profile.row("test_fortran_module/main_f/MPI_Send")["visits"] == 3
    for i in (1, 2, 3):
        row = profile.row(f"test_fortran_module/main_f/MPI_Send/size={i}")
        assert (row["visits"], row["bytes_sent"], row["messages_sent"]) == (1, 8 * i, 1)
    send = next(r for r in profile.data["regions"] if r["name"] == "MPI_Send")
    assert (send["paradigm"], send["group"], send["file"]) == ("mpi", "P2P", None)
    main = next(r for r in profile.data["regions"] if r["name"] == "main_f")
    assert main["group"] is None and main["file"] == "test_fortran_module.F90"


def c_enum(header, prefix):
    """{name: value} of a C enum's members named prefix* (implicit values
    counted on from the last explicit one), from the header text."""
    import re
    values, next_value = {}, 0
    for name, value in re.findall(rf"^\s*({prefix}\w+)\s*(?:=\s*(\d+))?\s*,", header, re.M):
        if name.endswith("_COUNT_"):
            continue
        next_value = int(value) if value else next_value
        values[name] = next_value
        next_value += 1
    return values


def test_fortran_module_enums_match_adapter_h():
    """Every paradigm and region role of adapter.h has its parameter, with
    the same value, in the Fortran interface module."""
    import re
    from conftest import REPO
    header = (REPO / "runtime" / "include" / "scorep_wrapgen" / "adapter.h").read_text()
    module = (REPO / "runtime" / "fortran" / "scorep_wrapgen_core.F90").read_text().replace("&\n", " ")
    fortran = {name: int(value) for name, value in re.findall(r"(SCOREP_\w+)\s*=\s*(\d+)", module)}
    for prefix in ("SCOREP_PARADIGM_", "SCOREP_ROLE_"):
        want = c_enum(header, prefix)
        assert len(want) >= 5 and want.get("SCOREP_PARADIGM_CAF", 4) == 4
        assert {n: fortran.get(n) for n in want} == want
