"""The derived metrics of profile.cubex: CubeLib's cube_remap2, given no
specification, finds the one our file carries (runtime/profile/cube_remapping.spec,
the member remapping.spec) and derives Score-P's metric hierarchy from it;
CubeLib's cube_dump computes every derived metric per call path.

Oracles: the programs' own arithmetic (tests/cube/programs/remap_mpi.c prints
the bytes and file operations it made, summed over its ranks) for counts and
bytes, exactly; and, for the time categories, which call paths each one takes
by what the call is (the MPI standard's and POSIX's meaning of the call, the
table CATEGORIES below), with the categories of one kind partitioning the time
of their parent: no call counted twice, none left out.

The tools are CubeLib's, built from the public Score-P release (make
cube-tools), never this project's reader: see cube_tool()."""
import csv
import io
import pathlib
import re
import subprocess
import sys
import tarfile

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "mpi"))

import cube_tools  # noqa: E402
from conftest import MPI_COMPILERS, run_program, scorep  # noqa: E402
from measure import run_measured  # noqa: E402

PROGRAMS = HERE / "programs"
RANKS = 4
ROUNDS = 5


def cube_tool(name):
    """CubeLib's command-line tool name, run through tests/cube_tools.py (from
    $SCOREP_WRAPGEN_CUBE_TOOLS or the build's cube-tools/bin, make cube-tools);
    the test is skipped, saying so, when there is none."""
    directory = cube_tools.bin_dir()
    if directory is None or not (directory / name).is_file():
        pytest.skip(f"{cube_tools.MISSING} (needs {name})")
    return name


def tool(name, *args):
    return cube_tools.run(cube_tool(name), *args)


def remap(cubex, out):
    """cube_remap2 without -r: the specification must come from the file."""
    proc = tool("cube_remap2", "-o", out, cubex)
    assert proc.returncode == 0, f"cube_remap2 failed on {cubex}:\n{proc.stdout}\n{proc.stderr}"
    assert "Found remapping specification file inside of cube" in proc.stdout, proc.stdout
    assert out.is_file(), proc.stdout
    return proc


def per_region(cubex, metric):
    """{region name: value of metric} by cube_dump's flat profile: the
    metric's own value (inclusive along the metric tree) in the region's call
    paths alone (exclusive along the call tree), summed over all locations."""
    proc = tool("cube_dump", "-m", metric, "-x", "incl", "-z", "excl", "-t", "aggr", "-r", "-s", "csv2", cubex)
    assert proc.returncode == 0, f"cube_dump -m {metric} failed on {cubex}:\n{proc.stdout}\n{proc.stderr}"
    rows = list(csv.reader(io.StringIO(proc.stdout)))
    assert rows and rows[0][:2] == ["Region ID", metric], f"cube_dump -m {metric}: {proc.stdout[:300]}"
    names = region_names(cubex)
    values = {}
    for row in rows[1:]:
        if row:
            name = names[int(row[0])]
            values[name] = values.get(name, 0) + float(row[1])
    return values


_names = {}


def region_names(cubex):
    """{region id: name}, from cube_dump -w calltree's list of regions (the
    regions as CubeLib reads them): lines "<TAB>name:mangled name<TAB> ( id=N, ...)"."""
    key = str(cubex)
    if key not in _names:
        proc = tool("cube_dump", "-w", "calltree", cubex)
        assert proc.returncode == 0, proc.stderr
        names = {}
        for line in proc.stdout.splitlines():
            found = re.match(r"\t(.*)\t\s*\( id=(\d+),", line)
            if found:
                both = found.group(1)
                half = len(both) // 2
                names[int(found.group(2))] = both[:half] if both[half:half + 1] == ":" else both.split(":")[0]
        _names[key] = names
    return _names[key]


