"""`regenerate` is deterministic and generated/ is what it produces (CI fails on a diff)."""
import filecmp
import subprocess
import sys

from conftest import REPO


def regenerate_into(path):
    subprocess.run([sys.executable, "-m", "generator", "regenerate", "--quiet", "--output", str(path)],
                   cwd=REPO, check=True)
    return sorted(p.relative_to(path) for p in path.rglob("*") if p.is_file())


def test_regenerate_twice_gives_identical_files(tmp_path):
    first = regenerate_into(tmp_path / "a")
    second = regenerate_into(tmp_path / "b")
    assert first == second and first
    for rel in first:
        assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes(), rel


def test_committed_generated_tree_is_up_to_date(tmp_path):
    fresh = regenerate_into(tmp_path)
    committed = REPO / "generated"
    stale = [str(rel) for rel in fresh if not (committed / rel).exists()
             or not filecmp.cmp(tmp_path / rel, committed / rel, shallow=False)]
    assert stale == [], "generated/ is out of date: run `make regenerate` and commit"
