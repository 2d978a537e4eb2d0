"""Per-file I/O figures (runtime/profile/io_files.c): profile.json's "io_files" and
profile.txt's "I/O summary by file" give, for every file the I/O adapters
gave a handle, the transfers on it, their bytes read and written and their
time, summed over threads (and ranks). The program (two_files.c) writes and
reads two files with known bytes, one with POSIX calls on the main thread,
the other with ISO C calls on a second thread and read again with POSIX
calls; oracles: the files' sizes on disk, the program's own counts (it
prints them) and, for stdout, the length of its output."""
import json
import pathlib
import subprocess

import pytest

from conftest import run_program, scorep

HERE = pathlib.Path(__file__).resolve().parent
PROGRAM = HERE / "two_files.c"


def run(argv, cwd, env_extra=None):
    return run_program([*argv, cwd / "a.dat", cwd / "b.dat"], env=env_extra, cwd=cwd)


def file_figures(experiment):
    """{file name: (visits, bytes read, bytes written)} of profile.json's io_files,
    checked against profile.txt's I/O summary by file."""
    profile = json.loads((experiment / "profile.json").read_text())
    figures = {f["name"]: (f["visits"], f["bytes_read"], f["bytes_written"]) for f in profile["io_files"]}
    assert len(figures) == len(profile["io_files"]), "one entry per file name"
    assert all(f["time_ns"] > 0 for f in profile["io_files"])
    lines = (experiment / "profile.txt").read_text().splitlines()
    start = lines.index("I/O summary by file (transfers, summed over all locations)")
    text = {}
    for line in lines[start + 2:]:
        if not line:
            break
        visits, _time, read, written, name = line.split(maxsplit=4)
        text[name] = (int(visits), int(read), int(written))
    assert text == figures
    return figures


def expected(stdout, cwd):
    """The program's own counts, checked against the files on disk."""
    counts = {}
    for line in stdout.splitlines():
        which, transfers, read, written = line.split()
        counts[str(cwd / f"{which.lower()}.dat")] = (int(transfers), int(read), int(written))
    for name, (_, read, written) in counts.items():
        size = pathlib.Path(name).stat().st_size
        # file A is read back once, file B twice (fread, then read)
        assert written == size and read == size * (1 if name.endswith("a.dat") else 2)
    # printf: two transfers on the pre-created stdout, the output's bytes
    counts["stdout"] = (2, 0, len(stdout.encode()))
    return counts


@pytest.fixture
def plain(tmp_path):
    program = tmp_path / "two_files"
    subprocess.run(["gcc", "-O2", "-pthread", str(PROGRAM), "-o", str(program)], check=True)
    cwd = tmp_path / "plain"
    cwd.mkdir()
    proc = run([str(program)], cwd)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    return program, proc


@pytest.mark.parametrize("tracing", ["false", "true"])
def test_linked_profile_gives_exact_bytes_per_file(build_dir, tmp_path, plain, tracing):
    program = tmp_path / "two_files_linked"
    subprocess.run(scorep(build_dir) + ["--io=posix,isoc", "gcc", "-O2", "-pthread", str(PROGRAM), "-o", str(program)],
                   check=True, capture_output=True, text=True)
    cwd = tmp_path / "measured"
    cwd.mkdir()
    experiment = tmp_path / "experiment"
    proc = run([str(program)], cwd, {"SCOREP_EXPERIMENT_DIRECTORY": str(experiment),
                                     "SCOREP_ENABLE_TRACING": tracing})
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, plain[1].stdout, "")
    assert file_figures(experiment) == expected(proc.stdout, cwd)
    # a file's time is its transfers' time: stdout's is printf's (its only
    # calls on stdout), in the call paths' figures
    profile = json.loads((experiment / "profile.json").read_text())
    printf = {r["id"] for r in profile["regions"] if r["name"] == "printf"}
    callpaths = {c["id"]: c["region"] for c in profile["callpaths"]}
    stdout_time = next(f["time_ns"] for f in profile["io_files"] if f["name"] == "stdout")
    assert stdout_time == sum(row["time_incl_ns"] for row in profile["rows"] if callpaths[row["callpath"]] in printf)