# MPI: every region of remap_mpi.c and the one time category (the leaves of
# Score-P's MPI hierarchy) its calls belong to, by what the call does
CATEGORIES = {
    "MPI_Init": "mpi_init_exit", "MPI_Finalize": "mpi_init_exit",
    "MPI_Comm_rank": "mpi_mgmt_comm", "MPI_Comm_size": "mpi_mgmt_comm",
    "MPI_Send": "mpi_point2point", "MPI_Recv": "mpi_point2point", "MPI_Isend": "mpi_point2point",
    "MPI_Irecv": "mpi_point2point",
    "MPI_Wait": "mpi_request_completion", "MPI_Waitall": "mpi_request_completion",
    "MPI_Test": "mpi_request_completion",
    "MPI_Allreduce": "mpi_collective", "MPI_Bcast": "mpi_collective", "MPI_Reduce": "mpi_collective",
    "MPI_Barrier": "mpi_sync_collective",
    "MPI_File_open": "mpi_mgmt_file", "MPI_File_close": "mpi_mgmt_file", "MPI_File_set_view": "mpi_mgmt_file",
    "MPI_File_get_size": "mpi_mgmt_file", "MPI_File_seek": "mpi_mgmt_file",
    "MPI_File_write_at": "mpi_io_individual", "MPI_File_read_at": "mpi_io_individual",
    "MPI_File_write_at_all": "mpi_io_collective", "MPI_File_read_at_all": "mpi_io_collective",
}
MPI_LEAVES = ("mpi_init_exit", "mpi_mgmt_comm", "mpi_mgmt_file", "mpi_mgmt_win", "mpi_sync_collective",
              "mpi_rma_sync_active", "mpi_rma_sync_passive", "mpi_point2point", "mpi_collective",
              "mpi_rma_communication", "mpi_io_individual", "mpi_io_collective", "mpi_request_start",
              "mpi_request_completion")
# the derived counts and bytes remap_mpi.c prints (DID name value) and the
# metric each is; the file size is the program's, not a metric
MPI_COUNTED = ("bytes_sent_p2p", "bytes_received_p2p", "bytes_sent_other", "bytes_received_other",
               "mpi_file_iops", "mpi_file_irops", "mpi_file_iwops", "mpi_file_cops", "mpi_file_crops",
               "mpi_file_cwops")


@pytest.fixture(scope="module")
def mpi_remapped(build_dir, tmp_path_factory):
    cube_tool("cube_remap2"), cube_tool("cube_dump")
    workdir = tmp_path_factory.mktemp("remap_mpi")
    program = workdir / "remap_mpi"
    subprocess.run(scorep(build_dir) + [MPI_COMPILERS["openmpi"]["c"], "-O1", str(PROGRAMS / "remap_mpi.c"), "-o",
                                        str(program)], check=True, capture_output=True, text=True)
    proc, experiment = run_measured("openmpi", RANKS, program, workdir, args=(ROUNDS, workdir / "file.dat"),
                                    env={"SCOREP_ENABLE_TRACING": "false"})
    did = {}
    for line in proc.stdout.splitlines():
        if line.startswith("DID "):
            _, name, value = line.split()
            did[name] = int(value)
    out = workdir / "remapped.cubex"
    remapped = remap(experiment / "profile.cubex", out)
    return {"did": did, "cubex": out, "log": remapped.stdout}


def test_cube_remap2_takes_the_specification_from_our_file(mpi_remapped):
    log = mpi_remapped["log"]
    assert "Found remapping specification file inside of cube. Use it." in log
    # every metric of the hierarchy is there, and the stored ones kept
    proc = tool("cube_dump", "-w", "metrics", mpi_remapped["cubex"])
    assert proc.returncode == 0, proc.stderr
    for name in ("time", "execution", "comp", "mpi", *MPI_LEAVES, "bytes", "bytes_p2p", "bytes_coll",
                 "bytes_rma", "bytes_other", "bytes_put", "bytes_get", "mpi_file_ops", "visits", "min_time",
                 "max_time", "io_bytes_read", "io_bytes_written"):
        # "Display name  ( id=N, unique name, unit, ..."
        assert re.search(rf"\( id=\d+, {name}, ", proc.stdout), name


