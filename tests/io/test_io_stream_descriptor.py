"""The descriptor under an ISO C stream, as Score-P records it: fopen gives
the stream's descriptor a POSIX handle of its own (the stream's handle its
parent), created before the stream's and destroyed with it by fclose, and
POSIX calls on fileno(stream) are transfers on that handle; fdopen of a
descriptor opened with open keeps the descriptor's handle, which fclose
ends, as it closes the descriptor. stream_descriptor.c, read with
otf2-print (OTF2's own reader); scorep-check finds the trace consistent."""
import pathlib
import re
import subprocess

import pytest

from test_io_trace import io_definitions, io_records, measure

HERE = pathlib.Path(__file__).resolve().parent
HANDLE = re.compile(r'^IO_HANDLE\s+(\d+)\s+Name: "([^"]*)" .*I/O Paradigm: "([^"]*)".*Parent: (UNDEFINED|"[^"]*" <(\d+)>)$')
RECORD = re.compile(r'^(IO_\w+)\s+\d+\s+\d+\s+Handle: "([^"]*)" <(\d+)>')


@pytest.mark.parametrize("io", ["posix,isoc", "linktime:posix,isoc"])
def test_a_streams_descriptor_is_a_posix_handle_under_the_stream(build_dir, tmp_path, io):
    experiment = measure(build_dir, tmp_path, io, HERE / "stream_descriptor.c", ".")
    handles = {pathlib.Path(name).name: paradigms for name, paradigms in io_definitions(experiment)[0].items()}
    assert handles == {"stream.dat": ["ISO C I/O", "POSIX I/O"], "fdopen.dat": ["POSIX I/O", "ISO C I/O"],
                       "stdout": ["ISO C I/O"]}
    definitions = subprocess.run(["otf2-print", "-G", str(experiment / "traces.otf2")], capture_output=True,
                                 text=True, check=True).stdout
    handle = {m[1]: (pathlib.Path(m[2]).name, m[3], m[5]) for m in map(HANDLE.match, definitions.splitlines()) if m}
    stream = next(h for h, (name, paradigm, _) in handle.items() if (name, paradigm) == ("stream.dat", "ISO C I/O"))
    # the stream's descriptor has the stream as its parent; open's descriptor none
    assert {(name, paradigm): parent for name, paradigm, parent in handle.values() if name != "stdout"} == {
        ("stream.dat", "ISO C I/O"): None, ("stream.dat", "POSIX I/O"): stream,
        ("fdopen.dat", "POSIX I/O"): None, ("fdopen.dat", "ISO C I/O"): None}
    printed = subprocess.run(["otf2-print", str(experiment / "traces.otf2")], capture_output=True, text=True,
                             check=True).stdout
    sequence = [(m[1], pathlib.Path(m[2]).name, handle[m[3]][1]) for m in map(RECORD.match, printed.splitlines())
                if m and m[2] != "stdout"]
    creates_and_destroys = [record for record in sequence if record[0] in ("IO_CREATE_HANDLE", "IO_DESTROY_HANDLE")]
    assert creates_and_destroys == [
        ("IO_CREATE_HANDLE", "stream.dat", "POSIX I/O"), ("IO_CREATE_HANDLE", "stream.dat", "ISO C I/O"),
        ("IO_DESTROY_HANDLE", "stream.dat", "POSIX I/O"), ("IO_DESTROY_HANDLE", "stream.dat", "ISO C I/O"),
        ("IO_CREATE_HANDLE", "fdopen.dat", "POSIX I/O"), ("IO_CREATE_HANDLE", "fdopen.dat", "ISO C I/O"),
        ("IO_DESTROY_HANDLE", "fdopen.dat", "POSIX I/O"), ("IO_DESTROY_HANDLE", "fdopen.dat", "ISO C I/O")]
    # the bytes of each transfer on the handle it went through
    done = [(pathlib.Path(name).name, paradigm, fields["Bytes Result"]) for (kind, name, fields), (_, _, paradigm)
            in zip([r for r in io_records(experiment) if r[1] != "stdout"], sequence)
            if kind == "IO_OPERATION_COMPLETE"]
    assert done == [("stream.dat", "ISO C I/O", "19"), ("stream.dat", "POSIX I/O", "23"),
                    ("stream.dat", "POSIX I/O", "42"), ("fdopen.dat", "ISO C I/O", "7")]
    seeks = [paradigm for kind, name, paradigm in sequence if kind == "IO_SEEK"]
    assert seeks == ["POSIX I/O"]
    assert (tmp_path / "stream.dat").read_text() == "through the stream\nthrough the descriptor\n"
    assert (tmp_path / "fdopen.dat").read_text() == "fdopen\n"
