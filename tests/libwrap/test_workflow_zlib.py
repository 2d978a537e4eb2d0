"""zlib wrapped the way a user would: scorep-libwrap-init, make, make check,
make install, make installcheck; then exact call counts in every mode, the
example's output unchanged, gzprintf forwarded to gzvprintf by itself, a
parameter recorded, and the runtime filter honoured."""
import subprocess

import pytest

from libwrap_runs import EXAMPLES, MODES, full_workflow, installcheck_experiment, parameter_visits, regions, run, tool_env, visits

# how often tests/libwrap/examples/zlib_main.c calls each function
EXPECTED_CALLS = {"zlibVersion": 1, "compress": 3, "uncompress": 3, "crc32": 5, "gzopen": 1,
                  "gzprintf": 4, "gzclose": 1}


@pytest.fixture(scope="module")
def zlib(installed_prefix, tmp_path_factory):
    return full_workflow(tmp_path_factory.mktemp("libwrap-zlib"), installed_prefix, "z", "c", "-lz",
                         "zlib_main.c", params="crc32: len\n", headers=["zlib.h"], display_name="zlib")


def test_make_forwards_gzprintf_to_gzvprintf_by_itself(zlib):
    wrapped = zlib.wrapped()
    assert "gzprintf" in wrapped
    source = zlib.read("scorep_libwrap_z_linktime.c")
    assert '__asm__("gzvprintf")' in source
    assert "gzprintf" not in zlib.read("not_wrappable.txt")


def test_only_zlibs_own_headers_are_wrapped(zlib):
    wrapped = zlib.wrapped()
    assert {"deflate", "inflate", "compress", "crc32"} <= set(wrapped)
    # stdio/unistd functions reach libwrap.i through zconf.h but are not zlib's
    assert not {"printf", "read", "write", "fopen"} & set(wrapped)


@pytest.mark.parametrize("mode", MODES)
def test_every_mode_counts_each_call_exactly(zlib, mode):
    got = visits(installcheck_experiment(zlib, mode))
    counted = {name: got.get(name, 0) for name in EXPECTED_CALLS}
    assert counted == EXPECTED_CALLS
    region = regions(installcheck_experiment(zlib, mode))["compress"]
    assert region["paradigm"] == "libwrap" and region["group"] == "z"


def test_installcheck_prints_the_table_and_passes(zlib):
    out = zlib.installcheck_output.stdout
    assert "every wrapped function the example calls" in out
    for name in EXPECTED_CALLS:
        assert any(line.split()[0] == name for line in out.splitlines() if line.strip())


def test_recorded_parameter_splits_the_call_path_by_value(zlib):
    # crc32 is called with len=100 five times
    for mode in ("linktime shared", "runtime shared"):
        assert parameter_visits(installcheck_experiment(zlib, mode), "crc32") == {"len=100": 5}


def test_output_is_unchanged_and_filter_removes_a_function_at_run_time(zlib, installed_prefix, tmp_path):
    plain = run([zlib.path / "main", tmp_path / "plain.gz"], installed_prefix, tmp_path, tmp_path / "e0")
    filt = tmp_path / "f.filter"
    filt.write_text("SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE crc32\nSCOREP_REGION_NAMES_END\n")
    measured = run([installed_prefix / "bin" / "scorep-exec", "--libwrap=z", "--",
                    zlib.path / "main", tmp_path / "measured.gz"],
                   installed_prefix, tmp_path, tmp_path / "e1",
                   {"SCOREP_FILTERING_FILE": str(filt), "SCOREP_LIBWRAP_PATH": str(zlib.libwrap_prefix)})
    assert measured.returncode == 0, measured.stderr
    assert measured.stdout == plain.stdout
    got = visits(tmp_path / "e1")
    assert got.get("crc32", 0) == 0 and got["compress"] == 3
    unpacked = subprocess.run(["gzip", "-dc", str(tmp_path / "measured.gz")], capture_output=True, text=True)
    assert unpacked.stdout.splitlines()[0] == "line 0 of the example"


