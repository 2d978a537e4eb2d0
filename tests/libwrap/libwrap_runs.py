"""The library-wrapping workflow as a user runs it, from an installed
scorep-wrapgen: scorep-libwrap-init, make, make check, make install,
make installcheck; and what the experiments say."""
import json
import os
import pathlib
import shlex
import shutil
import subprocess
from dataclasses import dataclass

from conftest import profile_totals

EXAMPLES = pathlib.Path(__file__).resolve().parent / "examples"


@dataclass
class Workdir:
    path: pathlib.Path
    name: str
    prefix: pathlib.Path          # scorep-wrapgen's installation
    libwrap_prefix: pathlib.Path  # where make install puts the wrapper
    log: list

    def make(self, *targets, check=True, timeout=600):
        proc = subprocess.run(["make", "-C", str(self.path), *targets], capture_output=True, text=True,
                              timeout=timeout, env=tool_env(self.prefix))
        self.log.append(proc)
        if check and proc.returncode != 0:
            raise AssertionError(f"make {' '.join(targets)} exited {proc.returncode}\n"
                                 f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
        return proc

    def read(self, name):
        return (self.path / name).read_text()

    def wrapped(self):
        """symbol -> region name, from NAME.wrap."""
        return dict(line.split("\t", 1) for line in self.read(f"{self.name}.wrap").splitlines() if line)

    def experiment(self, mode):
        return self.path / "installcheck" / f"experiment_{mode.replace(' ', '_')}"


def tool_env(prefix, extra=None):
    env = dict(os.environ)
    env["PATH"] = f"{prefix / 'bin'}:{env.get('PATH', '')}"
    for var in ("SCOREP_FILTERING_FILE", "SCOREP_EXPERIMENT_DIRECTORY", "SCOREP_LIBWRAP_PATH"):
        env.pop(var, None)
    env.update(extra or {})
    return env


def init(tmp, prefix, name, language, libs, example, cppflags="", ldflags="", headers=(),
         display_name=None, extra=()):
    """scorep-libwrap-init into tmp/name, with the example as main.c(c)."""
    path = pathlib.Path(tmp) / name
    libwrap_prefix = pathlib.Path(tmp) / "wrappers"
    cmd = [str(prefix / "bin" / "scorep-libwrap-init"), "--name", name, "-x", language,
           "--cppflags", cppflags, "--ldflags", ldflags, "--libs", libs,
           "--prefix", str(libwrap_prefix), *[a for h in headers for a in ("--header", h)], *extra]
    if display_name:
        cmd += ["--display-name", display_name]
    proc = subprocess.run(cmd + [str(path)], capture_output=True, text=True, env=tool_env(prefix))
    if proc.returncode != 0:
        raise AssertionError(f"{shlex.join(cmd)} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    suffix = ".cc" if language == "c++" else ".c"
    shutil.copy(EXAMPLES / example, path / f"main{suffix}")
    return Workdir(path, name, prefix, libwrap_prefix, [proc])


def full_workflow(tmp, prefix, name, language, libs, example, params=None, **init_args):
    """What a user does: init, (N.params,) make, make check, make install,
    make installcheck. The Workdir keeps each step's output."""
    work = init(tmp, prefix, name, language, libs, example, **init_args)
    if params:
        (work.path / f"{name}.params").write_text(params)
    work.make_output = work.make()
    work.check_output = work.make("check")
    work.make("install")
    work.installcheck_output = work.make("installcheck")
    return work


def visits(experiment):
    """region name -> visits summed over ranks, threads and call paths."""
    out = {}
    profile = json.loads((pathlib.Path(experiment) / "profile.json").read_text())
    for (_, name), counters in profile_totals(profile).items():
        out[name] = out.get(name, 0) + counters["visits"]
    return out


def regions(experiment):
    profile = json.loads((pathlib.Path(experiment) / "profile.json").read_text())
    return {r["name"]: r for r in profile["regions"]}


def run(argv, prefix, cwd, experiment, extra_env=None, timeout=120):
    env = tool_env(prefix, dict(extra_env or {}, SCOREP_EXPERIMENT_DIRECTORY=str(experiment)))
    return subprocess.run([str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


MODES = ("linktime shared", "linktime static", "runtime shared", "runtime static", "exec")


def installcheck_experiment(workdir, mode):
    """The experiment make installcheck wrote for a mode."""
    tag = "exec" if mode == "exec" else mode.replace(" ", "_")
    return workdir.path / "installcheck" / f"experiment_{tag}"


def parameter_visits(experiment, region_name):
    """"name=value" -> visits of the parameter nodes of region_name."""
    profile = json.loads((pathlib.Path(experiment) / "profile.json").read_text())
    names = {r["id"]: r["name"] for r in profile["regions"]}
    nodes = {c["id"]: c for c in profile["callpaths"]
             if "parameter" in c and names[c["region"]] == region_name}
    out = {}
    for row in profile["rows"]:
        node = nodes.get(row["callpath"])
        if node:
            key = f"{node['parameter']['name']}={node['parameter']['value']}"
            out[key] = out.get(key, 0) + row["visits"]
    return out
