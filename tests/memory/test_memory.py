"""The memory adapter (scorep --memory, scorep-exec --memory; generated/memory/
from tasks/memory.json): a program of known allocations and one known leak
(mem_known.c) measured with the run-time and the link-time wrappers linked in
and preloaded into the unmodified binary. Oracle: the program's own source
(which call allocates or frees how many bytes, from which function, which
block is never freed) and its output without measurement. The figures being
exact also says that none of the measurement's own allocations (its
definitions' strdup, profile nodes, trace buffers) were recorded."""
import json
import pathlib
import shutil
import subprocess
import sys

import pytest

from conftest import run_program, scorep, untimed_profile

HERE = pathlib.Path(__file__).resolve().parent
PROGRAM = HERE / "mem_known.c"

# from mem_known.c: {function: (allocation_size, deallocation_size)} of work()
WORK = {"malloc": (1000, 0), "calloc": (40, 0), "realloc": (3000, 1000), "posix_memalign": (512, 0),
        "aligned_alloc": (256, 0), "memalign": (128, 0), "valloc": (4096, 0), "free": (0, 8032)}
# the live bytes peak right after valloc: 40 + 3000 + 512 + 256 + 128 + 4096
HIGH_WATER = 8032
# maximum_heap_memory_allocated per allocating call of work(), as Score-P
# records it: the bytes live right after the call, in the source's order
# (realloc gives its 1000 back before it takes 3000)
WORK_HIGH = {"malloc": 1000, "calloc": 1040, "realloc": 40 + 3000, "posix_memalign": 3552, "aligned_alloc": 3808,
             "memalign": 3936, "valloc": HIGH_WATER}
LEAK = 777   # leak(): one malloc, never freed
OUTPUT_FLAGS = ["-O1"]


def run(program, experiment=None, extra_env=None, argv_prefix=()):
    return run_program([*argv_prefix, program], experiment, extra_env)


def memory_rows(experiment):
    """{call path (tuple of region names): {metric name: value}} of every row
    with a memory metric, summed over locations."""
    rows = {}
    for (_, path), figures in untimed_profile(experiment)[1].items():
        for name, value in figures["metrics"].items():
            summed = rows.setdefault(path, {})
            summed[name] = summed.get(name, 0) + value
    return rows


def expected(work_prefix, leak_prefix):
    rows = {}
    for name, (allocated, freed) in WORK.items():
        figures = {}
        if allocated:
            figures["allocation_size"] = allocated
        if freed:
            figures["deallocation_size"] = freed
        if name in WORK_HIGH:
            figures["maximum_heap_memory_allocated"] = WORK_HIGH[name]
        rows[work_prefix + (name,)] = figures
    leak = rows.setdefault(leak_prefix + ("malloc",), {})
    leak["allocation_size"] = leak.get("allocation_size", 0) + LEAK
    # everything work() took is back: the leak's malloc finds LEAK bytes live
    leak["maximum_heap_memory_allocated"] = max(leak.get("maximum_heap_memory_allocated", 0), LEAK)
    leak.update(bytes_leaked=LEAK, leaks=1)
    return rows


def memory_section(experiment):
    lines = (pathlib.Path(experiment) / "profile.txt").read_text().splitlines()
    start = lines.index("Memory (summed over all locations)")
    end = lines.index("", start)
    return lines[start + 1:end]


def plain_run(tmp_path):
    program = tmp_path / "mem_plain"
    subprocess.run(["gcc", *OUTPUT_FLAGS, str(PROGRAM), "-o", str(program)], check=True)
    plain = run(program)
    assert plain.returncode == 0 and plain.stdout.startswith("work "), plain.stderr
    return program, plain


