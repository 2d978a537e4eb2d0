"""Build and run the trace test programs (tests/trace/*.c) against the built
measurement core, and read their traces back with python3-otf2."""
import collections
import pathlib
import subprocess

REPO = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent
INCLUDE = REPO / "runtime" / "include"


def find_library(build_dir, stem):
    """The built library `stem` (shared preferred) in the meson build tree."""
    for pattern in (f"lib{stem}.so", f"lib{stem}.a"):
        hits = sorted(pathlib.Path(build_dir).rglob(pattern))
        if hits:
            return hits[0]
    raise AssertionError(f"lib{stem} not found under {build_dir}: build with 'ninja -C {build_dir}'")


def build_program(build_dir, source, output, compiler, libraries):
    """Compile tests/trace/<source> into output, linked against the given core libraries."""
    libs = [find_library(build_dir, name) for name in libraries]
    cmd = [compiler, "-O2", "-std=c11", f"-I{INCLUDE}", str(HERE / source), "-o", str(output)]
    for lib in libs:
        cmd += [str(lib), f"-Wl,-rpath,{lib.parent}"]
    cmd += ["-lm", "-pthread"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stderr}"
    return output


def tracing_env(directory, **extra):
    env = {"SCOREP_ENABLE_TRACING": "true", "SCOREP_ENABLE_PROFILING": "false",
           "SCOREP_EXPERIMENT_DIRECTORY": str(directory)}
    env.update({k: str(v) for k, v in extra.items()})
    return env


def read_trace(anchor):
    """All events of the trace, per location: {location name: [(type, event), ...]}
    plus the definitions, read with python3-otf2 (the way analysis tools read it)."""
    import otf2
    events = collections.defaultdict(list)
    with otf2.reader.open(str(anchor)) as trace:
        for location, event in trace.events:
            events[(location.group.name, location.name)].append(event)
        definitions = {
            "regions": [r.name for r in trace.definitions.regions],
            "location_groups": [g.name for g in trace.definitions.location_groups],
            "locations": [(loc.group.name, loc.name) for loc in trace.definitions.locations],
            "number_of_events": {(loc.group.name, loc.name): loc.number_of_events
                                 for loc in trace.definitions.locations},
            "comms": {c.name: [m.group.name for m in c.group.members]
                      for c in trace.definitions.comms},
            "parameters": [p.name for p in trace.definitions.parameters],
            "rma_wins": [w.name for w in trace.definitions.rma_wins],
        }
    return events, definitions


def count_by_kind(events):
    """Counter of (event type name, region name or None)."""
    counts = collections.Counter()
    for event in events:
        region = getattr(event, "region", None)
        counts[(type(event).__name__, region.name if region is not None else None)] += 1
    return counts
