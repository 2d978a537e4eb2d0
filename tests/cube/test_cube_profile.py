"""profile.cubex (runtime/profile/profile_cube.c): the profile in CUBE4, read back
with the independent reader (tests/cube_reader.py) and compared with
profile.json metric by metric (tests/cube_consistency.py, which conftest.mpirun
also applies to every MPI run of the suite)."""
import json
import socket
import struct
import subprocess
import sys
import tarfile

import pytest

from conftest import MPI_COMPILERS, REPO, mpi_build, mpirun
import cube_consistency
import cube_reader

sys.path.insert(0, str(REPO / "tests" / "runtime"))
sys.path.insert(0, str(REPO / "tests" / "trace"))
from runtime_programs import run  # noqa: E402
from trace_programs import build_program  # noqa: E402

RANKS = 4  # mpi_events needs two ranks of each parity


@pytest.fixture(scope="module")
def mpi_events(tmp_path_factory):
    """tests/trace/mpi_events.c (user regions, int and string parameters,
    point-to-point, collectives, RMA) built against the Open MPI build."""
    work = tmp_path_factory.mktemp("cube-mpi-events")
    return build_program(mpi_build("openmpi"), "mpi_events.c", work / "mpi_events", MPI_COMPILERS["openmpi"]["c"],
                         ["scorep_mpi_layer", "scorep_measurement"])


def run_events(program, experiment, **env):
    environment = {"SCOREP_EXPERIMENT_DIRECTORY": str(experiment), "SCOREP_ENABLE_PROFILING": "true",
                   "SCOREP_ENABLE_TRACING": "false"}
    environment.update(env)
    forwarded = [a for key in environment for a in ("-x", key)]
    return mpirun(RANKS, [program, 4], env=environment, cwd=program.parent, launcher_args=forwarded)


@pytest.fixture(scope="module")
def events_experiment(mpi_events, tmp_path_factory):
    experiment = tmp_path_factory.mktemp("cube-run") / "exp"
    run_events(mpi_events, experiment)
    return experiment


def test_cube_profile_of_an_mpi_run_agrees_with_profile_json_on_every_metric(events_experiment):
    assert cube_consistency.compare(events_experiment / "profile.cubex", events_experiment / "profile.json",
                                    host=socket.gethostname()) == []
    cube = cube_reader.read(events_experiment / "profile.cubex")
    profile = json.loads((events_experiment / "profile.json").read_text())
    # the numbers are there, not only agreeing zeros
    sent = sum(cube.values("bytes_sent").values())
    assert sent == sum(row["bytes_sent"] for row in profile["rows"]) > 0
    assert sum(cube.values("visits").values()) == sum(row["visits"] for row in profile["rows"])
    assert len(cube.values("time")) == len([r for r in profile["rows"] if r["time_incl_ns"]])


def test_cube_profile_has_scorep_metric_names_and_system_tree(events_experiment):
    cube = cube_reader.read(events_experiment / "profile.cubex")
    names = [m["uniq_name"] for m in cube.metrics]
    assert names[:10] == ["visits", "time", "min_time", "max_time", "bytes_sent", "bytes_received",
                          "bytes_put", "bytes_get", "io_bytes_read", "io_bytes_written"]
    assert cube.attrs["CUBE_CT_AGGR"] == "SUM"
    processes = sorted({(l["process"]["rank"], l["process"]["name"]) for l in cube.locations.values()})
    assert processes == [(r, f"MPI Rank {r}") for r in range(RANKS)]
    assert {l["node"] for l in cube.locations.values()} == {f"node {socket.gethostname()}"}
    assert {l["machine"] for l in cube.locations.values()} == {"machine Linux"}
    assert {tuple(c for c, _ in l["tree"]) for l in cube.locations.values()} == {("machine", "node")}


def test_cube_profile_writes_parameters_as_cnode_parameters(events_experiment):
    cube = cube_reader.read(events_experiment / "profile.cubex")
    params = {p for c in cube.cnodes.values() for p in c["parameters"]}
    assert ("numeric", "iteration", "0") in params
    assert ("string", "phase", "rma") in params
    # a parameter node calls its parent's region
    for c in cube.cnodes.values():
        if c["parameters"]:
            assert c["callee"] == cube.cnodes[c["parent"]]["callee"]