def test_derived_counts_and_bytes_are_the_programs_own(mpi_remapped):
    did = mpi_remapped["did"]
    # the program's own totals: 4 ranks, 5 rounds of 100 ints blocking and
    # non-blocking, one block of 64 doubles per rank and file call
    assert did["bytes_sent_p2p"] == RANKS * ROUNDS * (400 + 400 + 200 + 400)
    derived = {name: sum(per_region(mpi_remapped["cubex"], name).values()) for name in MPI_COUNTED}
    assert derived == {name: did[name] for name in MPI_COUNTED}
    # the sums above them
    total = {name: sum(per_region(mpi_remapped["cubex"], name).values())
             for name in ("bytes_p2p", "bytes_other", "bytes_rma", "bytes_put", "bytes_get", "mpi_file_ops")}
    assert total["bytes_p2p"] == did["bytes_sent_p2p"] + did["bytes_received_p2p"]
    assert total["bytes_other"] == did["bytes_sent_other"] + did["bytes_received_other"]
    assert (total["bytes_rma"], total["bytes_put"], total["bytes_get"]) == (0, 0, 0)
    assert total["mpi_file_ops"] == did["mpi_file_iops"] + did["mpi_file_cops"]
    # the stored I/O bytes are kept: two reads and two writes of 64 doubles per rank
    stored = {name: sum(per_region(mpi_remapped["cubex"], name).values())
              for name in ("io_bytes_read", "io_bytes_written")}
    assert stored == {"io_bytes_read": RANKS * 2 * 64 * 8, "io_bytes_written": RANKS * 2 * 64 * 8}


def test_each_mpi_call_is_in_its_one_category_and_mpi_time_is_their_sum(mpi_remapped):
    cubex = mpi_remapped["cubex"]
    mpi = per_region(cubex, "mpi")
    assert set(mpi) >= set(CATEGORIES)
    assert all(mpi[name] > 0 for name in CATEGORIES), mpi
    leaves = {leaf: per_region(cubex, leaf) for leaf in MPI_LEAVES}
    for name, time in mpi.items():
        if name not in CATEGORIES:
            assert time == 0, f"{name} is not an MPI call of the program but has MPI time {time}"
            continue
        taken = {leaf: values.get(name, 0) for leaf, values in leaves.items() if values.get(name, 0)}
        assert list(taken) == [CATEGORIES[name]], f"{name}: {taken}"
        assert taken[CATEGORIES[name]] == pytest.approx(time, rel=1e-9)
    # computation is the rest of the execution time
    comp, execution = per_region(cubex, "comp"), per_region(cubex, "execution")
    assert comp["main"] == pytest.approx(execution["main"], rel=1e-9) and comp["main"] > 0
    assert all(comp.get(name, 0) == pytest.approx(0, abs=1e-12) for name in CATEGORIES)


# POSIX and ISO C I/O: remap_io.c's calls, metadata or data transfer
IO_META = {"open", "close", "lseek", "fopen", "fclose", "fseek"}
IO_READ = {"read", "fread"}
IO_WRITE = {"write", "fwrite"}


@pytest.fixture(scope="module")
def io_remapped(build_dir, tmp_path_factory):
    cube_tool("cube_remap2"), cube_tool("cube_dump")
    workdir = tmp_path_factory.mktemp("remap_io")
    program = workdir / "remap_io"
    subprocess.run(scorep(build_dir) + ["--io=posix,isoc", "gcc", "-O2", str(PROGRAMS / "remap_io.c"), "-o",
                                        str(program)], check=True, capture_output=True, text=True)
    experiment = workdir / "experiment"
    proc = run_program([program, workdir], experiment)
    assert proc.returncode == 0, proc.stderr
    out = workdir / "remapped.cubex"
    remap(experiment / "profile.cubex", out)
    return out


def test_io_time_splits_into_metadata_reading_and_writing_by_the_call(io_remapped):
    io_time = per_region(io_remapped, "io_time")
    parts = {kind: per_region(io_remapped, metric) for kind, metric in
             (("meta", "io_meta_time"), ("read", "io_reading_time"), ("write", "io_writing_time"))}
    assert {name for name, t in io_time.items() if t > 0} == IO_META | IO_READ | IO_WRITE
    for kind, names in (("meta", IO_META), ("read", IO_READ), ("write", IO_WRITE)):
        assert {name for name, t in parts[kind].items() if t > 0} == names, kind
        for name in names:
            assert parts[kind][name] == pytest.approx(io_time[name], rel=1e-9), name


