"""The trace of a transfer reads the clock twice, as a region pair does
(a clock reading is a good part of an I/O record's cost: bench/system_adapters):
its IoOperationBegin takes the
time of the region's enter and the region's leave the time of its
IoOperationComplete. Read with otf2-print (OTF2's own reader); the records
and bytes themselves are test_io_trace.py's."""
import re
import subprocess

import pytest

from test_io_trace import HERE, measure

# otf2-print's event lines: KIND  LOCATION  TIME  ...
EVENT = re.compile(r"^(ENTER|LEAVE|IO_OPERATION_BEGIN|IO_OPERATION_COMPLETE)\s+(\d+)\s+(\d+)\s")


def events(experiment):
    """{location: [(kind, time)]} of the trace's region and I/O operation records, in order."""
    out = subprocess.run(["otf2-print", str(experiment / "traces.otf2")], capture_output=True, text=True,
                         check=True).stdout
    per_location = {}
    for line in out.splitlines():
        m = EVENT.match(line)
        if m:
            per_location.setdefault(m.group(2), []).append((m.group(1), int(m.group(3))))
    return per_location


@pytest.mark.parametrize("io,source,argument", [("posix", "io_known.c", "data.bin"),
                                                ("linktime:posix", "io_known.c", "data.bin"),
                                                ("isoc", "stdio_known.c", "data.txt")])
def test_io_operation_records_share_their_regions_enter_and_leave_times(build_dir, tmp_path, io, source,
                                                                         argument):
    experiment = measure(build_dir, tmp_path, io, HERE / source, argument)
    pairs = 0
    for records in events(experiment).values():
        for i, (kind, time) in enumerate(records):
            if kind == "IO_OPERATION_BEGIN":
                assert records[i - 1] == ("ENTER", time), records[i - 1:i + 1]
            elif kind == "IO_OPERATION_COMPLETE":
                assert records[i + 1] == ("LEAVE", time), records[i:i + 2]
                pairs += 1
    # the transfers on handles test_io_trace.py counts (io_known.c: 14;
    # stdio_known.c: at least its fwrite, fputs, fprintf, fread, fgets)
    assert pairs >= 5
