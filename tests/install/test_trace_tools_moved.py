"""scorep-check and scorep-trace-export of an installation moved to another
directory read traces with the OTF2 reading installed with them
(share/scorep-wrapgen/tools/otf2_trace.py), found relative to themselves."""
import json
import subprocess

import pytest

from test_install_prefix import clean_env, moved  # noqa: F401 (moved: the fixture)

otf2 = pytest.importorskip("otf2")


def write_trace(directory):
    """One rank entering and leaving main."""
    with otf2.writer.open(str(directory), archive_name="traces", timer_resolution=1_000_000_000) as trace:
        defs = trace.definitions
        rank = defs.location_group("MPI Rank 0", system_tree_parent=defs.system_tree_node("machine"))
        writer = trace.event_writer_from_location(defs.location("Master thread", group=rank))
        main = defs.region("main")
        writer.enter(1000, main)
        writer.leave(2000, main)
    return directory


def run(command):
    return subprocess.run([str(part) for part in command], capture_output=True, text=True, timeout=120,
                          env=clean_env())


def test_moved_scorep_check_checks_a_trace(moved, tmp_path):  # noqa: F811
    prefix, _ = moved
    experiment = write_trace(tmp_path / "exp")
    proc = run([prefix / "bin" / "scorep-check", experiment])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"{experiment}: consistent (1 locations, 2 events" in proc.stdout


def test_moved_scorep_trace_export_exports_a_trace(moved, tmp_path):  # noqa: F811
    prefix, _ = moved
    experiment = write_trace(tmp_path / "exp")
    out = tmp_path / "trace.json"
    proc = run([prefix / "bin" / "scorep-trace-export", experiment, "-o", out])
    assert proc.returncode == 0, proc.stderr
    slices = [(e["ph"], e["name"]) for e in json.loads(out.read_text())["traceEvents"] if e["ph"] in ("B", "E")]
    assert slices == [("B", "main"), ("E", "main")]