# POSIX threads: remap_pthread.c's calls and their category
PTHREAD_CATEGORIES = {"pthread_create": "pthread_management", "pthread_join": "pthread_management",
                      "pthread_mutex_lock": "pthread_lock_api", "pthread_mutex_unlock": "pthread_lock_api",
                      "pthread_cond_wait": "pthread_conditional", "pthread_cond_signal": "pthread_conditional"}


def test_pthread_time_splits_into_management_mutexes_and_conditions(build_dir, tmp_path):
    cube_tool("cube_remap2"), cube_tool("cube_dump")
    program = tmp_path / "remap_pthread"
    subprocess.run(scorep(build_dir) + ["--thread=pthread", "gcc", "-O1", str(PROGRAMS / "remap_pthread.c"), "-o",
                                        str(program)], check=True, capture_output=True, text=True)
    experiment = tmp_path / "experiment"
    proc = run_program([program], experiment)
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "remapped.cubex"
    remap(experiment / "profile.cubex", out)
    pthread = per_region(out, "pthread_time")
    parts = {leaf: per_region(out, leaf) for leaf in ("pthread_management", "pthread_lock_api",
                                                      "pthread_conditional")}
    seen = {name for name, t in pthread.items() if t > 0}
    assert seen <= set(PTHREAD_CATEGORIES) and {"pthread_create", "pthread_join", "pthread_mutex_lock"} <= seen
    for name in seen:
        taken = {leaf: values.get(name, 0) for leaf, values in parts.items() if values.get(name, 0)}
        assert list(taken) == [PTHREAD_CATEGORIES[name]], f"{name}: {taken}"
        assert taken[PTHREAD_CATEGORIES[name]] == pytest.approx(pthread[name], rel=1e-9)
    # pthread time is not computation
    comp = per_region(out, "comp")
    assert all(comp.get(name, 0) == pytest.approx(0, abs=1e-12) for name in seen)


def test_cube_tools_read_every_member_after_one_of_whole_tar_blocks(build_dir, tmp_path):
    """A member whose size is a whole number of 512-byte blocks (here
    anchor.xml, brought to such a size by the length of the program's source
    file name and of its argument) must not hide the members after it from
    CubeLib: cube_remap2 still finds the remapping specification, cube_stat
    the values, Python's tarfile every member."""
    def anchor_size(program, argument):
        experiment = tmp_path / f"exp-{program.parent.name}-{len(argument)}"
        proc = run_program([program, argument], experiment=experiment)
        assert proc.returncode == 0 and proc.stdout == "2\n", proc.stderr
        with tarfile.open(experiment / "profile.cubex") as tar:
            return experiment / "profile.cubex", tar.getmember("anchor.xml").size

    found = None
    # the source's path is in anchor.xml once, the program's command line twice
    for place_name, source_name in (("a", "tiny.c"), ("b", "tinyy.c")):
        place = tmp_path / place_name
        place.mkdir()
        (place / source_name).write_text("#include <stdio.h>\nint main(int argc, char** argv) { (void)argv; "
                                         "printf(\"%d\\n\", argc); return 0; }\n")
        program = place / "tiny"
        built = subprocess.run(scorep(build_dir) + ["gcc", source_name, "-o", "tiny"], cwd=place,
                               capture_output=True, text=True)
        assert built.returncode == 0, built.stderr
        _, first = anchor_size(program, "x")
        _, second = anchor_size(program, "xx")
        per_char, missing = second - first, (-first) % 512
        if per_char > 0 and missing % per_char == 0:
            found = anchor_size(program, "x" * (1 + missing // per_char))
            break
    assert found, "no argument length makes anchor.xml a whole number of blocks"
    cubex, size = found
    assert size % 512 == 0, f"anchor.xml is {size} bytes"
    with tarfile.open(cubex) as tar:
        assert {"anchor.xml", "remapping.spec", "0.index", "0.data"} <= set(tar.getnames())
    remap(cubex, tmp_path / "remapped.cubex")
    proc = tool("cube_stat", "-m", "visits", cubex)
    assert proc.returncode == 0 and "main,1" in proc.stdout.splitlines(), proc.stdout + proc.stderr
