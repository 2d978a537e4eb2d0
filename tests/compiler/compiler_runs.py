"""Helpers of the compiler instrumentation / user region / scorep-score tests:
build with the build tree's scorep, run, read profile.json."""
import json
import os
import pathlib
import subprocess

from conftest import scorep

HERE = pathlib.Path(__file__).resolve().parent


def compile_program(build, tmp, source, output, options=(), compiler=None, flags=("-O2",)):
    compiler = compiler or {".c": "gcc", ".cc": "g++", ".f90": "gfortran", ".F90": "gfortran"}[pathlib.Path(source).suffix]
    exe = pathlib.Path(tmp) / output
    cmd = scorep(build) + list(options) + [compiler, *flags, str(HERE / source), "-o", str(exe)]
    # in tmp: gfortran writes module files (.mod) into the working directory
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=tmp)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stdout}\n{proc.stderr}"
    return exe, proc


def run(exe, args, experiment, env=None):
    e = dict(os.environ)
    for k in list(e):
        if k.startswith("SCOREP_"):
            del e[k]
    e["SCOREP_EXPERIMENT_DIRECTORY"] = str(experiment)
    e.update(env or {})
    proc = subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True, env=e, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc


def load(experiment):
    return json.loads((pathlib.Path(experiment) / "profile.json").read_text())


def visits_by_path(profile):
    """{(name, ..., name) call path of region names: visits summed over locations};
    parameter nodes appear as 'name=value'."""
    regions = {r["id"]: r for r in profile["regions"]}
    cps = {c["id"]: c for c in profile["callpaths"]}

    def frame(c):
        p = c.get("parameter")
        if p is not None:
            return f"{p['name']}={p['value']}"
        return regions[c["region"]]["name"]

    def path(cid):
        out = []
        while cid is not None:
            out.append(frame(cps[cid]))
            cid = cps[cid]["parent"]
        return tuple(reversed(out))

    result = {}
    for row in profile["rows"]:
        key = path(row["callpath"])
        result[key] = result.get(key, 0) + row["visits"]
    return result


def below_program(visits, program, processes=1):
    """visits_by_path's paths below the program region: the tree's one root,
    named after the executable, visited once by each process."""
    roots = {path: count for path, count in visits.items() if len(path) == 1}
    assert roots == {(program,): processes}, roots
    return {path[1:]: count for path, count in visits.items() if len(path) > 1}


def visits_by_region(profile, paradigm=None):
    regions = {r["id"]: r for r in profile["regions"]}
    cps = {c["id"]: c for c in profile["callpaths"]}
    out = {}
    for row in profile["rows"]:
        c = cps[row["callpath"]]
        if c.get("parameter") is not None:
            continue
        r = regions[c["region"]]
        if paradigm and r["paradigm"] != paradigm:
            continue
        out[r["name"]] = out.get(r["name"], 0) + row["visits"]
    return out
