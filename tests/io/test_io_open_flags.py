"""How a file was opened reaches the trace: each IoCreateHandle record
carries open's flags and fopen's mode as OTF2's creation flags (O_CREAT,
O_TRUNC, O_EXCL: CREATE, TRUNCATE, EXCLUSIVE) and status flags (O_APPEND,
O_CLOEXEC, O_NONBLOCK, O_SYNC), as otf2-print (OTF2's own reader) prints
them. The expectations are POSIX's and glibc's meaning of the flags and
modes (open(2), creat(2): O_CREAT|O_WRONLY|O_TRUNC, fopen(3): "w" creates
and truncates, "a" creates and appends, "x" excludes, "e" closes on exec)."""
import pathlib
import re
import subprocess

import pytest

from conftest import run_program, scorep

HERE = pathlib.Path(__file__).resolve().parent
CREATE = re.compile(r'^IO_CREATE_HANDLE\s+\d+\s+\d+\s+Handle: "([^"]*)" <(\d+)>, Access Mode: (\w+), '
                    r'Creation Flags: (\{[^}]*\}|\w+), Status Flags: (\{[^}]*\}|\w+)')
HANDLE = re.compile(r'^IO_HANDLE\s+(\d+)\s+.*I/O Paradigm: "([^"]*)"')


def flags(text):
    return set() if text == "NONE" else {f.strip() for f in text.strip("{}").split(",")}


@pytest.mark.parametrize("io", ["posix,isoc", "linktime:posix,isoc"])
def test_create_handle_records_carry_the_open_flags(build_dir, tmp_path, io):
    program = tmp_path / "open_flags"
    subprocess.run(scorep(build_dir) + [f"--io={io}", "gcc", "-O2", str(HERE / "open_flags.c"), "-o", str(program)],
                   check=True, capture_output=True, text=True)
    files = tmp_path / "files"
    files.mkdir()
    experiment = tmp_path / "experiment"
    proc = run_program([program, files], experiment, {"SCOREP_ENABLE_TRACING": "true"}, cwd=tmp_path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "opened 9 files\n", "")
    out = subprocess.run(["otf2-print", str(experiment / "traces.otf2")], capture_output=True, text=True,
                         check=True).stdout
    definitions = subprocess.run(["otf2-print", "-G", str(experiment / "traces.otf2")], capture_output=True,
                                 text=True, check=True).stdout
    paradigm = {m[1]: m[2] for m in map(HANDLE.match, definitions.splitlines()) if m}
    records = [(paradigm[m[2]], pathlib.Path(m[1]).name, m[3], flags(m[4]), flags(m[5]))
               for m in map(CREATE.match, out.splitlines()) if m]
    # each fopen opens a descriptor under its stream: its POSIX handle first
    streams = [("stream", "WRITE_ONLY", {"CREATE", "TRUNCATE"}, set()),
               ("stream", "READ_WRITE", {"CREATE"}, {"APPEND"}),
               ("stream", "READ_ONLY", set(), {"CLOSE_ON_EXEC"}),
               ("stream-x", "WRITE_ONLY", {"CREATE", "TRUNCATE", "EXCLUSIVE"}, set())]
    assert records == [
        ("POSIX I/O", "created", "WRITE_ONLY", {"CREATE", "TRUNCATE"}, set()),
        ("POSIX I/O", "created", "READ_ONLY", set(), {"CLOSE_ON_EXEC"}),
        ("POSIX I/O", "created", "WRITE_ONLY", set(), {"APPEND", "NON_BLOCKING"}),
        ("POSIX I/O", "exclusive", "READ_WRITE", {"CREATE", "EXCLUSIVE"}, {"SYNC", "DATA_SYNC"}),
        ("POSIX I/O", "creat", "WRITE_ONLY", {"CREATE", "TRUNCATE"}, set()),
    ] + [(p, *stream) for stream in streams for p in ("POSIX I/O", "ISO C I/O")]
