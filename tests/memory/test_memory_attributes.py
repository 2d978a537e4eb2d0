"""Score-P's allocation attributes on the trace's Enter and Leave records of
the memory adapter (docs/MEMORY_ADAPTER.md, "In the trace"): mem_addresses.c
allocates 5 blocks of 100 bytes with malloc, one calloc(10, 4), realloc's its
first block to 200 bytes and frees every block, and prints each address it
got. Oracle: those addresses and sizes, read with otf2-print (the OTF2
library's own reader): malloc's and calloc's Enter carry ALLOCATION_SIZE,
their Leave RESULT_ADDRESS, the address the program got; realloc's Enter
ALLOCATION_SIZE and ARGUMENT_ADDRESS, its Leave DEALLOCATION_SIZE (the old
block's size) and RESULT_ADDRESS; free's Enter ARGUMENT_ADDRESS, its Leave
DEALLOCATION_SIZE of the block; the four Attribute definitions as Score-P
names them."""
import re
import subprocess

import pytest

from conftest import run_program, scorep

from test_memory import HERE

LINE = re.compile(r"^(ENTER|LEAVE)\s+(\d+)\s+(\d+)\s+Region: \"([^\"]*)\"")
ATTRIBUTE = re.compile(r'\("(\w+)" <\d+>; UINT64; (\d+)\)')


@pytest.fixture(scope="module", params=["", "=linktime"])
def visits(request, build_dir, tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("attributes")
    program = tmp_path / "mem_addresses"
    subprocess.run(scorep(build_dir) + [f"--memory{request.param}", "--nocompiler", "gcc", "-O0",
                                        str(HERE / "mem_addresses.c"), "-o", str(program)],
                   check=True, capture_output=True, text=True)
    experiment = tmp_path / "experiment"
    proc = run_program([program], experiment, {"SCOREP_ENABLE_TRACING": "true"})
    assert proc.returncode == 0, proc.stderr
    out = subprocess.run(["otf2-print", str(experiment / "traces.otf2")], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    # [(region, enter attributes, leave attributes)] in order; an attribute
    # list is printed on the line after its record
    result, open_visits = [], []
    for i, line in enumerate(out):
        m = LINE.match(line)
        if not m:
            continue
        attributes = {}
        if i + 1 < len(out) and "ADDITIONAL ATTRIBUTES" in out[i + 1]:
            attributes = {name: int(value) for name, value in ATTRIBUTE.findall(out[i + 1])}
        if m.group(1) == "ENTER":
            open_visits.append((m.group(4), attributes))
        else:
            region, entered = open_visits.pop()
            assert region == m.group(4)
            result.append((region, entered, attributes))
    definitions = subprocess.run(["otf2-print", "-G", str(experiment / "traces.otf2")], capture_output=True,
                                 text=True, check=True).stdout
    return proc.stdout, result, definitions


def test_allocations_carry_their_size_and_the_block_the_program_got(visits):
    stdout, result, _ = visits
    got = [line.split() for line in stdout.splitlines()]
    mallocs = [(r, e, l) for r, e, l in result if r == "malloc" and e.get("ALLOCATION_SIZE") == 100]
    assert len(mallocs) == 5
    assert sorted(l["RESULT_ADDRESS"] for _, _, l in mallocs) == \
        sorted(int(address) for name, size, address in (g for g in got if g[0] == "malloc"))
    assert all(e == {"ALLOCATION_SIZE": 100} and set(l) == {"RESULT_ADDRESS"} for _, e, l in mallocs)
    (calloc,) = [(e, l) for r, e, l in result if r == "calloc"]
    (_, size, address) = next(g for g in got if g[0] == "calloc")
    assert calloc == ({"ALLOCATION_SIZE": int(size)}, {"RESULT_ADDRESS": int(address)})
    (realloc,) = [(e, l) for r, e, l in result if r == "realloc"]
    (_, size, old, new) = next(g for g in got if g[0] == "realloc")
    assert realloc == ({"ALLOCATION_SIZE": int(size), "ARGUMENT_ADDRESS": int(old)},
                       {"DEALLOCATION_SIZE": 100, "RESULT_ADDRESS": int(new)})


def test_frees_carry_the_block_given_and_its_size(visits):
    stdout, result, _ = visits
    got = [line.split() for line in stdout.splitlines()]
    (_, _, _, moved) = next(g for g in got if g[0] == "realloc")
    (_, calloc_size, zeros) = next(g for g in got if g[0] == "calloc")
    # free(blocks[0]) (the realloc'ed block), blocks[1..4], then zeros; the
    # program's printf allocates only after them
    expected = [(int(moved), 200)] + [(int(g[2]), 100) for g in got if g[0] == "malloc"][:4] + \
        [(int(zeros), int(calloc_size))]
    frees = [(e, l) for r, e, l in result if r == "free"][:6]
    assert [(e["ARGUMENT_ADDRESS"], l["DEALLOCATION_SIZE"]) for e, l in frees] == expected
    assert all(set(e) == {"ARGUMENT_ADDRESS"} and set(l) == {"DEALLOCATION_SIZE"} for e, l in frees)


def test_the_attributes_are_defined_with_score_p_names(visits):
    _, _, definitions = visits
    for name, description in (("ALLOCATION_SIZE", "Size of memory to allocate"),
                              ("DEALLOCATION_SIZE", "Size of memory to deallocate"),
                              ("ARGUMENT_ADDRESS", "Address argument"),
                              ("RESULT_ADDRESS", "Result of allocation")):
        assert re.search(rf'^ATTRIBUTE\s+\d+\s+Name: "{name}" <\d+>, Description: "{description}" <\d+>, '
                         r"Type: UINT64", definitions, re.M), name
