"""Duplicated descriptors (dup, dup2, dup3, fcntl F_DUPFD / F_DUPFD_CLOEXEC):
the duplicate gets an I/O handle of its own on the same file, recorded in the
trace as OTF2 IoDuplicateHandle (read with otf2-print, the OTF2 library's own
reader), and the transfers through it count for that file in profile.json's
"io_files". The program (dup_known.c) writes file A through its descriptor
and five duplicates, reads it back through a dup that outlives its original,
redirects stdout to file B with dup2 and restores it from its own dup, and
writes to a pipe through a dup (no file). Oracles: the program's own counts
(it prints them), the files on disk, its output without measurement."""
import json
import pathlib
import re
import subprocess

import pytest

from conftest import profile_totals
from conftest import run_program, scorep

HERE = pathlib.Path(__file__).resolve().parent
PROGRAM = HERE / "dup_known.c"
DUPLICATE = re.compile(r'^IO_DUPLICATE_HANDLE\s+\d+\s+\d+\s+Old Handle: "([^"]*)" <(\d+)>, '
                       r'New Handle: "([^"]*)" <(\d+)>, Status Flags: (\S+)$')

# linked with the run-time and the link-time wrappers, and preloaded into
# the unmodified binary; the preloaded one built with _FILE_OFFSET_BITS=64
# (its fcntl calls are fcntl64's: nm -u)
MODES = {"runtime": [], "linktime": [], "preloaded": ["-D_FILE_OFFSET_BITS=64"]}


def run(argv, cwd, env_extra=None):
    return run_program([*argv, "a.dat", "b.dat"], env=env_extra, cwd=cwd)


@pytest.fixture(scope="module", params=list(MODES))
def measured(request, build_dir, tmp_path_factory):
    """(mode, the plain run, the measured run, its experiment, the measured run's directory)."""
    mode = request.param
    flags = MODES[mode]
    tmp = tmp_path_factory.mktemp(f"dup_{mode}")
    plain_program = tmp / "dup_plain"
    subprocess.run(["gcc", "-O2", *flags, str(PROGRAM), "-o", str(plain_program)], check=True)
    (tmp / "plain").mkdir()
    plain = run([str(plain_program)], tmp / "plain")
    assert (plain.returncode, plain.stderr) == (0, "")
    if mode == "preloaded":
        installed = request.getfixturevalue("installed_prefix")
        argv = [str(installed / "bin" / "scorep-exec"), "--io=posix", "--", str(plain_program)]
    else:
        program = tmp / "dup_linked"
        subprocess.run(scorep(build_dir) + [f"--io={mode}:posix", "gcc", "-O2", *flags, str(PROGRAM),
                                            "-o", str(program)], check=True, capture_output=True, text=True)
        argv = [str(program)]
    cwd = tmp / "measured"
    cwd.mkdir()
    experiment = tmp / "experiment"
    proc = run(argv, cwd, {"SCOREP_EXPERIMENT_DIRECTORY": str(experiment), "SCOREP_ENABLE_TRACING": "true"})
    check = subprocess.run([str(build_dir / "tools" / "scorep-check"), str(experiment)], capture_output=True,
                           text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    return mode, plain, proc, experiment, cwd


def test_io_through_duplicates_counts_for_the_file(measured):
    mode, plain, proc, experiment, cwd = measured
    # the program behaves as without measurement: its output, stdout's
    # detour through file B
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, plain.stdout, "")
    assert (cwd / "b.dat").read_text() == "into b\n"
    counts = {}
    for line in proc.stdout.splitlines()[1:]:
        which, read, written = line.split()
        counts[f"{which.lower()}.dat"] = (int(read), int(written))
    assert counts == {"a.dat": (2100, 2100), "b.dat": (0, 7)}
    assert (cwd / "a.dat").stat().st_size == 2100
    files = {f["name"]: (f["visits"], f["bytes_read"], f["bytes_written"])
             for f in json.loads((experiment / "profile.json").read_text())["io_files"]}
    # A: 6 writes (1 through the descriptor open gave, 5 through duplicates),
    # 5 reads through a duplicate (600, 600, 600, 300, 0); B: stdout's write
    # while redirected; stdout: its two writes before and after; the pipe:
    # nothing (no file)
    assert files == {"a.dat": (11, 2100, 2100), "b.dat": (1, 0, 7), "stdout": (2, 0, len(proc.stdout.encode()))}
    regions = {name: c["visits"] for (_, name), c in profile_totals(
        json.loads((experiment / "profile.json").read_text())).items()}
    fcntl = "fcntl64" if "-D_FILE_OFFSET_BITS=64" in MODES[mode] else "fcntl"
    # dup: d1, saved, rd, the pipe's; fcntl: F_DUPFD, F_DUPFD_CLOEXEC, two
    # F_GETFD, F_SETLK, F_GETLK (regions only)
    assert (regions["dup"], regions["dup2"], regions["dup3"], regions[fcntl]) == (4, 3, 1, 6)


