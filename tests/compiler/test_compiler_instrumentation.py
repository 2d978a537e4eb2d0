"""Compiler instrumentation (scorep's GCC plugin) and user regions: exact
visit counts from the test programs' own loops, source names, output
unchanged, filters at run time and compile time, --nocompiler, --user."""
import re
import subprocess

from compiler_runs import HERE, below_program, compile_program, load, run, visits_by_path, visits_by_region
from conftest import mpirun, MPI_COMPILERS

N = 7


def plain_output(tmp_path, compiler, source, args, flags=("-O2",)):
    exe = tmp_path / "plain"
    subprocess.run([compiler, *flags, str(source), "-o", str(exe), f"-I{source.parent.parent.parent / 'runtime' / 'include'}"],
                   check=True, capture_output=True, timeout=300, cwd=tmp_path)
    return subprocess.run([str(exe), *map(str, args)], check=True, capture_output=True, text=True).stdout


def test_c_visits_and_unchanged_output(build_dir, tmp_path):
    exe, _ = compile_program(build_dir, tmp_path, "calls.c", "calls")
    proc = run(exe, [N], tmp_path / "exp")
    assert proc.stdout == plain_output(tmp_path, "gcc", HERE / "calls.c", [N])
    profile = load(tmp_path / "exp")
    visits = below_program(visits_by_path(profile), "calls")
    assert visits[("main",)] == 1
    assert visits[("main", "twice")] == N
    assert visits[("main", "twice", "leaf")] == 2 * N
    assert visits[("main", "filtered_leaf")] == 3 * N
    regions = {r["name"]: r for r in profile["regions"]}
    assert regions["leaf"]["paradigm"] == "compiler"
    assert regions["leaf"]["file"].endswith("tests/compiler/calls.c")
    # Score-P's region: the real absolute path, the lines of the definition's
    # name and of its closing brace (read from the source itself)
    source = (HERE / "calls.c").resolve()
    lines = source.read_text().splitlines()
    for name in ("leaf", "twice", "main"):
        begin = next(i for i, line in enumerate(lines, 1)
                     if re.match(rf"^(static )?(__attribute__\(\(\w+\)\) )?int {name}\(", line))
        end = begin if lines[begin - 1].rstrip().endswith("}") else \
            next(i for i, line in enumerate(lines, 1) if i > begin and line.startswith("}"))
        assert (regions[name]["file"], regions[name]["line"], regions[name]["end_line"]) == \
            (str(source), begin, end), name
        assert regions[name]["canonical_name"] == name   # the C symbol
    # no user regions without --user
    assert "phase" not in regions


def test_cxx_class_template_exception(build_dir, tmp_path):
    exe, _ = compile_program(build_dir, tmp_path, "calls.cc", "calls")
    proc = run(exe, [N], tmp_path / "exp")
    odd = N // 2
    assert proc.stdout.strip().endswith(f"caught={odd}")
    visits = below_program(visits_by_path(load(tmp_path / "exp")), "calls")
    # every call directly under main: thrower's exceptions left its region
    assert visits == {
        ("main",): 1,
        ("main", "Counter::Counter()"): 1,
        ("main", "Counter::add(int)"): 2 * N,
        ("main", "Counter::total() const"): 1,
        ("main", "double scale<double>(double)"): N,
        ("main", "int scale<int>(int)"): 2 * N,
        ("main", "thrower(int)"): N,
    }


def test_fortran_module_procedures(build_dir, tmp_path):
    exe, _ = compile_program(build_dir, tmp_path, "calls.f90", "calls", flags=("-O0",))
    proc = run(exe, [N], tmp_path / "exp")
    assert proc.stdout.strip() == f"total={sum(2 * i for i in range(1, N + 1)) + 2 * N}"
    profile = load(tmp_path / "exp")
    visits = visits_by_region(profile, paradigm="compiler")
    assert visits["geometry::area"] == N
    assert visits["geometry::accumulate"] == 2 * N
    assert visits["helper"] == N
    assert visits["calls"] == 1
    # gfortran's C main is left out: the program unit (region "calls", symbol
    # MAIN__) is right below the program region (named after the executable,
    # here "calls" too), as in Score-P
    assert "main" not in visits
    assert below_program(visits_by_path(profile), "calls")[("calls",)] == 1
    unit = next(r for r in profile["regions"] if r["paradigm"] == "compiler" and r["name"] == "calls")
    lines = (HERE / "calls.f90").read_text().splitlines()
    assert (unit["canonical_name"], unit["file"], unit["line"], unit["end_line"]) == (
        "MAIN__", str((HERE / "calls.f90").resolve()), lines.index("program calls") + 1,
        lines.index("end program calls") + 1)
    module_function = next(r for r in profile["regions"] if r["name"] == "geometry::area")
    assert (module_function["canonical_name"], module_function["line"], module_function["end_line"]) == (
        "__geometry_MOD_area", next(i for i, line in enumerate(lines, 1) if "function area(" in line),
        next(i for i, line in enumerate(lines, 1) if "end function area" in line))