def test_nested_library_calls_are_one_region_unless_asked(zlib, installed_prefix, tmp_path):
    """compress calls deflate inside libz: through the run-time wrapper that
    call is seen, and recorded only with SCOREP_LIBWRAP_NESTED=true."""
    argv = [installed_prefix / "bin" / "scorep-exec", "--libwrap=z", "--", zlib.path / "main",
            tmp_path / "x.gz"]
    path = {"SCOREP_LIBWRAP_PATH": str(zlib.libwrap_prefix)}
    default = run(argv, installed_prefix, tmp_path, tmp_path / "flat", path)
    nested = run(argv, installed_prefix, tmp_path, tmp_path / "nested", dict(path, SCOREP_LIBWRAP_NESTED="true"))
    assert default.returncode == 0 and nested.returncode == 0, default.stderr + nested.stderr
    flat, deep = visits(tmp_path / "flat"), visits(tmp_path / "nested")
    assert flat.get("deflate", 0) == 0
    assert flat["compress"] == deep["compress"] == 3
    # Debian's libz calls compress2 and deflate through its PLT, so the
    # preloaded wrappers see those inner calls
    assert deep.get("compress2", 0) == 3 and deep.get("deflate", 0) >= 3


def test_library_and_mpi_adapter_together_on_threads(zlib, installed_prefix, tmp_path):
    """mpirun -n 2 scorep-exec --mpi --libwrap=z: one experiment with both
    ranks, each thread's crc32 calls counted exactly, MPI calls too."""
    from conftest import mpi_env, mpirun
    exe = tmp_path / "mpi_threads"
    build = subprocess.run(["mpicc", str(EXAMPLES / "zlib_mpi_threads.c"), "-o", str(exe), "-lz",
                            "-pthread"], capture_output=True, text=True, env=mpi_env())
    assert build.returncode == 0, build.stderr
    plain = mpirun(2, [exe], env={"PATH": tool_env(installed_prefix)["PATH"]})
    env = tool_env(installed_prefix, {"SCOREP_LIBWRAP_PATH": str(zlib.libwrap_prefix),
                                      "SCOREP_EXPERIMENT_DIRECTORY": str(tmp_path / "exp")})
    measured = mpirun(2, [installed_prefix / "bin" / "scorep-exec", "--mpi", "--libwrap=z", "--", exe],
                      env=env)
    assert measured.stdout == plain.stdout
    import json
    profile = json.loads((tmp_path / "exp" / "profile.json").read_text())
    assert profile["experiment"]["ranks"] == 2
    got = visits(tmp_path / "exp")
    assert got["crc32"] == 2 * 4 * 1000          # ranks x threads x calls
    assert got["MPI_Allreduce"] == 2
    names = {r["id"]: r["name"] for r in profile["regions"]}
    region_of = {c["id"]: c["region"] for c in profile["callpaths"]}
    threads_with_crc = {row["location"] for row in profile["rows"]
                        if names[region_of[row["callpath"]]] == "crc32"}
    assert len(threads_with_crc) == 2 * 4


def test_libwrap_summary_lists_the_installed_wrapper(zlib, installed_prefix):
    env = tool_env(installed_prefix, {"SCOREP_LIBWRAP_PATH": str(zlib.libwrap_prefix)})
    out = subprocess.run([str(installed_prefix / "bin" / "scorep-info"), "libwrap-summary"], env=env,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    line = next(line for line in out.stdout.splitlines() if line.split()[:1] == ["z"])
    assert str(len(zlib.wrapped())) in line.split() and "linktime" in line and "runtime" in line


def test_scorep_exec_takes_the_runtime_mode_named_and_refuses_link_time(zlib, installed_prefix, tmp_path):
    path = {"SCOREP_LIBWRAP_PATH": str(zlib.libwrap_prefix)}
    exec_ = installed_prefix / "bin" / "scorep-exec"
    named = run([exec_, "--libwrap=runtime:z", "--", zlib.path / "main", tmp_path / "a.gz"], installed_prefix,
                tmp_path, tmp_path / "e", path)
    assert named.returncode == 0, named.stderr
    assert visits(tmp_path / "e")["compress"] == EXPECTED_CALLS["compress"]
    refused = run([exec_, "--libwrap=linktime:z", "--", zlib.path / "main", tmp_path / "b.gz"], installed_prefix,
                  tmp_path, tmp_path / "f", path)
    assert refused.returncode != 0 and "link-time" in refused.stderr and not (tmp_path / "b.gz").exists()