def test_profiling_format_none_keeps_only_our_formats(mpi_events, tmp_path):
    run_events(mpi_events, tmp_path / "none", SCOREP_PROFILING_FORMAT="none")
    assert (tmp_path / "none" / "profile.json").is_file()
    assert not list((tmp_path / "none").glob("*.cubex*"))
    assert "SCOREP_PROFILING_FORMAT=none" in (tmp_path / "none" / "scorep.cfg").read_text()


def test_profiling_format_takes_scorep_values_and_names_a_wrong_one(mpi_events, tmp_path):
    proc = run_events(mpi_events, tmp_path / "tuple", SCOREP_PROFILING_FORMAT="cube_tuple")
    assert "SCOREP_PROFILING_FORMAT" not in proc.stderr
    assert (tmp_path / "tuple" / "profile.cubex").is_file()
    proc = run_events(mpi_events, tmp_path / "typo", SCOREP_PROFILING_FORMAT="cubex4")
    assert "SCOREP_PROFILING_FORMAT: invalid value 'cubex4'" in proc.stderr
    assert (tmp_path / "typo" / "profile.cubex").is_file()
    proc = run_events(mpi_events, tmp_path / "tau", SCOREP_PROFILING_FORMAT="tau_snapshot")
    assert "'tau_snapshot' is not written" in proc.stderr
    assert not (tmp_path / "tau" / "profile.cubex").exists()


def test_cube_profile_of_a_serial_run_has_user_metrics_and_exact_times(build_dir, tmp_path):
    # test_profile_exact: an injected clock, parameters and a user metric "flops"
    run(build_dir, "test_profile_exact", env={"SCOREP_EXPERIMENT_DIRECTORY": str(tmp_path / "e")})
    assert cube_consistency.check_experiment(tmp_path / "e") == []
    cube = cube_reader.read(tmp_path / "e" / "profile.cubex")
    flops = cube.metric("flops")
    assert (flops["dtype"], flops["uom"]) == ("INT64", "ops")
    profile = json.loads((tmp_path / "e" / "profile.json").read_text())
    assert sum(cube.values("flops").values()) == sum(r.get("metrics", {}).get("0", 0) for r in profile["rows"]) > 0


def test_aborted_run_gives_each_rank_a_readable_cube_of_its_part(tmp_path):
    """Every rank calls MPI_Abort (tests/faults/fault_program.c): each writes
    profile.rank<R>.cubex beside profile.rank<R>.json, whole (no .part)."""
    build = mpi_build("openmpi")
    program = tmp_path / "fault_program"
    subprocess.run([sys.executable, str(build / "runtime" / "mpi_adapter" / "scorep"), "mpicc", "-O1",
                    str(REPO / "tests" / "faults" / "fault_program.c"), "-o", str(program)],
                   check=True, capture_output=True, text=True)
    (tmp_path / "out").mkdir()
    experiment = tmp_path / "exp"
    env = {"SCOREP_EXPERIMENT_DIRECTORY": str(experiment)}
    proc = mpirun(2, [program, tmp_path / "out", "0", "abort", "2"], env=env, cwd=tmp_path, check=False,
                  launcher_args=["-x", "SCOREP_EXPERIMENT_DIRECTORY"])
    assert proc.returncode != 0
    parts = sorted(experiment.glob("profile.rank*.cubex"))
    assert parts, f"no profile.rank<R>.cubex in {sorted(p.name for p in experiment.iterdir())}"
    for part in parts:
        cube = cube_reader.read(part)
        assert cube.attrs["scorep-wrapgen::partial"] == "true"
        assert {l["process"]["name"] for l in cube.locations.values()} == {f"MPI Rank {part.name[12:-6]}"}
    assert cube_consistency.check_experiment(experiment) == []