def test_preloaded_profile_gives_exact_bytes_per_file(installed_prefix, tmp_path, plain):
    cwd = tmp_path / "measured"
    cwd.mkdir()
    experiment = tmp_path / "experiment"
    proc = run([str(installed_prefix / "bin" / "scorep-exec"), "--io=posix,isoc", "--", str(plain[0])], cwd,
               {"SCOREP_EXPERIMENT_DIRECTORY": str(experiment)})
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, plain[1].stdout, "")
    # none of the measurement's own files: only the program's two and stdout
    assert file_figures(experiment) == expected(proc.stdout, cwd)


def test_files_beyond_the_table_are_summed_as_other_files(build_dir, tmp_path):
    """many_files.c writes one byte to each of 1100 files: the first 1024
    (the per-process table, io_files.c) have entries of their own, the rest
    one "other files" entry (name null); no byte is lost."""
    program = tmp_path / "many_files"
    subprocess.run(scorep(build_dir) + ["--io=posix", "gcc", "-O2", str(HERE / "many_files.c"), "-o", str(program)],
                   check=True, capture_output=True, text=True)
    (tmp_path / "files").mkdir()
    experiment = tmp_path / "experiment"
    proc = run_program([program, tmp_path / "files"], experiment)
    assert (proc.returncode, proc.stderr) == (0, "")
    entries = json.loads((experiment / "profile.json").read_text())["io_files"]
    named = [e for e in entries if e["name"] is not None]
    other = [e for e in entries if e["name"] is None]
    assert len(named) == 1024 and all((e["visits"], e["bytes_written"]) == (1, 1) for e in named)
    assert [(e["visits"], e["bytes_written"]) for e in other] == [(1100 - 1024, 1100 - 1024)]
    text = (experiment / "profile.txt").read_text()
    assert "(other files: beyond the per-process table)" in text


@pytest.mark.parametrize("mode", ["linked", "preloaded"])
def test_fortran_io_gives_exact_bytes_per_file(build_dir, installed_prefix, tmp_path, mode):
    """stream_file.f90 writes 4 x 5000 bytes (unformatted stream) and reads
    the 20000 back: gfortran's runtime makes the POSIX calls (how many is its
    buffering's business), the file's figures have the exact bytes, equal to
    the file's size on disk."""
    source = HERE / "stream_file.f90"
    program = tmp_path / "stream_file"
    if mode == "linked":
        subprocess.run(scorep(build_dir) + ["--io=posix", "gfortran", "-O1", str(source), "-o", str(program)],
                       check=True, capture_output=True, text=True, cwd=tmp_path)
        argv = [str(program)]
    else:
        subprocess.run(["gfortran", "-O1", str(source), "-o", str(program)], check=True, cwd=tmp_path)
        argv = [str(installed_prefix / "bin" / "scorep-exec"), "--io=posix", "--", str(program)]
    target = tmp_path / "stream.dat"
    proc = run_program([*argv, target], tmp_path / "experiment")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "bytes 20000\n", "")
    files = {f["name"]: f for f in json.loads((tmp_path / "experiment" / "profile.json").read_text())["io_files"]}
    assert target.stat().st_size == 20000
    mine = files[str(target)]
    assert (mine["bytes_read"], mine["bytes_written"]) == (20000, 20000) and mine["visits"] >= 2
    # nothing else but what gfortran writes to stdout (flushed at exit, maybe
    # after the measurement ended)
    assert set(files) <= {str(target), "stdout"}


def test_files_whose_long_paths_differ_only_at_the_end_keep_their_own_figures(build_dir, tmp_path):
    """long_paths.c writes 10 bytes to one file and 20 to another whose
    paths (over 1200 characters) agree in all but their last three: each gets
    a handle and per-file figures of its own, whatever the paths' length."""
    program = tmp_path / "long_paths"
    subprocess.run(scorep(build_dir) + ["--io=posix", "gcc", "-O2", str(HERE / "long_paths.c"), "-o", str(program)],
                   check=True, capture_output=True, text=True)
    experiment = tmp_path / "experiment"
    proc = run_program([program, tmp_path], experiment, {"SCOREP_ENABLE_TRACING": "true"})
    length = len(str(tmp_path)) + 6 * 201 + len("/file_one")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, f"{length} {length}\n", "")
    files = {f["name"]: f["bytes_written"] for f in json.loads((experiment / "profile.json").read_text())["io_files"]
             if f["name"] and f["name"].startswith(str(tmp_path))}
    assert sorted((pathlib.Path(name).name, written) for name, written in files.items()) == [
        ("file_one", 10), ("file_two", 20)]
    assert all(len(name) == length for name in files)
