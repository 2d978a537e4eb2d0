"""A skip or failure message of the test suite means something to someone who
has only the checkout: it names no directory outside it (a maintainer's
../shared/reference/, /work/...), and the maintainers' cross-checks say what
is missing and how to get it."""
import ast
import os
import subprocess
import sys

from conftest import REPO

TESTS = REPO / "tests"
# calls whose text a user reads when a test does not pass
MESSAGE_CALLS = {"skip", "fail", "skipif", "xfail", "importorskip", "exit"}
OUTSIDE = ("../", "/work/", "shared/", "/reference")


def call_name(node):
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def mentions_outside(node):
    """True where an expression builds a path outside the checkout: conftest's
    REFERENCE, or a parent of REPO."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id == "REFERENCE":
            return True
        if isinstance(sub, ast.Attribute) and sub.attr == "parent" and isinstance(sub.value, ast.Name) \
                and sub.value.id == "REPO":
            return True
    return False


def message_problems(path):
    """(line, text) of every message call in a test module that names a path outside the checkout."""
    tree = ast.parse(path.read_text(), str(path))
    # module names bound to such paths (FORUM = REFERENCE / ...), followed through assignments
    outside_names = set()
    for _ in range(3):
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and (mentions_outside(node.value) or any(
                    isinstance(n, ast.Name) and n.id in outside_names for n in ast.walk(node.value))):
                outside_names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    problems = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and call_name(node) in MESSAGE_CALLS):
            continue
        for part in ast.walk(node):
            if isinstance(part, ast.Constant) and isinstance(part.value, str) \
                    and any(marker in part.value for marker in OUTSIDE):
                problems.append((node.lineno, part.value))
            if isinstance(part, ast.FormattedValue) and (mentions_outside(part.value) or any(
                    isinstance(n, ast.Name) and n.id in outside_names for n in ast.walk(part.value))):
                problems.append((node.lineno, ast.unparse(part.value)))
    return problems


def test_the_check_finds_a_path_outside_the_checkout_in_a_message(tmp_path):
    # the form the suite had: the reference file's path in the skip message
    sample = tmp_path / "test_sample.py"
    sample.write_text('import pytest\nfrom conftest import REFERENCE\nFORUM = REFERENCE / "x.json"\n'
                      'OTHER = FORUM.parent\n'
                      'def test_a():\n    pytest.skip(f"reference {OTHER} is absent")\n'
                      'def test_b():\n    pytest.fail("see ../shared/reference/README.md")\n'
                      'def test_c():\n    pytest.skip(f"no build in {tmp_path}")\n')
    assert [line for line, _ in message_problems(sample)] == [6, 8]


def test_no_skip_or_failure_message_names_a_path_outside_the_checkout():
    modules = sorted(TESTS.rglob("*.py"))
    assert len(modules) > 50
    problems = [f"{path.relative_to(REPO)}:{line}: {text}" for path in modules
                for line, text in message_problems(path)]
    assert not problems, "\n".join(problems)


def test_maintainers_cross_check_says_what_is_missing_and_how_to_get_it(tmp_path):
    # run the MPI Forum cross-check where the reference data is absent, as on a user's machine
    env = dict(os.environ, SCOREP_WRAPGEN_REFERENCE=str(tmp_path / "no-reference"))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rs",
                           "tests/generator/test_spec_matches_mpi_forum.py"],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:]
    skipped = [line for line in proc.stdout.splitlines() if line.startswith("SKIPPED")]
    assert skipped
    for line in skipped:
        assert "maintainers" in line and "apis.json" in line and "SCOREP_WRAPGEN_REFERENCE" in line, line
        assert str(REPO.parent) not in line.replace(str(REPO), "") and "../" not in line, line
        assert str(tmp_path) not in line, line


def test_missing_mpich_build_names_the_make_target_that_builds_it(tmp_path, monkeypatch):
    import pytest
    import conftest
    monkeypatch.setitem(conftest.BUILDS, "mpich", tmp_path / "build-mpich")
    with pytest.raises(pytest.fail.Exception) as failure:
        conftest.mpi_build("mpich")
    assert "run 'make build-both' first" in str(failure.value)
    # the make target named there does configure that directory
    makefile = (REPO / "Makefile").read_text()
    assert "build-both: build $(BUILD)-mpich/build.ninja" in makefile