def test_inline_functions_stay_inlined_and_unmeasured(build_dir, tmp_path):
    source = tmp_path / "inl.c"
    source.write_text("#include <stdio.h>\n#include <stdlib.h>\n"
                      "static inline int sq(int x) { return x * x; }\n"
                      "int main(int argc, char** argv) { int s = 0; for (int i = 0; i < atoi(argv[1]); i++) s += sq(i);"
                      " printf(\"%d\\n\", s); return 0; }\n")
    from compiler_runs import scorep
    exe = tmp_path / "inl"
    subprocess.run(scorep(build_dir) + ["--nompi", "gcc", "-O2", str(source), "-o", str(exe)], check=True, timeout=300)
    nm = subprocess.run(["nm", str(exe)], capture_output=True, text=True, check=True).stdout
    assert " sq" not in nm   # no out-of-line copy: inlined
    run(exe, [5], tmp_path / "exp")
    assert visits_by_region(load(tmp_path / "exp"), paradigm="compiler") == {"main": 1}


def test_runtime_filter(build_dir, tmp_path):
    exe, _ = compile_program(build_dir, tmp_path, "calls.c", "calls")
    flt = tmp_path / "f.filter"
    flt.write_text("SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE filtered_*\nSCOREP_REGION_NAMES_END\n")
    run(exe, [N], tmp_path / "exp", env={"SCOREP_FILTERING_FILE": str(flt)})
    profile = load(tmp_path / "exp")
    regions = {r["name"]: r for r in profile["regions"]}
    assert regions["filtered_leaf"]["filtered"] is True
    visits = below_program(visits_by_path(profile), "calls")
    assert not any("filtered_leaf" in p for p in visits)
    assert visits[("main", "twice", "leaf")] == 2 * N


def test_compile_time_filter(build_dir, tmp_path):
    flt = tmp_path / "f.filter"
    flt.write_text("SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE filtered_leaf\nSCOREP_REGION_NAMES_END\n")
    exe, _ = compile_program(build_dir, tmp_path, "calls.c", "calls", options=[f"--instrument-filter={flt}"])
    run(exe, [N], tmp_path / "exp")
    profile = load(tmp_path / "exp")
    assert "filtered_leaf" not in {r["name"] for r in profile["regions"]}   # not instrumented at all
    assert below_program(visits_by_path(profile), "calls")[("main", "twice", "leaf")] == 2 * N
    bad = tmp_path / "bad.filter"
    bad.write_text("SCOREP_REGION_NAMES_BEGIN\n  FROB x\n")
    from compiler_runs import scorep, HERE
    proc = subprocess.run(scorep(build_dir) + [f"--instrument-filter={bad}", "gcc", "-c", str(HERE / "calls.c"),
                                               "-o", str(tmp_path / "x.o")], capture_output=True, text=True)
    assert proc.returncode != 0 and "bad.filter" in proc.stderr


def test_nocompiler(build_dir, tmp_path):
    exe, _ = compile_program(build_dir, tmp_path, "calls.c", "calls", options=["--nompi", "--nocompiler"])
    run(exe, [N], tmp_path / "exp")
    assert not (tmp_path / "exp" / "profile.json").exists() or \
        visits_by_region(load(tmp_path / "exp"), paradigm="compiler") == {}


def test_user_regions_c(build_dir, tmp_path):
    exe, _ = compile_program(build_dir, tmp_path, "calls.c", "calls", options=["--user"])
    run(exe, [4], tmp_path / "exp")
    profile = load(tmp_path / "exp")
    visits = below_program(visits_by_path(profile), "calls")
    for i in range(4):
        kind = "odd" if i % 2 else "even"
        base = ("main", "phase", f"i={i}", f"kind={kind}")
        assert visits[base] == 1
        # the compiler's region twice, inside it the user function region twice
        assert visits[base + ("twice", "twice", "leaf")] == 2
        assert visits[base + ("filtered_leaf",)] == 3
    assert visits[("main", "phase")] == 4
    paradigms = {(r["name"], r["paradigm"]) for r in profile["regions"]}
    assert ("phase", "user") in paradigms and ("twice", "user") in paradigms and ("twice", "compiler") in paradigms


