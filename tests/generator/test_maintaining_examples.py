"""The worked examples of docs/MAINTAINING.md, applied to scratch copies of the
specs and the catalogue: each must do what the document says."""
import json
import re
import shutil
import subprocess
import sys


from conftest import REPO

DOC = (REPO / "docs" / "MAINTAINING.md").read_text()


def example(name):
    match = re.search(r"```\w+ example=" + re.escape(name) + r"\n(.*?)```", DOC, re.S)
    assert match, f"docs/MAINTAINING.md has no example '{name}'"
    return match.group(1)


def scratch(tmp_path):
    specs = tmp_path / "specs"
    shutil.copytree(REPO / "specs", specs)
    tasks = tmp_path / "tasks"
    shutil.copytree(REPO / "tasks", tasks)
    return specs, tasks


def add_rule(catalogue_path, rule):
    catalogue = json.loads(catalogue_path.read_text())
    catalogue["rules"].insert(0, rule)
    catalogue_path.write_text(json.dumps(catalogue, indent=4))


def regenerate(tmp_path, specs, tasks):
    out = tmp_path / "generated"
    proc = subprocess.run([sys.executable, "-m", "generator", "regenerate", "--output", str(out),
                           "--specs-dir", str(specs), "--tasks", str(tasks / "scorep.json")],
                          cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return out, proc.stdout


def squeeze(text):
    return " ".join(text.split())


def wrapper(out, name):
    for path in (out / "mpi" / "c").glob("wrap_*.c"):
        text = path.read_text()
        m = re.search(r"#if SCOREP_WRAPGEN_HAVE_" + name + r"\n(.*?)#endif", text, re.S)
        if m:
            return path.name, m.group(1)
    return None, None


def test_new_version_spec_gets_wrappers_with_tasks_bound_by_kind(tmp_path):
    specs, tasks = scratch(tmp_path)
    (specs / "mpi-6.0.apis.json").write_text(example("new-version-spec"))
    add_rule(tasks / "scorep.json", json.loads(example("new-version-rule")))
    out, _ = regenerate(tmp_path, specs, tasks)
    for name in ("MPI_Send_fancy", "MPI_Send_fancy_c"):
        file, body = wrapper(out, name)
        assert file == "wrap_point_to_point.c"
        assert squeeze(example("new-version-expect")) in squeeze(body)
    assert "MPI_Send_fancy" in (out / "mpi" / "probes" / "c-procedures.txt").read_text().split()
    summary = subprocess.run([sys.executable, "-m", "generator", "specs", "--summary",
                              "--specs-dir", str(specs)], cwd=REPO, capture_output=True, text=True)
    assert re.search(r"6\.0: 1 procedures", summary.stdout)


def test_new_task_reaches_every_wrapper_whose_rule_lists_it(tmp_path):
    specs, tasks = scratch(tmp_path)
    catalogue = json.loads((tasks / "scorep.json").read_text())
    catalogue["tasks"].update(json.loads("{" + example("new-task-entry") + "}"))
    collective_rules = [r for r in catalogue["rules"] if r["group"] == "COLL" and r.get("tasks")]
    for rule in collective_rules:
        rule["tasks"].append("comm_size_parameter")
    (tasks / "scorep.json").write_text(json.dumps(catalogue, indent=4))
    (tasks / "comm_size_parameter.c.j2").write_text(example("new-task-snippet"))
    out, _ = regenerate(tmp_path, specs, tasks)
    for name in ("MPI_Allreduce", "MPI_Bcast", "MPI_Ibarrier", "MPI_Gatherv_c"):
        _, body = wrapper(out, name)
        assert 'scorep_parameter_define("comm size"' in body, name
        assert "PMPI_Comm_size(comm, &scorep_size);" in body, name
    _, body = wrapper(out, "MPI_Send")
    assert "comm size" not in body


def test_customised_rule_changes_one_wrapper_only(tmp_path):
    specs, tasks = scratch(tmp_path)
    add_rule(tasks / "scorep.json", json.loads(example("customise-rule")))
    out, _ = regenerate(tmp_path, specs, tasks)
    for name in ("MPI_Reduce_local", "MPI_Reduce_local_c"):
        file, body = wrapper(out, name)
        assert file == "wrap_misc.c" and "SCOREP_MPI_GROUP_MISC" in body
    file, _ = wrapper(out, "MPI_Reduce")
    assert file == "wrap_collectives.c"


def test_unbindable_task_argument_is_a_clear_error(tmp_path):
    specs, tasks = scratch(tmp_path)
    add_rule(tasks / "scorep.json", {"match": "MPI_Sendrecv", "group": "P2P", "tasks": ["send"]})
    proc = subprocess.run([sys.executable, "-m", "generator", "regenerate", "--output",
                           str(tmp_path / "out"), "--tasks", str(tasks / "scorep.json")],
                          cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 1
    assert "MPI_Sendrecv" in proc.stderr and "sendcount, recvcount" in proc.stderr
    assert "scorep.json" in proc.stderr


def test_regenerate_names_the_wrappers_without_tasks(tmp_path):
    specs, tasks = scratch(tmp_path)
    add_rule(tasks / "scorep.json", json.loads(example("customise-rule")))
    _, report = regenerate(tmp_path, specs, tasks)
    listed = report.split("enter/exit only (no task):", 1)[1].split()
    assert "MPI_Reduce_local" in listed and "MPI_Comm_rank" in listed
    assert "MPI_Send" not in listed and "MPI_Allreduce" not in listed


def test_coverage_report_format_matches_the_probe(tmp_path):
    line = example("coverage-report").splitlines()[0]
    assert re.match(r"# C MPI procedures: \d+ wrapped, \d+ not \(\d+ probed with .*, \d+ compiles, [\d.]+ s\)", line)
    source = (REPO / "configure-checks" / "probe_mpi.py").read_text()
    assert "# C MPI procedures: {len(wrapped)} wrapped, {len(status)} not" in source
