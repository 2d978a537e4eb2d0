"""One message format for the measurement (core and adapters): "[Score-P]",
the rank where there are several, and what every rank would say alike said
once, with the number of ranks, so that a run on many ranks does not
repeat one line per rank."""
import pathlib
import re
import sys

import pytest

from runtime_programs import run

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "mpi"))


def score_p_lines(stderr):
    return [line for line in stderr.splitlines() if line.startswith("[Score-P]")]


def test_a_single_process_says_warning_without_a_rank(build_dir, tmp_path):
    proc = run(build_dir, "test_config", "show", env={"SCOREP_ENABLE_TRACNG": "true"})
    assert score_p_lines(proc.stderr) == [
        "[Score-P] Warning: SCOREP_ENABLE_TRACNG is not a variable of this measurement and has no effect; "
        "did you mean SCOREP_ENABLE_TRACING?"]


@pytest.mark.parametrize("launcher", [("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"), ("PMI_RANK", "PMI_SIZE")])
def test_environment_warnings_come_once_from_rank_0_with_the_rank_count(build_dir, tmp_path, launcher):
    # the launcher's variables make the serial test program one rank of four
    env = {"SCOREP_ENABLE_TRACNG": "true", "SCOREP_TOTAL_MEMORY": "lots", launcher[1]: "4"}
    said = {rank: score_p_lines(run(build_dir, "test_config", "show", env={**env, launcher[0]: str(rank)}).stderr)
            for rank in range(4)}
    assert said[1] == said[2] == said[3] == []
    assert len(said[0]) == 2, said[0]
    for line in said[0]:
        assert line.startswith("[Score-P] Warning: ") and line.endswith(" (the same on all 4 ranks)"), line


def test_a_warning_of_one_rank_names_the_rank(build_dir, tmp_path):
    taken = tmp_path / "e"
    taken.mkdir()
    (taken / "precious").write_text("keep me")
    proc = run(build_dir, "test_experiment", "normal",
               env={"SCOREP_EXPERIMENT_DIRECTORY": str(taken), "OMPI_COMM_WORLD_RANK": "0",
                    "OMPI_COMM_WORLD_SIZE": "3"})
    lines = score_p_lines(proc.stderr)
    assert len(lines) == 1 and lines[0].startswith("[Score-P] rank 0: Warning: SCOREP_EXPERIMENT_DIRECTORY"), lines


def test_mpi_run_prints_environment_warnings_once_in_one_format(tmp_path):
    from measure import compile_program, run_measured
    program = compile_program("openmpi", "pingpong_long.c", tmp_path)
    proc, _ = run_measured("openmpi", 3, program, tmp_path, args=["10"],
                           env={"SCOREP_ENABLE_TRACNG": "true", "SCOREP_MPI_ENABLE_GROUPS": "DEFAULT,BOGUS"})
    assert "scorep-wrapgen: warning" not in proc.stderr
    lines = score_p_lines(proc.stderr)
    assert len(lines) == 2, proc.stderr
    assert any("SCOREP_ENABLE_TRACNG" in line for line in lines)
    assert any("SCOREP_MPI_ENABLE_GROUPS: unknown group 'BOGUS'" in line for line in lines)
    assert all(re.fullmatch(r"\[Score-P\] Warning: .* \(the same on all 3 ranks\)", line) for line in lines), lines


def test_a_bad_filter_file_is_reported_once_for_all_ranks(build_dir, tmp_path):
    filt = tmp_path / "filter.txt"
    filt.write_text("SCOREP_REGION_NAMES_BEGIN\n EXCLUDE *\n INCLUDEE main\nSCOREP_REGION_NAMES_END\n")
    said = {}
    for rank in range(2):
        proc = run(build_dir, "test_experiment", "normal",
                   env={"SCOREP_FILTERING_FILE": str(filt), "SCOREP_EXPERIMENT_DIRECTORY": str(tmp_path / f"e{rank}"),
                        "OMPI_COMM_WORLD_RANK": str(rank), "OMPI_COMM_WORLD_SIZE": "2"})
        said[rank] = [line for line in score_p_lines(proc.stderr) if "SCOREP_FILTERING_FILE" in line]
    assert said[1] == []
    assert len(said[0]) == 1 and said[0][0].endswith("(the same on all 2 ranks)"), said[0]
    assert f"'{filt}': line 3: 'INCLUDEE' is not a keyword" in said[0][0]