@pytest.mark.parametrize("mode,tracing", [("", "false"), ("", "true"), ("=linktime", "false")])
def test_linked_memory_adapter_records_exact_bytes_per_call_path_high_water_mark_and_leak(build_dir, tmp_path,
                                                                                         mode, tracing):
    _, plain = plain_run(tmp_path)
    program = tmp_path / "mem_linked"
    subprocess.run(scorep(build_dir) + [f"--memory{mode}", "gcc", *OUTPUT_FLAGS, str(PROGRAM), "-o", str(program)],
                   check=True, capture_output=True, text=True)
    dynamic = subprocess.run(["ldd", str(program)], capture_output=True, text=True, check=True).stdout
    assert ("libscorep_adapter_memory_rt.so" in dynamic) == (mode == "")
    experiment = tmp_path / "experiment"
    measured = run(program, experiment, {"SCOREP_ENABLE_TRACING": tracing})
    assert (measured.returncode, measured.stdout, measured.stderr) == (plain.returncode, plain.stdout, "")
    # compiler instrumentation puts the calls under the functions that make them
    # below the program region, named after the executable
    assert memory_rows(experiment) == expected(("mem_linked", "main", "work"), ("mem_linked", "main", "leak"))
    assert memory_section(experiment) == [
        "allocated: 9809 bytes", "freed:     9032 bytes", f"high-water mark, rank 0: {HIGH_WATER} bytes",
        f"leaks:     1 allocations, {LEAK} bytes",
        f"{'leaks':>12} {'bytes':>16}  allocated at (call path)", f"{1:>12} {LEAK:>16}  mem_linked > main > leak > malloc"]


def test_preloaded_memory_adapter_records_exact_bytes_high_water_mark_and_leak(installed_prefix, tmp_path):
    program, plain = plain_run(tmp_path)
    experiment = tmp_path / "experiment"
    measured = run(program, experiment, argv_prefix=[installed_prefix / "bin" / "scorep-exec", "--memory",
                                                     "--verbose", "--"])
    assert (measured.returncode, measured.stdout) == (plain.returncode, plain.stdout)
    assert "libscorep_adapter_memory_rt.so" in measured.stderr
    # no instrumentation: the calls are right below the program region (named
    # after the executable); work()'s and leak()'s mallocs share one
    assert memory_rows(experiment) == expected(("mem_plain",), ("mem_plain",))
    assert f"leaks:     1 allocations, {LEAK} bytes" in memory_section(experiment)