def duplicates(experiment):
    """[(old handle's file, new handle's file, status flags)] of the trace's
    IoDuplicateHandle records, in order; each new handle differs from its old one."""
    out = subprocess.run(["otf2-print", str(experiment / "traces.otf2")], capture_output=True, text=True,
                         check=True)
    assert out.stderr == ""
    found = []
    for line in out.stdout.splitlines():
        m = DUPLICATE.match(line)
        if m:
            assert m.group(2) != m.group(4), line
            found.append((m.group(1), m.group(3), m.group(5)))
    return found


def test_duplicates_are_io_duplicate_handle_records_in_the_trace(measured):
    mode, plain, proc, experiment, cwd = measured
    assert duplicates(experiment) == [
        ("a.dat", "a.dat", "NONE"),              # dup
        ("a.dat", "a.dat", "NONE"),              # fcntl F_DUPFD
        ("a.dat", "a.dat", "{CLOSE_ON_EXEC}"),   # fcntl F_DUPFD_CLOEXEC
        ("a.dat", "a.dat", "NONE"),              # dup2
        ("a.dat", "a.dat", "{CLOSE_ON_EXEC}"),   # dup3 O_CLOEXEC
        ("stdout", "stdout", "NONE"),            # saved = dup(1)
        ("b.dat", "b.dat", "NONE"),              # dup2(fb, 1)
        ("stdout", "stdout", "NONE"),            # dup2(saved, 1)
        ("a.dat", "a.dat", "NONE"),              # dup(r): the read-back
    ]                                            # (the pipe's dup: no handle, no record)
    # the handles' lives, in the order of the records: each made (created,
    # or the new one of a duplication) while not in use, each destroyed
    # while in use (dup2(fb, 1) ends stdout's pre-created handle, the
    # closes the others); at the end only fd 1's restored duplicate of
    # stdout is in use. Each IoHandle names its file (one IoRegularFile per file).
    out = subprocess.run(["otf2-print", str(experiment / "traces.otf2")], capture_output=True, text=True,
                         check=True).stdout
    event = re.compile(r'^IO_(CREATE_HANDLE|DUPLICATE_HANDLE|DESTROY_HANDLE|OPERATION_BEGIN)\s+\d+\s+\d+\s+'
                       r'(?:Old )?Handle: "([^"]*)" <(\d+)>(?:, New Handle: "[^"]*" <(\d+)>)?')
    live, restored = set(), None
    for line in out.splitlines():
        m = event.match(line)
        if not m:
            continue
        kind, name, handle, new = m.groups()
        if name == "stdout" and not live and kind == "OPERATION_BEGIN":
            live.add(handle)                     # the pre-created handle, at its first write
        if kind == "CREATE_HANDLE" or kind == "DUPLICATE_HANDLE":
            made = handle if kind == "CREATE_HANDLE" else new
            assert made not in live, line
            live.add(made)
            if kind == "DUPLICATE_HANDLE" and name == "stdout":
                restored = new
        elif kind == "DESTROY_HANDLE":
            assert handle in live, line
            live.remove(handle)
        else:
            assert handle in live, line
    assert live == {restored}
    definitions = subprocess.run(["otf2-print", "-G", str(experiment / "traces.otf2")], capture_output=True,
                                 text=True, check=True).stdout
    assert sorted(re.findall(r'^IO_REGULAR_FILE\s+\d+\s+Name: "([^"]*)"', definitions, re.M)) == \
        ["a.dat", "b.dat", "stdout"]