def test_reader_rejects_a_cube_file_with_a_short_data_member(events_experiment, tmp_path):
    """The reader checks the format (else agreeing would prove little): a
    data member one value short is an error naming it."""
    broken = tmp_path / "broken.cubex"
    with tarfile.open(events_experiment / "profile.cubex") as src, tarfile.open(broken, "w") as dst:
        for info in src.getmembers():
            data = src.extractfile(info).read()
            if info.name == "1.data":
                data = data[:-8]
            info.size = len(data)
            import io
            dst.addfile(info, io.BytesIO(data))
    cube = cube_reader.read(broken)
    cube.values("visits")
    with pytest.raises(cube_reader.CubeFormatError, match="1.data"):
        cube.values("time")
    index = tarfile.open(events_experiment / "profile.cubex").extractfile("0.index").read()
    assert index[:11] == b"CUBEX.INDEX" and struct.unpack("=i", index[11:15])[0] == 1


def score_lines(build_dir, target):
    """scorep-score -r's region lines as {(type, region): (visits, time[s])}."""
    proc = subprocess.run([sys.executable, str(build_dir / "runtime" / "scorep-score"), "-r", str(target)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    lines = {}
    for line in proc.stdout.splitlines():
        fields = line.split()
        if len(fields) >= 8 and fields[0] in ("ALL", "MPI", "COM", "USR", "LIB", "CAF", "SCOREP"):
            lines[(fields[0], " ".join(fields[7:]))] = (fields[3], fields[4])
    return lines


def test_scorep_score_reads_profile_cubex_as_it_reads_profile_json(build_dir, events_experiment):
    from_json = score_lines(build_dir, events_experiment / "profile.json")
    from_cube = score_lines(build_dir, events_experiment / "profile.cubex")
    assert len(from_json) > 5
    assert from_cube == from_json


def test_scorep_score_names_a_file_that_is_not_cube4(build_dir, tmp_path):
    bad = tmp_path / "profile.cubex"
    bad.write_bytes(b"not a tar")
    proc = subprocess.run([sys.executable, str(build_dir / "runtime" / "scorep-score"), str(bad)],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert f"{bad}: cannot read it as a CUBE4 file" in proc.stderr


def test_scorep_info_summarises_a_cube_file(events_experiment):
    proc = subprocess.run([sys.executable, str(REPO / "tools" / "scorep-info"), "cube-summary", "--top", "3",
                           str(events_experiment)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    profile = json.loads((events_experiment / "profile.json").read_text())
    out = proc.stdout
    for name in ("visits", "time", "min_time", "max_time", "bytes_sent", "bytes_received"):
        assert f"\n  {name} " in out
    visits = sum(r["visits"] for r in profile["rows"])
    assert f"visits               occ    UINT64     exclusive  total {visits:,}\n" in out
    assert (f"call paths: {len(profile['callpaths'])}  regions: {len(profile['regions'])}  locations: "
            f"{len(profile['locations'])} ({RANKS} processes on 1 node(s))") in out
    top = out.split("call path\n", 1)[1].strip().splitlines()
    assert len(top) == 3
    # the first is the call path with the most exclusive time in profile.json
    per_cp = {}
    for r in profile["rows"]:
        per_cp[r["callpath"]] = per_cp.get(r["callpath"], 0) + r["time_excl_ns"]
    best = max(per_cp, key=per_cp.get)
    assert top[0].split()[0] == f"{per_cp[best] / 1e9:.6f}"


def scorep_style_cube(path):
    """A small CUBE file laid out as Score-P 9 writes one (system tree ids as
    Id, a measurement root region, metrics it has and we do not write):
    root "app" -> "main" -> "MPI_Send" on 2 ranks on 2 nodes, values known."""
    anchor = """<?xml version="1.0" encoding="UTF-8"?>
<cube version="4.4">
<attr key="Creator" value="Score-P 9.0"/>
<attr key="CUBE_CT_AGGR" value="SUM"/>
<metrics>
<metric id="0" type="EXCLUSIVE"><disp_name>Visits</disp_name><uniq_name>visits</uniq_name><dtype>UINT64</dtype><uom>occ</uom><url></url><descr>Number of visits</descr></metric>
<metric id="1" type="INCLUSIVE"><disp_name>Time</disp_name><uniq_name>time</uniq_name><dtype>DOUBLE</dtype><uom>sec</uom><url></url><descr>Total CPU allocation time</descr></metric>
<metric id="2" type="EXCLUSIVE"><disp_name>bytes_put</disp_name><uniq_name>bytes_put</uniq_name><dtype>UINT64</dtype><uom>bytes</uom><url></url><descr>Bytes sent in one-sided communication</descr></metric>
<metric id="3" type="EXCLUSIVE"><disp_name>bytes_sent</disp_name><uniq_name>bytes_sent</uniq_name><dtype>UINT64</dtype><uom>bytes</uom><url></url><descr>Bytes sent</descr></metric>
</metrics>
<program>
<region id="0" mod="" begin="-1" end="-1"><name>app</name><mangled_name>app</mangled_name><paradigm>measurement</paradigm><role>artificial</role><url></url><descr></descr></region>
<region id="1" mod="app.c" begin="10" end="-1"><name>main</name><mangled_name>main</mangled_name><paradigm>compiler</paradigm><role>function</role><url></url><descr></descr></region>
<region id="2" mod="MPI" begin="-1" end="-1"><name>MPI_Send</name><mangled_name>MPI_Send</mangled_name><paradigm>mpi</paradigm><role>point2point</role><url></url><descr></descr></region>
<cnode id="0" calleeId="0"><cnode id="1" calleeId="1"><cnode id="2" calleeId="2"></cnode></cnode></cnode>
</program>
<system>
<systemtreenode Id="0"><name>machine Linux</name><class>machine</class>
<systemtreenode Id="1"><name>node a</name><class>node</class>
<locationgroup Id="0"><name>MPI Rank 0</name><rank>0</rank><type>process</type>
<location Id="0"><name>Master thread</name><rank>0</rank><type>thread</type></location></locationgroup></systemtreenode>
<systemtreenode Id="2"><name>node b</name><class>node</class>
<locationgroup Id="1"><name>MPI Rank 1</name><rank>1</rank><type>process</type>
<location Id="1"><name>Master thread</name><rank>0</rank><type>thread</type></location></locationgroup></systemtreenode>
</systemtreenode>
</system>
</cube>
""".encode()

    def index(cnodes):
        return b"CUBEX.INDEX" + struct.pack("<iHBI", 1, 0, 1, len(cnodes)) + struct.pack(f"<{len(cnodes)}I", *cnodes)

    members = {
        "0.index": index([0, 1, 2]), "0.data": b"CUBEX.DATA" + struct.pack("<6Q", 1, 1, 1, 1, 10, 30),
        # inclusive: app 2.0/3.0 s, main 1.5/2.5 s, MPI_Send 0.5/1.0 s
        "1.index": index([0, 1, 2]), "1.data": b"CUBEX.DATA" + struct.pack("<6d", 2.0, 3.0, 1.5, 2.5, 0.5, 1.0),
        "3.index": index([2]), "3.data": b"CUBEX.DATA" + struct.pack("<2Q", 800, 2400),
        "anchor.xml": anchor,
    }
    import io
    with tarfile.open(path, "w") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_tools_read_a_cube_file_laid_out_as_scorep_writes_it(build_dir, tmp_path):
    cube = scorep_style_cube(tmp_path / "profile.cubex")
    info = subprocess.run([sys.executable, str(REPO / "tools" / "scorep-info"), "cube-summary", str(cube)],
                          capture_output=True, text=True)
    assert info.returncode == 0, info.stderr
    assert "written by Score-P 9.0" in info.stdout
    assert "visits               occ    UINT64     exclusive  total 44\n" in info.stdout
    assert "time                 sec    DOUBLE     inclusive  total 5\n" in info.stdout
    assert "call paths: 3  regions: 3  locations: 2 (2 processes on 2 node(s))" in info.stdout
    top = info.stdout.split("call path\n", 1)[1].splitlines()
    # exclusive: app 0.5+0.5, main 1.0+1.5, MPI_Send 0.5+1.0
    assert top[0].split() == ["2.500000", "50.0", "2", "app/main"]
    assert top[1].split() == ["1.500000", "30.0", "40", "app/main/MPI_Send"]
    lines = score_lines(build_dir, cube)
    assert lines[("MPI", "MPI_Send")] == ("40", "1.500")
    assert lines[("COM", "main")] == ("2", "2.500")
