"""FFTW wrapped as a user would: typedef'd arrays (fftw_complex), exact
call counts of a program computing transforms, and the transform sizes
recorded as region parameters (N.params)."""
import pytest

from libwrap_runs import MODES, full_workflow, installcheck_experiment, parameter_visits, run, visits

SIZES_1D, ROWS_2D, EXECUTIONS = [8, 16, 16, 32], [4, 8, 8], 3      # as in examples/fftw3_main.c
EXPECTED_CALLS = {
    "fftw_malloc": 2 * len(SIZES_1D) + len(ROWS_2D),
    "fftw_plan_dft_1d": len(SIZES_1D),
    "fftw_plan_dft_2d": len(ROWS_2D),
    "fftw_execute": EXECUTIONS * len(SIZES_1D) + len(ROWS_2D),
    "fftw_destroy_plan": len(SIZES_1D) + len(ROWS_2D),
    "fftw_free": 2 * len(SIZES_1D) + len(ROWS_2D),
}


@pytest.fixture(scope="module")
def fftw(installed_prefix, tmp_path_factory):
    return full_workflow(tmp_path_factory.mktemp("libwrap-fftw3"), installed_prefix, "fftw3", "c",
                         "-lfftw3 -lm", "fftw3_main.c", params="fftw_plan_dft_1d: n\nfftw_plan_dft_2d: n0\n",
                         headers=["fftw3.h"], display_name="FFTW 3")


def test_array_typedef_parameters_keep_their_type(fftw):
    source = fftw.read("scorep_libwrap_fftw3_linktime.c")
    assert "__wrap_fftw_plan_dft_1d(int n, fftw_complex * in, fftw_complex * out" in \
        source.replace("fftw_complex *in", "fftw_complex * in").replace("fftw_complex *out", "fftw_complex * out")


@pytest.mark.parametrize("mode", MODES)
def test_every_mode_counts_each_call_exactly(fftw, mode):
    got = visits(installcheck_experiment(fftw, mode))
    assert {name: got.get(name, 0) for name in EXPECTED_CALLS} == EXPECTED_CALLS


def expected_values(name, sizes):
    counts = {}
    for n in sizes:
        counts[f"{name}={n}"] = counts.get(f"{name}={n}", 0) + 1
    return counts


@pytest.mark.parametrize("mode", ["linktime shared", "runtime shared"])
def test_transform_sizes_are_recorded_as_parameters(fftw, mode):
    experiment = installcheck_experiment(fftw, mode)
    assert parameter_visits(experiment, "fftw_plan_dft_1d") == expected_values("n", SIZES_1D)
    assert parameter_visits(experiment, "fftw_plan_dft_2d") == expected_values("n0", ROWS_2D)


def test_results_are_unchanged_under_measurement(fftw, installed_prefix, tmp_path):
    plain = run([fftw.path / "main"], installed_prefix, tmp_path, tmp_path / "e0")
    measured = run([installed_prefix / "bin" / "scorep-exec", "--libwrap=fftw3", "--", fftw.path / "main"],
                   installed_prefix, tmp_path, tmp_path / "e1", {"SCOREP_LIBWRAP_PATH": str(fftw.libwrap_prefix)})
    assert plain.returncode == measured.returncode == 0, measured.stderr
    assert measured.stdout == plain.stdout and "1d n=32 run 2" in plain.stdout
