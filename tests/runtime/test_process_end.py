"""The process-end component (runtime/process_end/, docs/PROCESS_END.md): the
core exports none of the C library's functions it stands in front of; the
component has them all, and its _exit is safe where only async-signal-safe
code may run. Programs are built with the build tree's `scorep`, which links
the component by default and leaves it out with --noprocess-end."""
import pathlib
import subprocess

import pytest

from conftest import scorep
from runtime_programs import Profile, load_profile

HERE = pathlib.Path(__file__).resolve().parent
INTERPOSED = {"_exit", "_Exit", "sigaction", "signal", "bsd_signal", "sysv_signal", "__sysv_signal", "siginterrupt"}
CHILDREN = 300

END_WITH_EXIT = r"""
#include <unistd.h>
#include <scorep_wrapgen/adapter.h>
int main(void)
{
    scorep_region step = scorep_region_define("step", NULL, SCOREP_PARADIGM_USER, SCOREP_ROLE_FUNCTION, NULL);
    for (int i = 0; i < 3; i++) {
        scorep_enter(step);
        scorep_exit(step);
    }
    _exit(0);
}
"""

HANDLER_IN_FORKED_CHILD = r"""
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <scorep_wrapgen/adapter.h>
static void on_term(int sig)
{
    static const char said[] = "the child's handler ran\n";
    (void)sig;
    if (write(1, said, sizeof said - 1) < 0) _exit(5);
    _exit(3);
}
int main(void)
{
    scorep_region step = scorep_region_define("step", NULL, SCOREP_PARADIGM_USER, SCOREP_ROLE_FUNCTION, NULL);
    scorep_enter(step);
    scorep_exit(step);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_term;
    sigaction(SIGTERM, &sa, NULL);
    pid_t pid = fork();
    if (pid == 0) {
        raise(SIGTERM);
        _exit(4);
    }
    int status;
    waitpid(pid, &status, 0);
    printf("child: %s %d\n", WIFEXITED(status) ? "exit" : "signal",
           WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    return 0;
}
"""


def exported(library):
    out = subprocess.run(["nm", "-D", "--defined-only", str(library)], capture_output=True, text=True,
                         check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.split()}


def build(build_dir, source, output, *options):
    proc = subprocess.run(scorep(build_dir) + [*options, "--nocompiler", "gcc", "-O1", str(source), "-o", str(output)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return output


def linked(program):
    return subprocess.run(["ldd", str(program)], capture_output=True, text=True, check=True).stdout


def test_the_core_exports_none_of_the_interposed_functions_and_the_component_all_of_them(build_dir):
    assert exported(build_dir / "runtime" / "libscorep_measurement.so") & INTERPOSED == set()
    assert exported(build_dir / "runtime" / "process_end" / "libscorep_process_end.so") >= INTERPOSED


def test_exit_in_vfork_children_and_their_signal_handlers_needs_no_loader_lock_and_writes_only_the_parents_data(
        build_dir, tmp_path):
    """Another thread holds the dynamic loader's lock all the while (a library
    constructor inside dlopen waits): an _exit that looked anything up would
    wait for it, and the children would only end after the loader gave up."""
    blocker = tmp_path / "loader_blocker.so"
    subprocess.run(["gcc", "-shared", "-fPIC", str(HERE / "loader_blocker.c"), "-o", str(blocker)], check=True)
    program = build(build_dir, HERE / "process_end_exits.c", tmp_path / "process_end_exits")
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    proc = subprocess.run([str(program), str(blocker), str(CHILDREN)], cwd=run_dir, capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "SCOREP_EXPERIMENT_DIRECTORY": "e"}, timeout=120)
    assert proc.stdout == (f"_exit: {CHILDREN} of {CHILDREN}\n_exit in a handler: {CHILDREN} of {CHILDREN}\n"
                           "loader busy throughout: yes\n"), proc.stderr
    # the parent ended with _exit from its own SIGUSR1 handler: its data, marked partial
    assert proc.returncode == 5, proc.stderr
    data = load_profile(run_dir / "e" / "profile.json")
    assert data["experiment"]["partial"] is True
    assert Profile(data).row("process_end_exits/spawn")["visits"] == CHILDREN
    # no child wrote anything: one experiment, nothing beside it
    assert sorted(p.name for p in run_dir.iterdir()) == ["e"]
    assert [p.parent for p in run_dir.rglob(".scorep-wrapgen-experiment")] == [run_dir / "e"]


def test_a_program_ending_with_exit_writes_its_data_with_the_component_and_loses_it_without(build_dir, tmp_path):
    source = tmp_path / "end_with_exit.c"
    source.write_text(END_WITH_EXIT)
    with_component = build(build_dir, source, tmp_path / "with_component")
    without = build(build_dir, source, tmp_path / "without", "--noprocess-end")
    assert "libscorep_process_end.so" in linked(with_component)
    assert "libscorep_process_end.so" not in linked(without)
    for program in (with_component, without):
        proc = subprocess.run([str(program)], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                              env={"PATH": "/usr/bin:/bin", "SCOREP_EXPERIMENT_DIRECTORY": f"e_{program.name}"})
        assert proc.returncode == 0, proc.stderr
    data = load_profile(tmp_path / "e_with_component" / "profile.json")
    assert data["experiment"]["partial"] is False
    assert Profile(data).row("with_component/step")["visits"] == 3
    assert not (tmp_path / "e_without" / "profile.json").exists()


@pytest.mark.parametrize("options", [[], ["--noprocess-end"]], ids=["component", "without"])
def test_a_handler_the_program_installed_while_measured_stays_in_its_forked_child(build_dir, tmp_path, options):
    """The forked child puts the program's actions back for real: with the
    component they are its views; without it the program's sigaction reached
    the kernel, and putting the action from before it back would undo it."""
    source = tmp_path / "handler_in_forked_child.c"
    source.write_text(HANDLER_IN_FORKED_CHILD)
    program = build(build_dir, source, tmp_path / "handler_in_forked_child", *options)
    proc = subprocess.run([str(program)], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "SCOREP_EXPERIMENT_DIRECTORY": "e"})
    assert (proc.returncode, proc.stdout) == (0, "the child's handler ran\nchild: exit 3\n"), proc.stderr
    assert load_profile(tmp_path / "e" / "profile.json")["experiment"]["partial"] is False


@pytest.mark.parametrize("options, preloaded", [([], True), (["--noprocess-end"], False)],
                         ids=["default", "noprocess-end"])
def test_scorep_exec_preloads_the_component_unless_told_not_to(installed_prefix, tmp_path, options, preloaded):
    """dash ends every run with _exit: its data is written only with the component."""
    argv = [str(installed_prefix / "bin" / "scorep-exec"), "--io=posix", "--verbose", *options, "--",
            "/bin/sh", "-c", "echo hello > out"]
    proc = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "SCOREP_EXPERIMENT_DIRECTORY": "e"})
    assert proc.returncode == 0, proc.stderr
    preload = next(line for line in proc.stderr.splitlines() if line.startswith("scorep-exec: LD_PRELOAD="))
    assert ("libscorep_process_end.so" in preload) == preloaded, preload
    assert (tmp_path / "e" / "profile.json").exists() == preloaded