def test_cxx_scope_region_class_is_not_a_compiler_region_at_O0(build_dir, tmp_path):
    """SCOREP_USER_REGION's class is the measurement's: at -O0 (nothing
    inlined) its constructor, which begins the user region, must not become a
    compiler region that ends while the user region is open."""
    source = tmp_path / "scope.cc"
    source.write_text("#include <scorep_user.h>\n#include <cstdio>\n#include <cstdlib>\n"
                      "static int work(int i) { SCOREP_USER_REGION(\"phase\", SCOREP_USER_REGION_TYPE_COMMON);"
                      " return 2 * i; }\n"
                      "int main(int argc, char** argv) { int s = 0; for (int i = 0; i < atoi(argv[1]); i++)"
                      " s += work(i); printf(\"%d\\n\", s); return 0; }\n")
    from compiler_runs import scorep
    exe = tmp_path / "scope"
    subprocess.run(scorep(build_dir) + ["--nompi", "--user", "g++", "-O0", str(source), "-o", str(exe)],
                   check=True, timeout=300)
    proc = run(exe, [N], tmp_path / "exp")
    assert proc.stdout.strip() == str(N * (N - 1))
    assert "Warning" not in proc.stderr
    assert below_program(visits_by_path(load(tmp_path / "exp")), "scope") == {
        ("main",): 1, ("main", "work(int)"): N, ("main", "work(int)", "phase"): N}


def test_user_regions_written_for_scorep_build_unchanged(build_dir, tmp_path):
    """Score-P's header name and its macros without a semicolon after them:
    the same source builds with --user (measured) and without (macros empty)."""
    exe, _ = compile_program(build_dir, tmp_path, "scorep_style_user.c", "scorep_style", options=["--user"])
    proc = run(exe, [N], tmp_path / "exp")
    assert proc.stdout == plain_output(tmp_path, "gcc", HERE / "scorep_style_user.c", [N]) \
        == f"sum of squares {sum(i * i for i in range(N))}\n"
    visits = below_program(visits_by_path(load(tmp_path / "exp")), "scorep_style")
    for i in range(N):
        assert visits[("main", "step", f"i={i}", "square")] == 1
    assert visits[("main", "step")] == N


def test_user_regions_fortran(build_dir, tmp_path):
    exe, _ = compile_program(build_dir, tmp_path, "user.F90", "user", options=["--user", "--nocompiler"],
                             flags=("-O0",))
    proc = run(exe, [5], tmp_path / "exp")
    assert proc.stdout.strip() == "total=15"
    visits = below_program(visits_by_path(load(tmp_path / "exp")), "user")
    assert visits[("fortran_loop",)] == 5
    for i in range(1, 6):
        parity = "odd" if i % 2 else "even"     # trailing blanks of the Fortran string dropped
        assert visits[("fortran_loop", f"step={i}", f"parity={parity}", "work")] == 1
    # without --user the macros are empty: same output, no user regions
    exe, _ = compile_program(build_dir, tmp_path, "user.F90", "plain", options=["--nocompiler"], flags=("-O0",))
    proc = run(exe, [5], tmp_path / "exp2")
    assert proc.stdout.strip() == "total=15"
    assert not (tmp_path / "exp2" / "profile.json").exists() or visits_by_region(load(tmp_path / "exp2")) == {}


def test_demo_functions_are_parents_of_mpi_calls(build_dir, tmp_path):
    from compiler_runs import HERE
    iterations = 5
    exe, _ = compile_program(build_dir, tmp_path, HERE.parent.parent / "examples" / "halo2d.c", "halo2d",
                             compiler=MPI_COMPILERS["openmpi"]["c"], flags=("-O2", "-lm"))
    proc = mpirun(4, [exe, 32, iterations], env={"SCOREP_EXPERIMENT_DIRECTORY": str(tmp_path / "exp")})
    assert f"{iterations} iterations" in proc.stdout
    ranks = 4
    visits = below_program(visits_by_path(load(tmp_path / "exp")), "halo2d", processes=ranks)
    assert visits[("main",)] == ranks
    assert visits[("main", "solve", "exchange")] == ranks * iterations
    assert visits[("main", "solve", "exchange", "MPI_Isend")] == ranks * iterations * 4
    assert visits[("main", "solve", "exchange", "MPI_Waitall")] == ranks * iterations
    assert visits[("main", "solve", "MPI_Allreduce")] == ranks * iterations
    assert visits[("main", "solve", "relax")] == ranks * iterations
    assert visits[("main", "report", "MPI_Recv")] == ranks - 1


def test_functions_whose_long_names_differ_only_at_the_end_are_regions_of_their_own(build_dir, tmp_path):
    """Two functions whose names (4,300 characters, as C++ template
    instances reach) agree in all but their last three: two regions, each
    with its own visits, not one region with both functions' visits."""
    stem = "f" + "x" * 4300
    source = tmp_path / "long_names.c"
    source.write_text(f"""#include <stdio.h>
__attribute__((noinline)) int {stem}_one(int i) {{ return i + 1; }}
__attribute__((noinline)) int {stem}_two(int i) {{ return i + 2; }}
int main(void) {{ printf("%d\\n", {stem}_one(0) + {stem}_two(0) + {stem}_two(1)); return 0; }}
""")
    exe, _ = compile_program(build_dir, tmp_path, source, "long_names")
    proc = run(exe, [], tmp_path / "exp")
    assert proc.stdout == "6\n"
    visits = {path[-1][-3:]: count for path, count in visits_by_path(load(tmp_path / "exp")).items()
              if path[-1].startswith(stem)}
    assert visits == {"one": 1, "two": 2}
