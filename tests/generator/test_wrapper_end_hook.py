"""A task's `end` hook exits the region in place of the library wrapper
skeleton's scorep_libwrap_end (templates/libwrap/wrappers.c.j2): the I/O
adapters' transfers end with one call into the core (scorep_io_end: bytes,
IoOperationComplete and exit; tasks/io_operation.c.j2), every other wrapper
with scorep_libwrap_end. Each measured wrapper exits its region exactly once,
in the committed generated sources (which test_regenerate.py keeps equal to
what the generator renders)."""
import re

import pytest

from conftest import REPO

# wrapper bodies: from the "/* wrapper N: name" comment to the next one
WRAPPER = re.compile(r"/\* wrapper \d+: (\S+) .*?(?=/\* wrapper \d+: |\Z)", re.S)
TRANSFERS = {"read", "write", "pread", "pwrite", "readv", "writev", "fread", "fwrite", "fputs", "fgets",
             "fprintf", "getline"}
OTHERS = {"open", "close", "lseek", "fopen", "fclose", "fseek", "fflush"}


@pytest.mark.parametrize("path", ["generated/io/posix/wrap_runtime.c", "generated/io/posix/wrap_linktime.c",
                                  "generated/io/isoc/wrap_runtime.c", "generated/io/isoc/wrap_linktime.c"])
def test_each_io_wrapper_exits_its_region_once_transfers_through_their_end_hook(path):
    bodies = {m.group(1): m.group(0) for m in WRAPPER.finditer((REPO / path).read_text())}
    seen = set()
    for name, body in bodies.items():
        ends = body.count("scorep_io_end(scorep_r,"), body.count("scorep_libwrap_end(scorep_r);")
        assert sum(ends) == 1, (name, ends)
        if name in TRANSFERS:
            assert ends == (1, 0), name
            seen.add(name)
        elif name in OTHERS:
            assert ends == (0, 1), name
            seen.add(name)
    assert seen & TRANSFERS and seen & OTHERS


def test_wrappers_of_other_libraries_keep_the_skeletons_exit():
    for path in ("generated/caf/wrap_runtime.c", "generated/thread/pthread/wrap_linktime.c"):
        text = (REPO / path).read_text()
        assert "scorep_io_end(" not in text
        assert "scorep_libwrap_end(scorep_r);" in text