def test_scorep_exec_memory_on_a_static_binary_says_to_relink(build_dir, tmp_path):
    program = tmp_path / "mem_static"
    built = subprocess.run(["gcc", "-static", *OUTPUT_FLAGS, str(PROGRAM), "-o", str(program)],
                           capture_output=True, text=True)
    if built.returncode != 0:
        pytest.skip(f"no static C library to link with: {built.stderr.strip()[-200:]}")
    proc = subprocess.run([sys.executable, str(pathlib.Path(build_dir) / "tools" / "scorep-exec"), "--memory", "--",
                           str(program)], capture_output=True, text=True, cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert "--memory:" in proc.stderr and "statically linked" in proc.stderr
    assert "scorep --memory <compiler>" in proc.stderr


def test_unknown_memory_mode_is_an_error_naming_the_valid_ones(build_dir, tmp_path):
    proc = subprocess.run(scorep(build_dir) + ["--memory=heap", "gcc", str(PROGRAM), "-o", str(tmp_path / "never")],
                          capture_output=True, text=True, cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert "--memory=heap: unknown mode (valid: runtime, linktime" in proc.stderr
    assert not (tmp_path / "never").exists()


@pytest.mark.parametrize("mode", ["", "=linktime"])
def test_cpp_new_and_delete_are_recorded_as_the_operators_under_their_callers(build_dir, tmp_path, mode):
    """C++'s operator new and delete (tasks/memory.json's by_symbol entries:
    _Znwm, _Znam, _ZdlPvm, _ZdaPv, ...) are regions named as C++ writes them,
    under the function that news or deletes (mem_new.cpp: work() news 200 +
    100 bytes and deletes both, leak() news 200 bytes and keeps them); the
    malloc and free libstdc++ makes under them are not counted again. Both
    forms: the run-time wrappers and --wrap of the program's own calls."""
    source = HERE / "mem_new.cpp"
    plain_program = tmp_path / "new_plain"
    subprocess.run(["g++", *OUTPUT_FLAGS, str(source), "-o", str(plain_program)], check=True)
    plain = run(plain_program)
    program = tmp_path / "new_linked"
    subprocess.run(scorep(build_dir) + [f"--memory{mode}", "g++", *OUTPUT_FLAGS, str(source), "-o", str(program)],
                   check=True, capture_output=True, text=True)
    experiment = tmp_path / "experiment"
    measured = run(program, experiment)
    assert (measured.returncode, measured.stdout, measured.stderr) == (plain.returncode, plain.stdout, "")
    # main below the program region, named after the executable
    rows = {path[1:]: figures for path, figures in memory_rows(experiment).items()
            if path[:2] == ("new_linked", "main")}
    assert rows == {
        ("main", "work()", "operator new(unsigned long)"): {"allocation_size": 200,
                                                             "maximum_heap_memory_allocated": 200},
        ("main", "work()", "operator new[](unsigned long)"): {"allocation_size": 100,
                                                               "maximum_heap_memory_allocated": 300},
        ("main", "work()", "operator delete(void*, unsigned long)"): {"deallocation_size": 200},
        ("main", "work()", "operator delete[](void*)"): {"deallocation_size": 100},
        ("main", "leak()", "operator new(unsigned long)"): {"allocation_size": 200, "bytes_leaked": 200,
                                                             "leaks": 1, "maximum_heap_memory_allocated": 200}}
    kinds = {r["name"]: (r["paradigm"], r["role"])
             for r in json.loads((experiment / "profile.json").read_text())["regions"] if "operator" in r["name"]}
    assert kinds == {"operator new(unsigned long)": ("memory", "allocate"),
                     "operator new[](unsigned long)": ("memory", "allocate"),
                     "operator delete(void*, unsigned long)": ("memory", "deallocate"),
                     "operator delete[](void*)": ("memory", "deallocate")}


def test_threads_allocating_at_once_get_exact_bytes_and_leaks_on_their_own_locations(build_dir, tmp_path):
    """mem_threads.c: 4 threads make 2000 malloc/free pairs each at the same
    time (the address table takes no lock), then each leaks one block of
    1000 + i bytes. Each thread's figures land on its own location, exact;
    the high-water mark (the largest of the per-call-path maxima) lies
    between what is live at the end and that plus one block of each thread
    in flight. pthread_create's own allocations (the C library's per-thread
    data, kept for reuse) are recorded under main."""
    program = tmp_path / "mem_threads"
    subprocess.run(scorep(build_dir) + ["--memory", "gcc", "-O1", "-pthread", str(HERE / "mem_threads.c"),
                                        "-o", str(program)], check=True, capture_output=True, text=True)
    experiment = tmp_path / "experiment"
    measured = run(program, experiment)
    assert (measured.returncode, measured.stderr) == (0, "")
    assert measured.stdout == "".join(f"thread {i} kept a block\n" for i in range(4))
    profile = json.loads((experiment / "profile.json").read_text())
    regions = {r["id"]: r["name"] for r in profile["regions"]}
    callpaths = {c["id"]: c for c in profile["callpaths"]}
    metrics = {str(m["id"]): m["name"] for m in profile["metrics"]}
    per_location, live_at_end, high = {}, 0, []
    for row in profile["rows"]:
        figures = {metrics[m]: v for m, v in row.get("metrics", {}).items()}
        live_at_end += figures.get("bytes_leaked", 0)
        if "maximum_heap_memory_allocated" in figures:
            high.append(figures.pop("maximum_heap_memory_allocated"))
        cp = callpaths[row["callpath"]]
        parent = callpaths[cp["parent"]] if cp["parent"] is not None else None
        if parent is not None and regions[parent["region"]] == "worker" and regions[cp["region"]] != "touch":
            per_location.setdefault(row["location"], {})[regions[cp["region"]]] = (row["visits"], figures)
    rounds = 2000
    want = [{"malloc": (rounds + 1, {"allocation_size": rounds * 16 * (i + 1) + 1000 + i,
                                     "bytes_leaked": 1000 + i, "leaks": 1}),
             "free": (rounds, {"deallocation_size": rounds * 16 * (i + 1)})} for i in range(4)]
    assert sorted(per_location.values(), key=lambda calls: calls["free"][1]["deallocation_size"]) == want
    # a maximum on each thread's malloc path and on main's pthread_create
    assert len(high) == 5 and live_at_end <= max(high) <= live_at_end + 16 * (1 + 2 + 3 + 4)
    # profile.txt lists the leaks per call path, summed over the threads
    assert f"{4:>12} {1000 + 1001 + 1002 + 1003:>16}  mem_threads > THREADS > worker > malloc" in memory_section(experiment)


@pytest.mark.parametrize("filtered", ["free", "realloc"])
def test_blocks_freed_or_reallocated_without_recording_are_no_leaks(build_dir, tmp_path, filtered):
    """free or realloc filtered out (SCOREP_FILTERING_FILE): the calls are not
    recorded, but the blocks they free still leave the address table, so the
    leak report has only the program's one leak. realloc unrecorded: its new
    block is not tracked (its free counts 0 bytes), the old one's 1000 bytes
    leave the live bytes (high-water mark 5032 = 40 + 512 + 256 + 128 + 4096,
    each allocation after it 3000 bytes below its recorded figure)."""
    program = tmp_path / "mem_linked"
    subprocess.run(scorep(build_dir) + ["--memory", "gcc", *OUTPUT_FLAGS, str(PROGRAM), "-o", str(program)],
                   check=True, capture_output=True, text=True)
    filter_file = tmp_path / "unrecorded.filter"
    filter_file.write_text(f"SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE {filtered}\nSCOREP_REGION_NAMES_END\n")
    experiment = tmp_path / "experiment"
    measured = run(program, experiment, {"SCOREP_FILTERING_FILE": str(filter_file)})
    assert (measured.returncode, measured.stderr) == (0, "")
    want = expected(("mem_linked", "main", "work"), ("mem_linked", "main", "leak"))
    del want[("mem_linked", "main", "work", filtered)]
    if filtered == "realloc":
        want[("mem_linked", "main", "work", "free")] = {"deallocation_size": 8032 - 3000}
        for name in ("posix_memalign", "aligned_alloc", "memalign", "valloc"):
            want[("mem_linked", "main", "work", name)]["maximum_heap_memory_allocated"] = WORK_HIGH[name] - 3000
    assert memory_rows(experiment) == want
    assert f"leaks:     1 allocations, {LEAK} bytes" in memory_section(experiment)


def test_bad_alloc_thrown_through_operator_new_leaves_its_region(build_dir, tmp_path):
    """std::bad_alloc unwinds through the operator new[] wrapper: the program
    catches it as without measurement, the region is left (no warning about
    an open region), and the next new is recorded under main again."""
    source = HERE / "mem_bad_alloc.cpp"
    plain_program = tmp_path / "bad_plain"
    subprocess.run(["g++", "-O0", str(source), "-o", str(plain_program)], check=True)
    plain = run(plain_program)
    assert plain.stdout == "bad_alloc caught\nv 3\n"
    program = tmp_path / "bad_linked"
    subprocess.run(scorep(build_dir) + ["--memory", "g++", "-O0", str(source), "-o", str(program)],
                   check=True, capture_output=True, text=True)
    experiment = tmp_path / "experiment"
    measured = run(program, experiment)
    assert (measured.returncode, measured.stdout, measured.stderr) == (plain.returncode, plain.stdout, "")
    rows = memory_rows(experiment)
    assert rows[("bad_linked", "main", "operator new(unsigned long)")] == {"allocation_size": 4,
                                                                           "maximum_heap_memory_allocated": 4}
    assert rows[("bad_linked", "main", "operator delete(void*, unsigned long)")] == {"deallocation_size": 4}


def traced_metrics(experiment):
    """{region name: {metric name: sum}} of the trace's Metric records, each
    counted for the region it lies in, as otf2-print (an independent reader)
    lists them."""
    printed = subprocess.run(["otf2-print", str(pathlib.Path(experiment) / "traces.otf2")], capture_output=True,
                             text=True, check=True).stdout
    open_regions, sums = {}, {}
    for line in printed.splitlines():
        fields = line.split()
        if not fields or fields[0] not in ("ENTER", "LEAVE", "METRIC"):
            continue
        stack = open_regions.setdefault(fields[1], [])
        if fields[0] == "ENTER":
            stack.append(line.split('Region: "', 1)[1].split('"', 1)[0])
        elif fields[0] == "LEAVE":
            stack.pop()
        else:
            name, value = line.split('Value: ("', 1)[1].split('"', 1)[0], int(line.rsplit(";", 1)[1].strip(" )"))
            figures = sums.setdefault(stack[-1], {})
            figures[name] = figures.get(name, 0) + value
    return sums


@pytest.mark.skipif(not shutil.which("otf2-print"), reason="otf2-print not installed")
def test_trace_has_every_allocations_bytes_as_metric_records_of_its_call(build_dir, tmp_path):
    """The bytes each call allocates and frees are in the trace too, as OTF2
    Metric records inside the call's region: summed per function they are
    mem_known.c's figures (the leak's malloc included)."""
    _, plain = plain_run(tmp_path)
    program = tmp_path / "mem_traced"
    subprocess.run([*scorep(build_dir), "--nompi", "--memory", "gcc", *OUTPUT_FLAGS, str(PROGRAM), "-o",
                    str(program)], check=True, capture_output=True)
    proc = run(program, tmp_path / "e", {"SCOREP_ENABLE_TRACING": "true"})
    assert proc.returncode == 0 and proc.stdout == plain.stdout, proc.stderr
    sums = traced_metrics(tmp_path / "e")
    want = {}
    for name, (allocated, freed) in WORK.items():
        want[name] = {k: v for k, v in (("allocation_size", allocated), ("deallocation_size", freed)) if v}
    want["malloc"]["allocation_size"] += LEAK
    assert sums == want


# Score-P's kinds of memory regions: what each call does to the heap
ROLES = {"malloc": "ALLOCATE", "calloc": "ALLOCATE", "posix_memalign": "ALLOCATE", "aligned_alloc": "ALLOCATE",
         "memalign": "ALLOCATE", "valloc": "ALLOCATE", "realloc": "REALLOCATE", "free": "DEALLOCATE"}


@pytest.mark.skipif(not shutil.which("otf2-print"), reason="otf2-print not installed")
def test_memory_regions_have_the_memory_paradigm_and_allocate_reallocate_deallocate_roles(build_dir, tmp_path):
    """As Score-P's memory regions: paradigm "memory" in the profile (and its
    CUBE file), the trace's region definitions with OTF2's ALLOCATE,
    REALLOCATE and DEALLOCATE roles and a paradigm named MEMORY, read back
    with otf2-print; the program's own functions keep theirs."""
    program = tmp_path / "mem_kinds"
    subprocess.run([*scorep(build_dir), "--nompi", "--memory", "gcc", *OUTPUT_FLAGS, str(PROGRAM), "-o",
                    str(program)], check=True, capture_output=True)
    proc = run(program, tmp_path / "e", {"SCOREP_ENABLE_TRACING": "true"})
    assert proc.returncode == 0, proc.stderr
    regions = json.loads((tmp_path / "e" / "profile.json").read_text())["regions"]
    kinds = {r["name"]: (r["paradigm"], r["role"]) for r in regions if r["name"] in ROLES or r["name"] == "work"}
    assert kinds == {**{name: ("memory", role.lower()) for name, role in ROLES.items()},
                     "work": ("compiler", "function")}
    printed = subprocess.run(["otf2-print", "-G", str(tmp_path / "e" / "traces.otf2")], capture_output=True,
                             text=True, check=True).stdout
    paradigm_names = {}
    traced = {}
    for line in printed.splitlines():
        fields = line.split()
        if fields[:1] == ["PARADIGM"]:
            paradigm_names[fields[1]] = line.split('Name: "', 1)[1].split('"', 1)[0]
        elif fields[:1] == ["REGION"]:
            name = line.split('Name: "', 1)[1].split('"', 1)[0]
            role = line.split("Role: ", 1)[1].split(",", 1)[0]
            paradigm = line.split("Paradigm: ", 1)[1].split(", Flags", 1)[0]
            traced[name] = (role, paradigm)
    memory_paradigm = {name: paradigm for name, paradigm in paradigm_names.items() if paradigm == "MEMORY"}
    assert len(memory_paradigm) == 1, paradigm_names
    value = next(iter(memory_paradigm))
    assert {name: traced[name] for name in ROLES} == {
        name: (role, f'"MEMORY" <{value}>') for name, role in ROLES.items()}
    assert traced["work"] == ("FUNCTION", "COMPILER")
